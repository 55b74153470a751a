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
		m, err := key.Message(s.sizes)
		if err != nil {
			continue
		}
		if m, ok := threadReadOf(m, t); ok {
			enqueueBehind(s, m)
		}
	}
	eachViewRead(s, []jdwp.ThreadID{t}, func(m jdwp.CommandMessage, _ bool) { enqueueBehind(s, m) })
}

// noteSuspendedAsk records the debugger's read (key, and m if decoded) of
// the thread it suspended last, in the epoch its Suspend began. Its key is
// kept: m may be the Speculator's scratch message, decoded into again.
func noteSuspendedAsk(s *Speculator, key Key, m jdwp.CommandMessage) {
	v := &s.view.suspended
	if v.thread == 0 || v.epoch != s.susp.epoch || len(v.asked) >= maxSuspendedAsks {
		return
	}
	if m == nil {
		var err error
		if m, err = key.Message(s.sizes); err != nil {
			return
		}
	}
	if _, ok := threadReadOf(m, v.thread); !ok {
		return
	}
	if t, _ := threadOf(m); t == v.thread {
		v.asked = append(v.asked, key)
	}
}

// threadReadOf returns m, a read of one thread's own state that names nothing
// else (its stack, depth, status or name), as the same read of thread t.
func threadReadOf(m jdwp.CommandMessage, t jdwp.ThreadID) (jdwp.CommandMessage, bool) {
	switch m := m.(type) {
	case *jdwp.ThreadFramesCommand:
		c := *m
		c.Thread = t
		return &c, true
	case *jdwp.ThreadFrameCountCommand:
		return &jdwp.ThreadFrameCountCommand{Thread: t}, true
	case *jdwp.ThreadStatusCommand:
		return &jdwp.ThreadStatusCommand{Thread: t}, true
	case *jdwp.ThreadNameCommand:
		return &jdwp.ThreadNameCommand{Thread: t}, true
	}
	return nil, false
}
