package scache

import (
	"github.com/jdwpscache/scache/jdwp"
)

// Taking up a parked stop. Under suspend-thread breakpoints several
// threads stop at once, each parked at its own (parked.go), and the stop
// the Speculator speculates on is the last event's. A debugger written on
// JDI takes its event sets off a queue, first in first out, and resumes
// each stop's thread before it takes the next: once it resumed one, it
// reads the oldest parked stop, not the last, and the moving state
// speculated at the last (the view, the fields of its this) is not what it
// reads there. So, behind a resume of the stopped thread or of another
// thread's parked stop, the oldest parked stop (if it came before the one
// that goes on) is taken up again: made the current stop, and the
// families speculate on it as at its own event, where its thread-local
// state is still cached (parked) and what moves is asked anew. Not behind
// a resume of a thread the debugger suspended itself
// (ThreadReference.Suspend): it goes on with its stop. Behind the resume
// of a parked stop's thread after a pause too (VirtualMachine.Suspend
// ended the stop's epoch, and no stop goes on).
//
// The resumed thread often stops again before the debugger reads the stop
// taken up (a worker that hits its breakpoint at once). In the debugger's
// queue its new stop is behind the others: its own state is asked as at
// any stop and kept, parked, and the stop taken up is taken up again, in
// the new epoch (what moves is asked anew).

// nextStop returns the thread of the stop the debugger reads once it
// resumed thread resumed: the oldest parked stop, if it came before the
// stop that goes on (0: none, or the one that goes on).
func nextStop(s *Speculator, resumed jdwp.ObjectID) jdwp.ObjectID {
	t, ok := s.stop.oldestParked(resumed)
	if !ok || !s.susp.isParked(t) {
		return 0
	}
	if s.stop.on && s.stop.event.thread != resumed && s.stop.seq < s.stop.parked[t].seq {
		return 0
	}
	return t
}

// takeUp makes the parked stop of thread t the current one, taken up
// behind a resume of thread after, and the families speculate on it (the
// current stop, if any, is closed and parked).
func takeUp(s *Speculator, t, after jdwp.ObjectID) {
	if !s.stop.hasParkedStop(t) {
		return
	}
	if s.stop.on {
		closeStop(s)
	}
	ev, ok := s.stop.takeUp(t, after)
	if !ok {
		return
	}
	s.susp.kind, s.susp.thread, s.susp.stopped = threadSuspended, t, t
	s.stats.StopsTakenUp++
	s.table.stop(s, ev)
}

// queueBehind takes up again the stop taken up that went on before the
// stop of thread t began (was), if t is the thread whose resume took it
// up: t's new stop queues behind it, parked.
func queueBehind(s *Speculator, was takenUpStop, t jdwp.ObjectID) {
	if was.thread != 0 && was.after == t {
		takeUp(s, was.thread, t)
	}
}
