package scache

import "github.com/jdwpscache/scache/jdwp"

// A thread the user suspends. From an IDE's threads view a user suspends
// one running thread (ThreadReference.Suspend) and looks at it: the
// debugger reads its status, depth and stack once the Suspend is
// answered. The agent suspends the thread before it reads on, so those
// reads go out right behind the Suspend (behind.go), and its reply parks
// the thread: they answer the debugger's reads then. What goes is the
// thread's view, and what the debugger read of the last thread it
// suspended, of this one.

// maxSuspendedAsks bounds the reads kept of the last thread suspended.
const maxSuspendedAsks = 8

// suspendedView is what the debugger read of the last thread it suspended
// (thread), in the epoch its Suspend began: reads of that thread alone,
// kept to be asked of the next one.
type suspendedView struct {
	thread jdwp.ThreadID
	epoch  uint64
	asked  []Key
}

// speculateSuspendingView asks, right behind the debugger's
// ThreadReference.Suspend of thread t, for what the debugger read of the
// last thread it suspended, of t, then for t's view. What did not fit the
// in-flight bound is dropped at the Suspend's reply: the reads made last
// go first.
func speculateSuspendingView(s *Speculator, t jdwp.ThreadID) {
	v := &s.view.suspended
	last := v.asked
	*v = suspendedView{thread: t, epoch: s.susp.epoch}
	for _, key := range last {
		if m, err := key.withThread(t, s.sizes).Message(s.sizes); err == nil {
			enqueueBehind(s, m)
		}
	}
	eachViewRead(s, []jdwp.ThreadID{t}, func(m jdwp.CommandMessage, _ bool) { enqueueBehind(s, m) })
}

// noteSuspendedAsk records the debugger's read (key) of the thread it
// suspended last, in the epoch its Suspend began, if it reads that
// thread's own state and names nothing else (threadReads). Its key is
// kept: the message decoded may be the Speculator's scratch one.
func noteSuspendedAsk(s *Speculator, key Key, _ jdwp.CommandMessage) {
	v := &s.view.suspended
	if v.thread == 0 || v.epoch != s.susp.epoch || len(v.asked) >= maxSuspendedAsks || !threadReads[key.Command()] {
		return
	}
	if t, ok := key.thread(s.sizes); ok && t == v.thread {
		v.asked = append(v.asked, key)
	}
}

// threadReads are the reads of one thread's own state that name nothing
// else (its stack, depth, status, name or suspend count): asked of one
// thread, they are asked of another by its key's thread alone
// (Key.withThread).
var threadReads = map[jdwp.Command]bool{
	jdwp.CmdThreadReferenceFrames:       true,
	jdwp.CmdThreadReferenceFrameCount:   true,
	jdwp.CmdThreadReferenceStatus:       true,
	jdwp.CmdThreadReferenceName:         true,
	jdwp.CmdThreadReferenceSuspendCount: true,
}
