package scache

import (
	"github.com/jdwpscache/scache/jdwp"
)

// Parked threads. Under suspend-thread breakpoints (suspend policy
// EVENT_THREAD) several threads stop at once, each at its own breakpoint,
// and the debugger resumes them one at a time: an IDE's threads view shows
// the others' depth and top frame at every stop, and the next event in its
// queue is often one that arrived while it looked at the last. An epoch
// ends at every event and every resume, but a thread suspended by its own
// event stays where it is until a command lets it run: its frames, depth,
// this, locals and status are what they were.
//
// A thread is parked from a trusted stop of policy EVENT_THREAD of it
// (suspension.stops) until the debugger sends a command that may let it
// run: a resume of it or of every thread (not one that only undoes a
// pause, VirtualMachine.Suspend, sent since it was parked: resumedAll), an
// invocation in it or one that
// resumes every thread, or any other command that lets threads run
// (PopFrames, Stop, a hot swap: every thread, to stay simple). Its own
// suspension entries (keySpec.threadLocal) are cached for as long as it
// stays parked, out of the epochs' purge; they pin no state (sequential.go)
// for the same reason. A THREAD_NOT_SUSPENDED reply about it unparks it.

// park takes note that the trusted stop of thread t suspended it alone.
func (s *suspension) park(t jdwp.ObjectID) {
	if s.parked == nil {
		s.parked = make(map[jdwp.ObjectID]int)
	}
	s.parked[t] = s.pauses
}

// isParked reports whether thread t is parked.
func (s *suspension) isParked(t jdwp.ObjectID) bool {
	_, ok := s.parked[t]
	return ok
}

// parkedOf returns the parked thread whose own state the command m, of
// spec, reads (0: none).
func (s *suspension) parkedOf(spec keySpec, m jdwp.CommandMessage) jdwp.ObjectID {
	if !spec.threadLocal || spec.life != lifetimeSuspension || len(s.parked) == 0 {
		return 0
	}
	if t, ok := threadOf(m); ok && s.isParked(t) {
		return t
	}
	return 0
}

// unpark takes thread t (0: every thread) out of the parked threads, as a
// command that may let it run goes to the VM, and drops what is known of
// its state: cached, queued and in flight (replies in flight still answer
// the commands held on them).
func (s *Speculator) unpark(t jdwp.ObjectID) {
	if len(s.susp.parked) == 0 {
		return
	}
	gone := func(th jdwp.ObjectID) bool { return th != 0 && (t == 0 || th == t) }
	for th := range s.susp.parked {
		if gone(th) {
			delete(s.susp.parked, th)
			s.cache.removeThread(th)
			s.stop.forgetParked(th)
		}
	}
	s.forget(func(p subject) bool { return gone(p.thread) })
}

// unparkFor unparks the threads that cmd, a debugger's command that may
// let threads run (u, as the suspension keeps it; inv, if an invocation),
// may let run: the thread a ThreadReference.Resume names, the invoking
// thread of a single-threaded invocation, or every thread.
func (s *Speculator) unparkFor(cmd jdwp.Command, u unsettled, inv jdwp.Invocation) {
	switch {
	case cmd == jdwp.CmdThreadReferenceResume && u.resumed != 0:
		s.unpark(u.resumed)
	case inv != nil:
		t, options := inv.Invoking()
		if options&jdwp.InvokeSingleThreaded == 0 {
			t = 0 // every thread runs meanwhile
		}
		s.unpark(t)
	case cmd == jdwp.CmdVirtualMachineResume:
		resumedAll(s)
	default:
		s.unpark(0)
	}
}

// resumedAll unparks, as the debugger resumes every thread
// (VirtualMachine.Resume), the threads it lets run: each thread's suspend
// count drops by one, and a parked thread stays suspended only if a pause
// (VirtualMachine.Suspend) went out since it was parked and no resume
// undid it. One resumed alone during the pause (ThreadReference.Resume)
// was unparked then, and one parked since, by its event, counts no pause.
func resumedAll(s *Speculator) {
	p := s.susp.pauses
	if p > 0 {
		s.susp.pauses--
	}
	for th, at := range s.susp.parked {
		if at >= p {
			s.unpark(th)
		}
	}
}

// paused counts a VirtualMachine.Suspend the debugger sends (the VM
// processes commands in the order they go out), or, refused (suspended
// false), takes it back.
func (s *suspension) paused(suspended bool) {
	if suspended {
		s.pauses++
		return
	}
	if s.pauses > 0 {
		s.pauses--
	}
	for th, at := range s.parked {
		if at > s.pauses {
			s.parked[th] = s.pauses
		}
	}
}

// stopUnseen reports whether the stop that goes on ends while its thread
// stays parked: another thread's event supersedes it, and the debugger,
// which reads its events in order, may not have looked at it yet. What was
// speculated for it is not judged unused (learner, FamilyAgain): its
// parked entries still wait for the debugger.
func (s *Speculator) stopUnseen() bool {
	return s.stop.on && s.susp.isParked(s.stop.event.thread)
}

// parkedReply reports whether p, a command about a parked thread sent in
// an earlier epoch, was not invalidated: its reply is still true.
func (s *suspension) parkedReply(p *inFlight) bool {
	return p.thread != 0 && !p.poisoned && s.isParked(p.thread)
}
