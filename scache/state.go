package scache

import (
	"slices"

	"github.com/jdwpscache/scache/jdwp"
)

// The epoch's mechanics. Replies about threads, frames and objects are true
// only while the threads they depend on stay suspended. The Speculator counts
// suspension epochs: an epoch ends whenever a thread may run or state may
// change (a resume, an invoke, a SetValues, an event, a hot swap), and every
// entry of the ended epoch is dropped at once, frame ids with them. This
// file turns the debugger's commands and the VM's replies and events into
// the suspension's verbs (suspension.go) and ends epochs; the stop's owner
// (stop.go) and the families (the table's hooks) hear of it.

// An invocation is an invocation command as the Speculator keeps it until
// its reply: where its thread stood when it was sent (back.thread 0: not
// an invocation), the method, and whether the thread was the stopped thread.
type invocation struct {
	back    stopEvent
	method  jdwp.MethodID
	stopped bool
	parked  bool // the thread was parked (parked.go): it is again after the reply
}

// epochEnders are the debugger's commands, besides those that let threads
// run (letRun), that end a suspension epoch: what state replies say may
// change. Resume-like ones also end the suspension.
var epochEnders = map[jdwp.Command]bool{
	jdwp.CmdVirtualMachineSuspend:      true,
	jdwp.CmdThreadReferenceSuspend:     true,
	jdwp.CmdArrayTypeNewInstance:       true,
	jdwp.CmdVirtualMachineCreateString: true,
}

// valueChangers are the debugger's commands that change values: locals,
// fields, statics, array elements. They end the values' sub-epoch only:
// frames, this, threads and object types stay true.
var valueChangers = map[jdwp.Command]bool{
	jdwp.CmdStackFrameSetValues:      true,
	jdwp.CmdObjectReferenceSetValues: true,
	jdwp.CmdClassTypeSetValues:       true,
	jdwp.CmdArrayReferenceSetValues:  true,
}

// letRun are the debugger's commands that may let threads run before their
// reply is sent: resumes, invokes (threads run until the invoke returns),
// PopFrames and ForceEarlyReturn (the agent resumes the thread to pop
// frames), Stop and Interrupt (they act on a thread as it runs), and
// RedefineClasses (it replaces methods threads may be in).
var letRun = map[jdwp.Command]bool{
	jdwp.CmdVirtualMachineResume:            true,
	jdwp.CmdThreadReferenceResume:           true,
	jdwp.CmdClassTypeInvokeMethod:           true,
	jdwp.CmdClassTypeNewInstance:            true,
	jdwp.CmdObjectReferenceInvokeMethod:     true,
	jdwp.CmdInterfaceTypeInvokeMethod:       true,
	jdwp.CmdStackFramePopFrames:             true,
	jdwp.CmdThreadReferenceForceEarlyReturn: true,
	jdwp.CmdThreadReferenceStop:             true,
	jdwp.CmdThreadReferenceInterrupt:        true,
	jdwp.CmdVirtualMachineRedefineClasses:   true,
}

// onStateCommand updates the suspension for a debugger command sent
// upstream with id, and reports whether its reply must be tracked (Suspend).
// It fails when a debugger has more unsettled commands than any would.
func (s *Speculator) onStateCommand(cmd jdwp.Command, tr traits, id uint32, data []byte) (track bool, err error) {
	if tr.changesValues {
		s.endValues()
		if cmd == jdwp.CmdObjectReferenceSetValues {
			s.onThreadFieldsSet(jdwp.NewReader(data, s.sizes).ObjectID())
		}
		return false, nil
	}
	if !tr.endsEpoch {
		return false, nil
	}
	giveUpBehind(s) // what it lets run or changes is read after it
	known := s.susp.kind
	settled := s.susp.settled()
	if !settled {
		known = running
	}
	u := unsettled{kind: known, thread: s.susp.thread,
		resume: cmd == jdwp.CmdVirtualMachineResume || cmd == jdwp.CmdThreadReferenceResume}
	if cmd == jdwp.CmdThreadReferenceResume {
		if m, err := s.decodeParams(cmd, data); err == nil {
			u.resumed = m.(*jdwp.ThreadResumeCommand).Thread
		}
	}
	m, invoked := s.invocation(cmd, data)
	if cmd == jdwp.CmdStackFramePopFrames {
		// The agent resumes the thread alone and suspends it again at
		// the caller before it replies (family_popframes.go).
		if t, loc, ok := popped(s, data); ok {
			u.call = invocation{back: stopEvent{thread: t, loc: loc}, stopped: t == s.susp.stopped, parked: s.susp.isParked(t)}
			s.table.invoking(s, id)
			s.learn.invoked()
			s.table.ranUncounted(s, t)
		}
	}
	if invoked {
		t, options := m.Invoking()
		u.call = invocation{back: stopEvent{thread: t}, method: m.Invoked(),
			stopped: t != 0 && t == s.susp.stopped, parked: t != 0 && s.susp.isParked(t)}
		if top := s.stop.top; top.set && top.thread == t {
			u.call.back.loc = top.loc
		}
		s.table.invoking(s, id)
		s.learn.invoked()
		// The agent resumes the thread (with the others unless
		// single-threaded) and suspends it (or every thread) again before
		// it replies.
		s.resumed(t, options&jdwp.InvokeSingleThreaded == 0)
		s.table.suspended(s, t, options&jdwp.InvokeSingleThreaded == 0)
	}
	carry := cmd == jdwp.CmdThreadReferenceResume && s.susp.resumesAnother(u.resumed)
	stoppedResumed := cmd == jdwp.CmdThreadReferenceResume && settled && s.susp.kind == threadSuspended &&
		u.resumed != 0 && u.resumed == s.susp.thread && s.susp.isParked(u.resumed)
	// A resume of a thread whose stop a pause closed (VirtualMachine.Suspend
	// ends the epoch), parked: no stop goes on.
	pausedResumed := cmd == jdwp.CmdThreadReferenceResume && settled && !s.stop.on &&
		u.resumed != 0 && s.stop.hasParkedStop(u.resumed)
	// A resume of another thread's stop event (not of one the debugger
	// suspended itself), or of the stopped thread's.
	stopResumed := carry && s.stop.hasParkedStop(u.resumed) || stoppedResumed || pausedResumed
	var next jdwp.ObjectID
	if tr.letRun {
		u.resumedParked = u.resumed != 0 && s.susp.isParked(u.resumed)
		s.unparkFor(cmd, u, m)
		if stopResumed {
			next = nextStop(s, u.resumed) // the stop the debugger reads next (takeup.go)
		}
		u.elsewhere = carry || next != 0
	}
	stopped := s.susp.stopped
	if carry {
		s.dropEpochState()
	} else {
		s.endEpoch()
	}
	if tr.letRun {
		if err := s.susp.unsettle(id, u, s.cfg.maxOrganicIDs); err != nil {
			return false, err
		}
	}
	switch cmd {
	case jdwp.CmdVirtualMachineResume:
		s.susp.kind = running
		s.resumed(0, true)
	case jdwp.CmdThreadReferenceResume:
		if carry {
			s.susp.stopped = stopped
		} else {
			s.susp.kind = running
		}
		if u.resumed != 0 {
			s.resumed(u.resumed, false)
		}
		switch {
		case next != 0:
			takeUp(s, next, u.resumed) // the oldest parked stop, read next (takeup.go)
		case carry:
			s.table.stop(s, s.stop.event) // what it changed, asked again
		}
	case jdwp.CmdThreadReferenceSuspend:
		if m, err := s.decodeParams(cmd, data); err == nil {
			t := m.(*jdwp.ThreadSuspendCommand).Thread
			s.table.suspended(s, t, false)
			if settled && t != 0 {
				readBehind(s, id, cmd, stopEvent{thread: t}) // the thread's view once it is suspended (behind.go)
				return true, nil                             // its reply parks the thread
			}
		}
	case jdwp.CmdStackFramePopFrames:
		// Only where a frame is known below the popped one: the agent
		// refuses to pop a thread's last frame.
		if settled && u.call.back.thread != 0 && u.call.back.loc.Class != 0 {
			readBehind(s, id, cmd, u.call.back) // the thread's frames after the pop (behind.go)
		}
	case jdwp.CmdVirtualMachineSuspend:
		s.susp.paused(true)
		s.table.suspended(s, 0, true)
		if settled {
			readBehind(s, id, cmd, stopEvent{}) // the threads view after the pause (behind.go)
		}
		return true, nil // all threads are suspended once it is answered
	}
	return false, nil
}

// onSettle takes note of the reply to an unsettled command, if reply is one.
// What was read before it may have changed (an invoke ran code), so the
// epoch ends.
//
// An invocation ends in a known state: the VM suspends the threads it
// resumed for the call again before it replies, the invoking thread where
// it stood. So, at the reply to an invocation sent in a trusted suspension,
// with nothing else unsettled and no event since that suspended a thread
// (events of suspend policy NONE, such as the class preparations of the
// code it ran, change no suspension), the suspension goes on in
// the new epoch, and the invoking thread is the stopped thread again if it
// was (the families speculate on it: s.stop.invoked).
func (s *Speculator) onSettle(id uint32) {
	u, ok := s.susp.settle(id)
	if !ok {
		return
	}
	defer s.learn.settled() // after the epoch the reply ends
	if u.elsewhere {
		return
	}
	held := heldBehind(s, id)
	s.endEpoch()
	s.stop.invokedAt(invocation{})
	if s.susp.invoked(u) {
		s.stop.invokedAt(u.call)
		adoptBehind(s, held) // read behind a PopFrames (behind.go)
	}
}

// invocation returns the debugger's command cmd, with data, as an
// invocation, if it is one.
func (s *Speculator) invocation(cmd jdwp.Command, data []byte) (jdwp.Invocation, bool) {
	if !invokes[cmd] {
		return nil, false
	}
	m, err := s.decodeParams(cmd, data)
	if err != nil {
		return nil, false
	}
	inv, ok := m.(jdwp.Invocation)
	return inv, ok
}

// popped returns, for the debugger's StackFrame.PopFrames with data, the
// thread whose frames it pops and where that thread will stand once they
// are: the location of the frame below the one popped, from the thread's
// frames cached in the epoch that the pop ends (0: unknown).
func popped(s *Speculator, data []byte) (jdwp.ThreadID, jdwp.Location, bool) {
	m, err := s.decodeParams(jdwp.CmdStackFramePopFrames, data)
	if err != nil {
		return 0, jdwp.Location{}, false
	}
	pop := *m.(*jdwp.FramePopFramesCommand)
	if pop.Thread == 0 {
		return 0, jdwp.Location{}, false
	}
	var frames jdwp.ThreadFramesReply
	if s.lookup.reply(&jdwp.ThreadFramesCommand{Thread: pop.Thread, StartFrame: 0, Length: -1}, &frames) {
		for i, f := range frames.Frames {
			if f.Frame == pop.Frame && i+1 < len(frames.Frames) {
				return pop.Thread, frames.Frames[i+1].Location, true
			}
		}
	}
	return pop.Thread, jdwp.Location{}, true
}

// invokes are the invocation commands: they run a method in a suspended
// thread and suspend it again before they reply.
var invokes = map[jdwp.Command]bool{
	jdwp.CmdObjectReferenceInvokeMethod: true,
	jdwp.CmdClassTypeInvokeMethod:       true,
	jdwp.CmdInterfaceTypeInvokeMethod:   true,
	jdwp.CmdClassTypeNewInstance:        true,
}

// suspendsAgain reports whether cmd lets a suspended thread run and
// suspends it again before it replies: an invocation, or PopFrames
// (family_popframes.go). At its reply the families' onInvoked run.
func suspendsAgain(cmd jdwp.Command) bool {
	return invokes[cmd] || cmd == jdwp.CmdStackFramePopFrames
}

// onStateReply updates the suspension for the reply to a tracked command.
// A Suspend reply proves every thread suspended only if no command that may
// let threads run is unanswered: one sent after it may already have been
// processed (race 2 of the package documentation). That holds for the
// resumes of other threads than a stop's (elsewhere) too: they leave the
// stopped thread suspended, but the thread each resumes runs once the VM
// processes it, Suspend or not. A ThreadReference.Suspend's reply parks
// its thread (behind.go: parkBehind).
func (s *Speculator) onStateReply(p *inFlight, code jdwp.ErrorCode) {
	switch {
	case p.cmd == jdwp.CmdThreadReferenceSuspend:
		parkBehind(s, p.id, code) // read behind the Suspend, its thread parked (behind.go)
	case p.cmd != jdwp.CmdVirtualMachineSuspend:
	case code != jdwp.ErrNone:
		giveUpBehind(s)
		s.susp.paused(false)
	default:
		held := heldBehind(s, p.id)
		s.endEpoch()
		s.susp.suspendAnswered()
		if s.susp.kind == allSuspended {
			adoptBehind(s, held) // read behind the Suspend (behind.go)
			s.table.paused(s)
		}
	}
}

// onThreadNotSuspended takes note of a THREAD_NOT_SUSPENDED reply to a
// command of the current epoch about a thread the Speculator took for
// suspended. The agent suspends threads for an event before it writes the
// event, so a resume processed in between makes the event arrive after the
// resume's reply, proving nothing: the epoch ends and nothing is trusted
// until the next stop. It reports whether it did so.
func (s *Speculator) onThreadNotSuspended(p *inFlight, code jdwp.ErrorCode) bool {
	if code == jdwp.ErrThreadNotSuspended && p.thread != 0 && !p.poisoned {
		s.unpark(p.thread) // it was not where its event left it
		return true
	}
	if code != jdwp.ErrThreadNotSuspended || p.life != lifetimeSuspension || p.epoch != s.susp.epoch ||
		p.poisoned || s.susp.kind == running || p.key == "" {
		return false
	}
	if s.susp.kind == threadSuspended {
		m, err := p.key.Message(s.sizes)
		if t, ok := threadOf(m); err != nil || !ok || t != s.susp.thread {
			return false // another thread: it may run
		}
	}
	s.endEpoch()
	s.susp.run()
	return true
}

// onThreadFieldsSet drops what the Speculator holds of the name and group
// of thread object, whose fields an ObjectReference.SetValues may have
// changed (java.lang.Thread's name and group, which ThreadReference.Name
// and ThreadGroup read). Replies in flight were answered before the change:
// they still answer their held commands, but are not cached. A moving
// entry stays: rule (b) keeps every reply from before a debugger's write
// out (sequential.go).
func (s *Speculator) onThreadFieldsSet(object jdwp.ObjectID) {
	for _, m := range []jdwp.CommandMessage{&jdwp.ThreadNameCommand{Thread: object}, &jdwp.ThreadGroupOfCommand{Thread: object}} {
		key := NewKey(m, s.sizes)
		if e, ok := s.cache.peek(key); ok && !e.moving {
			s.cache.remove(key)
		}
		// Every command in flight of the key, not only the one belay
		// indexes: with belay off, or behind a repeat, the others are
		// cached too when their reply comes.
		s.inflight.poisonWhere(func(p *inFlight) bool { return p.key == key && !p.moving })
	}
}

// onStopEvents updates the suspension for an event composite: events mean
// the VM ran. It returns the thread to speculate about, if the composite
// stopped one at a location, and whether that was a step.
func (s *Speculator) onStopEvents(c *jdwp.Composite) (stop stopEvent, found bool) {
	closeStop(s)
	dropEpochStateAt(s, true)
	defer dropStaleMovingInFlight(s)
	suspendedBy(s, c)
	for _, e := range c.Events {
		if loc, ok := jdwp.EventLocation(e); ok {
			if t, ok := jdwp.EventThread(e); ok {
				stop, found = stopEvent{thread: t, loc: loc, kind: kindOf(e.Kind()), shown: shownBy(e)}, true
				if x, ok := e.(*jdwp.ExceptionEvent); ok {
					stop.caught = x.CatchLocation
				}
				break
			}
		}
	}
	if !s.susp.stops(c.SuspendPolicy, stop.thread, found) {
		return stopEvent{}, false
	}
	s.stop.begin(stop)
	return stop, true
}

// suspendedBy tells the families which threads the VM suspended for the
// events of c: every thread (SuspendPolicyAll), or their thread
// (SuspendPolicyEventThread; the agent sends a thread's events together).
func suspendedBy(s *Speculator, c *jdwp.Composite) {
	switch c.SuspendPolicy {
	case jdwp.SuspendPolicyAll:
		s.table.suspended(s, 0, true)
	case jdwp.SuspendPolicyEventThread:
		for _, e := range c.Events {
			if t, ok := jdwp.EventThread(e); ok {
				s.table.suspended(s, t, false)
				return
			}
		}
	}
}

// resumed tells the families that the debugger let thread run (0: every
// thread), and with others the other threads too.
func (s *Speculator) resumed(thread jdwp.ThreadID, others bool) {
	s.table.resumed(s, thread, others)
}

// endEpoch closes the stop (the learner and the families before its
// owner) and drops the epoch's state (dropEpochState).
func (s *Speculator) endEpoch() {
	closeStop(s)
	s.dropEpochState()
}

// closeStop closes the stop (the learner and the families before its
// owner), parked if its thread is.
func closeStop(s *Speculator) {
	unseen := s.stopUnseen()
	s.learn.endStop(unseen)
	s.table.endStop(s, unseen)
	s.stop.park(s.susp.isParked)
	s.stop.end()
}

// dropEpochState ends the epoch: it drops every suspension entry but the
// parked threads' (parked.go), what Frames replies showed of other
// threads, and queued speculation about them, and keeps replies in flight
// about them out of the cache (they still answer held commands). Alone
// (not from endEpoch) it ends the epoch as the debugger resumes another
// thread than the one whose stop goes on, parked
// (suspension.resumesAnother): what the resumed thread may change is
// dropped, but the stop, its top frame, its learner and families go on.
func (s *Speculator) dropEpochState() { dropEpochStateAt(s, false) }

// dropEpochStateAt is dropEpochState; at an event, the moving reads in
// flight are not kept out of the cache: each reply still to come arrives
// after the event, as the VM's own reply to a command it read before
// the event would (rule a, sequential.go), and after the last write's
// reply (rule b), and answers the debugger where the new epoch moves as
// the old one did. A resumed worker that hits its breakpoint again at once
// sends its event before the replies to the reads asked behind its resume.
// What the new stop asks goes out anew all the same, in its own order
// (inflightState.hasKeyIn): a kept reply answers only where it comes in
// time and in order.
func dropEpochStateAt(s *Speculator, event bool) {
	s.stop.keepFramesOf(s.susp.isParked)
	s.cache.purgeState()
	epochs := func(p subject) bool { return p.life == lifetimeSuspension && p.thread == 0 }
	kept := func(p *inFlight) bool { return event && p.moving && p.synthetic }
	s.inflight.poisonWhere(func(p *inFlight) bool { return p.key != "" && epochs(p.subject) && !kept(p) })
	s.queue.dropWhere(func(q queued) bool { return epochs(q.subject) })
	s.susp.newEpoch()
}

// dropStaleMovingInFlight keeps out of the cache, once an event set the new
// epoch's suspension, the moving reads in flight from the epoch before
// (dropEpochStateAt) that do not move as they did: where every thread is
// suspended now, or of the thread the event stopped, whose reads are the
// epoch's own facts.
func dropStaleMovingInFlight(s *Speculator) {
	s.inflight.poisonWhere(func(p *inFlight) bool {
		if p.key == "" || !p.moving || p.epoch == s.susp.epoch || p.life != lifetimeSuspension {
			return false
		}
		m, err := p.key.Message(s.sizes)
		if err != nil {
			return true
		}
		spec, ok := s.keySpecOf(p.cmd)
		if !ok {
			return true
		}
		cacheable, moving, _ := s.susp.cacheable(spec, m, s.cfg.consistency)
		return !cacheable || !moving
	})
}

// endValues drops every values entry and keeps values in flight out of
// the cache; the families ask again what they need, told the keys of the
// values dropped (cached, in flight or queued; sorted): the command that
// changes them reaches the VM first, so the new values come back, and a
// debugger reads them back after a change.
func (s *Speculator) endValues() {
	dropped := s.cache.purgeValues(nil)
	forgetNoting(s, func(p subject) bool { return p.life == lifetimeSuspension && p.values },
		func(key Key) { dropped = append(dropped, key) })
	slices.Sort(dropped)
	s.table.valuesChanged(s, slices.Compact(dropped))
}
