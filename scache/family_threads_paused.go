package scache

import "github.com/jdwpscache/scache/jdwp"

// Pauses. A user who presses an IDE's Pause has it send
// VirtualMachine.Suspend: no event comes, and once the reply proves every
// thread suspended the IDE refreshes its threads view and shows the
// stacks of the threads the user looks at. The view goes out right
// behind the Suspend (behind.go: the agent suspends every thread before it
// reads on), and so do the stacks the debugger read at its last pause
// (the same threads, most often: the app's own, which outlive a pause);
// what did not fit the in-flight bound goes out at the Suspend's reply,
// as at a stop.

// maxPausedAsks bounds the stacks kept of one pause.
const maxPausedAsks = 16

// pausedView is what the debugger read at its last pause: the stacks
// (ThreadReference.Frames) it asked in that pause's epoch.
type pausedView struct {
	epoch uint64
	asked []Key
}

// speculatePausedView asks, once the debugger's VirtualMachine.Suspend
// proved every thread suspended, for the thread list and at once for the
// view of each thread the last list showed, as at a stop, and for the
// stacks the debugger read at its last pause: they come back in the round
// trip the Suspend's reply began, instead of the list's, then the view's,
// then each stack's.
func speculatePausedView(s *Speculator) {
	enqueueListAndView(s)
	p := &s.view.paused
	last := p.asked
	p.epoch, p.asked = s.susp.epoch, nil
	for _, key := range last {
		if m, err := key.Message(s.sizes); err == nil {
			s.enqueue(m, false)
		}
	}
}

// speculatePausingView asks, right behind the debugger's
// VirtualMachine.Suspend, what speculatePausedView asks at its reply: the
// thread list, each listed thread's view and the stacks read at the last
// pause. The VM reads them once every thread is suspended, so they are
// back in the Suspend's own round trip (behind.go). Behind a
// ThreadReference.Suspend it asks the view of that thread
// (speculateSuspendingView).
func speculatePausingView(s *Speculator, cmd jdwp.Command, back stopEvent) {
	if cmd == jdwp.CmdThreadReferenceSuspend {
		speculateSuspendingView(s, back.thread) // family_threads_suspended.go
		return
	}
	if cmd != jdwp.CmdVirtualMachineSuspend {
		return
	}
	enqueueBehind(s, &jdwp.VMAllThreadsCommand{})
	eachViewRead(s, s.stop.threads, func(m jdwp.CommandMessage, _ bool) { enqueueBehind(s, m) })
	for _, key := range s.view.paused.asked {
		if m, err := key.Message(s.sizes); err == nil {
			enqueueBehind(s, m)
		}
	}
}

// notePausedAsk records a stack the debugger reads in the epoch of a pause.
func notePausedAsk(s *Speculator, key Key) {
	p := &s.view.paused
	if p.epoch != s.susp.epoch || p.epoch == 0 || key.Command() != jdwp.CmdThreadReferenceFrames || len(p.asked) >= maxPausedAsks {
		return
	}
	p.asked = append(p.asked, key)
}
