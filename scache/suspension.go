package scache

import (
	"fmt"

	"github.com/jdwpscache/scache/jdwp"
)

// The suspension: what is known suspended, the epoch, and the debugger's
// commands that may let threads run and are not answered yet. It owns
// these fields; only its methods below change them, called from the
// epoch's mechanics (state.go) and the event handler (facts.go). It
// answers the one question the rest of the package asks of it: may this
// reply be cached now, and is it moving (cacheable).
//
// What is suspended follows the order in which the VM processes commands,
// not the order in which packets reach the Speculator: see "Races" in the
// package documentation. While a debugger command that may let threads run
// is sent and not answered (it is unsettled), nothing establishes a trusted
// suspension: not an event, not the reply to VirtualMachine.Suspend.

// suspendKind says which threads are known to be suspended.
type suspendKind uint8

const (
	running         suspendKind = iota // nothing is known to be suspended: no state is cached
	allSuspended                       // every thread (suspend policy ALL, VirtualMachine.Suspend)
	threadSuspended                    // one thread (suspend policy EVENT_THREAD); the others run
)

type suspension struct {
	epoch  uint64
	kind   suspendKind
	thread jdwp.ObjectID // with threadSuspended
	// stopped is the thread whose event established the suspension, while
	// nothing may have let it run since: alive and suspended (0: none).
	stopped jdwp.ObjectID
	// unsettled holds the debugger's commands that may let threads run
	// (letRun) and whose replies have not arrived, by id: the VM may have
	// sent what arrives meanwhile before or after processing them.
	unsettled map[uint32]unsettled
	// parked holds the threads that a trusted stop of suspend policy
	// EVENT_THREAD suspended and that no command sent since may have let
	// run (parked.go): their own state outlives the epochs. Each maps to
	// the pauses counted when it was parked; pauses counts the
	// VirtualMachine.Suspend sent that no VirtualMachine.Resume sent since
	// undid (parked.go: resumedAll).
	parked map[jdwp.ObjectID]int
	pauses int
}

// unsettled is a command that may let threads run, sent and not answered.
type unsettled struct {
	resume bool // VirtualMachine.Resume or ThreadReference.Resume
	// resumed is the thread a ThreadReference.Resume resumes (0: another
	// command); resumedParked, whether it was parked (parked.go) when sent:
	// known suspended, it runs, and stops, only once the VM processed it.
	resumed       jdwp.ObjectID
	resumedParked bool
	// elsewhere: a resume of another thread than the one a stop event that
	// arrived after it suspended (othersResumed); processed before or after
	// that event, it does not touch the suspension, and its reply changes
	// nothing in it. It still decides the next event.
	elsewhere bool
	kind      suspendKind   // what was known suspended when it was sent
	thread    jdwp.ObjectID // with threadSuspended
	// call is the invocation this command is, if it is one.
	call invocation
}

// cacheable reports whether the reply to m, a suspension command, may be
// cached now, and whether as a moving entry: about state that may change
// while the debugger looks (the running threads' names and status, the
// thread list), cached under Sequential only (sequential.go). An entry that
// is not moving is true until the epoch ends: every thread is suspended, or
// m is about the one thread suspended; or, with parked, for as long as
// that thread, whose own state m reads, stays parked (parked.go).
func (s *suspension) cacheable(spec keySpec, m jdwp.CommandMessage, c Consistency) (cacheable, moving bool, parked jdwp.ObjectID) {
	if t := s.parkedOf(spec, m); t != 0 {
		return true, false, t
	}
	if !s.settled() || s.kind == running {
		return false, false, 0
	}
	if s.kind == allSuspended {
		return true, false, 0
	}
	if t, ok := threadOf(m); ok && spec.threadLocal && t == s.thread {
		return true, false, 0
	}
	moving = c == Sequential && spec.moving
	return moving, moving, 0
}

// current reports whether the reply to a state command p is of the epoch
// that goes on, as it was sent: cacheable when sent, and not invalidated.
func (s *suspension) current(p *inFlight) bool {
	return p.key != "" && !p.poisoned && p.epoch == s.epoch
}

// settled reports whether no command that may let threads run is unanswered.
func (s *suspension) settled() bool {
	for _, u := range s.unsettled {
		if !u.elsewhere {
			return false
		}
	}
	return true
}

// pending reports whether any command that may let threads run is
// unanswered, elsewhere or not: an event that arrives now may have been
// sent before the VM processed it.
func (s *suspension) pending() bool { return len(s.unsettled) > 0 }

// unsettle takes note of the debugger's command id, which may let threads
// run. Nothing is known stopped until its reply. It fails when a debugger
// has more such commands unanswered than any would (max).
func (s *suspension) unsettle(id uint32, u unsettled, max int) error {
	s.stopped = 0
	if s.unsettled == nil {
		s.unsettled = make(map[uint32]unsettled)
	}
	if len(s.unsettled) >= max {
		return fmt.Errorf("%d commands that let threads run are unanswered", len(s.unsettled))
	}
	s.unsettled[id] = u
	return nil
}

// settle takes the unsettled command id out, if it is one, at its reply.
func (s *suspension) settle(id uint32) (unsettled, bool) {
	u, ok := s.unsettled[id]
	if ok {
		delete(s.unsettled, id)
	}
	return u, ok
}

// invoked reports whether the suspension goes on after the reply to the
// invocation u: it was sent in a trusted suspension, nothing else is
// unsettled and the suspension is the one it was sent in. The invoking
// thread is the stopped thread again if it was.
func (s *suspension) invoked(u unsettled) bool {
	t := u.call.back.thread
	if t == 0 || !s.settled() || u.kind == running || s.kind != u.kind ||
		s.kind == threadSuspended && s.thread != t {
		return false
	}
	if u.call.stopped {
		s.stopped = t
	}
	if u.call.parked {
		s.park(t)
	}
	return true
}

// suspendAnswered takes note of a successful reply to VirtualMachine.Suspend:
// it proves every thread suspended only if no command that may let threads
// run is unanswered, as one sent after it may already have been processed
// (race 2 of the package documentation). That holds for the resumes of
// other threads than a stop's (elsewhere) too: they leave the stopped
// thread suspended, but the thread each resumes runs once the VM processes
// it, Suspend or not.
func (s *suspension) suspendAnswered() {
	if !s.pending() {
		s.kind = allSuspended
	}
}

// run takes note that no thread is known suspended any more.
func (s *suspension) run() { s.kind, s.stopped = running, 0 }

// stops updates the suspension for an event composite of the policy that
// stops thread t (found) or no thread at a location, and reports whether
// the stop is trusted: the VM suspended t as the policy says, after every
// command that may let threads run.
func (s *suspension) stops(policy jdwp.SuspendPolicy, t jdwp.ObjectID, found bool) bool {
	s.stopped = 0
	if !s.settled() && policy == jdwp.SuspendPolicyNone {
		// The VM suspended nothing for these events (a class an invoked
		// toString loads, a thread it starts): the threads that run under
		// the unanswered command ran, as known, and are where that
		// command leaves them once it is answered.
		return false
	}
	if s.pending() {
		switch {
		case found && s.afterTheResume(t):
			// The VM has processed the resume: its reply changes nothing.
			clear(s.unsettled)
		case found && s.othersResumed(t, policy):
			// What the VM has not processed cannot change this stop.
			s.markElsewhere(true)
		default:
			// The VM may have sent the event before it processed a command
			// that lets threads run (race 1 of the package documentation).
			s.markElsewhere(false)
			s.kind = running
			return false
		}
	}
	switch {
	case policy == jdwp.SuspendPolicyAll:
		s.kind = allSuspended
	case policy == jdwp.SuspendPolicyEventThread && found:
		s.kind, s.thread = threadSuspended, t
		s.park(t)
	default:
		s.kind = running
		return false
	}
	if found {
		s.stopped = t
	}
	return found
}

// markElsewhere marks every unsettled command elsewhere or not.
func (s *suspension) markElsewhere(elsewhere bool) {
	for id, u := range s.unsettled {
		u.elsewhere = elsewhere
		s.unsettled[id] = u
	}
}

// afterTheResume reports whether an event of thread t that arrives now was
// certainly generated after the VM processed the unanswered commands: the
// one unanswered command is a resume, and t was known suspended when it was
// sent, so t could not run, and stop, before the VM processed it. (HotSpot
// often sends the stop that ends a step or a resume before the resume's
// reply: the thread runs as soon as the resume is processed.)
func (s *suspension) afterTheResume(t jdwp.ObjectID) bool {
	if len(s.unsettled) != 1 {
		return false
	}
	for _, u := range s.unsettled {
		return u.resume && (u.kind == allSuspended || u.kind == threadSuspended && u.thread == t ||
			u.resumed == t && u.resumedParked)
	}
	return false
}

// othersResumed reports whether a stop of thread t that suspends only t
// (policy) holds whenever the VM processes the unanswered commands: each
// is a ThreadReference.Resume of another thread. Before or after the
// event, resuming another thread leaves t where its event suspended it.
// (Under SUSPEND_ALL the event suspends the resumed thread too, which a
// resume processed after it lets run again: not so.) A debugger that lets
// each worker go at its breakpoint while another stops sends exactly that.
func (s *suspension) othersResumed(t jdwp.ObjectID, policy jdwp.SuspendPolicy) bool {
	if policy != jdwp.SuspendPolicyEventThread {
		return false
	}
	for _, u := range s.unsettled {
		if u.resumed == 0 || u.resumed == t {
			return false
		}
	}
	return true
}

// resumesAnother reports whether a ThreadReference.Resume of thread
// resumed leaves the stop that goes on as it is: the stopped thread is
// parked (parked.go), another one is resumed, and nothing is unsettled.
// A debugger that lets each worker go at its breakpoint sends it while it
// reads the next stop, whose event came before it resumed the last.
func (s *suspension) resumesAnother(resumed jdwp.ObjectID) bool {
	return resumed != 0 && s.settled() && s.kind == threadSuspended && s.thread != resumed && s.isParked(s.thread)
}

// newEpoch ends the epoch: what was true of the suspension may not be.
func (s *suspension) newEpoch() { s.epoch++ }

// reset forgets what is known suspended, in a new epoch. Unanswered
// commands that let threads run stay unsettled: their replies are still
// to come.
func (s *suspension) reset() {
	*s = suspension{epoch: s.epoch + 1, unsettled: s.unsettled}
}
