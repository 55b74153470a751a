package scache

import "github.com/jdwpscache/scache/jdwp"

// Suspension tracking. Replies about threads, frames and objects are true
// only while the threads they depend on stay suspended. The Speculator counts
// suspension epochs: an epoch ends whenever a thread may run or state may
// change (a resume, an invoke, a SetValues, an event, a hot swap), and every
// entry of the ended epoch is dropped at once, frame ids with them.

// suspendKind says which threads are known to be suspended.
type suspendKind uint8

const (
	running         suspendKind = iota // nothing is known to be suspended: no state is cached
	allSuspended                       // every thread (suspend policy ALL, VirtualMachine.Suspend)
	threadSuspended                    // one thread (suspend policy EVENT_THREAD); the others run
)

type suspension struct {
	epoch    uint64
	kind     suspendKind
	thread   jdwp.ObjectID // with threadSuspended
	invoking int           // invokes in flight: threads run meanwhile
}

// epochEnders are the debugger's commands that let threads run or change
// what state replies say. Resume-like ones also end the suspension.
var epochEnders = map[jdwp.Command]bool{
	jdwp.CmdVirtualMachineResume:            true,
	jdwp.CmdThreadReferenceResume:           true,
	jdwp.CmdVirtualMachineSuspend:           true,
	jdwp.CmdThreadReferenceSuspend:          true,
	jdwp.CmdClassTypeInvokeMethod:           true,
	jdwp.CmdClassTypeNewInstance:            true,
	jdwp.CmdObjectReferenceInvokeMethod:     true,
	jdwp.CmdInterfaceTypeInvokeMethod:       true,
	jdwp.CmdStackFrameSetValues:             true,
	jdwp.CmdStackFramePopFrames:             true,
	jdwp.CmdThreadReferenceForceEarlyReturn: true,
	jdwp.CmdThreadReferenceStop:             true,
	jdwp.CmdThreadReferenceInterrupt:        true,
	jdwp.CmdObjectReferenceSetValues:        true,
	jdwp.CmdClassTypeSetValues:              true,
	jdwp.CmdArrayReferenceSetValues:         true,
	jdwp.CmdVirtualMachineRedefineClasses:   true,
	jdwp.CmdArrayTypeNewInstance:            true,
	jdwp.CmdVirtualMachineCreateString:      true,
}

// invokes are the commands during which threads run until their reply.
var invokes = map[jdwp.Command]bool{
	jdwp.CmdClassTypeInvokeMethod:       true,
	jdwp.CmdClassTypeNewInstance:        true,
	jdwp.CmdObjectReferenceInvokeMethod: true,
	jdwp.CmdInterfaceTypeInvokeMethod:   true,
}

// onStateCommand updates the suspension for a debugger command sent upstream,
// and reports whether its reply must be tracked (invokes, Suspend).
func (s *Speculator) onStateCommand(cmd jdwp.Command) (track bool) {
	if !epochEnders[cmd] {
		return false
	}
	s.endEpoch()
	switch {
	case cmd == jdwp.CmdVirtualMachineResume, cmd == jdwp.CmdThreadReferenceResume:
		s.susp.kind = running
	case cmd == jdwp.CmdVirtualMachineSuspend:
		return true // all threads are suspended once it is answered
	case invokes[cmd]:
		s.susp.invoking++
		return true
	}
	return false
}

// onStateReply updates the suspension for the reply to a tracked command.
func (s *Speculator) onStateReply(cmd jdwp.Command, code jdwp.ErrorCode) {
	switch {
	case cmd == jdwp.CmdVirtualMachineSuspend:
		if code == jdwp.ErrNone {
			s.endEpoch()
			s.susp.kind = allSuspended
		}
	case invokes[cmd]:
		// The invoke ran code: what was read before it may have changed.
		s.endEpoch()
		if s.susp.invoking > 0 {
			s.susp.invoking--
		}
	}
}

// onStopEvents updates the suspension for an event composite: events mean
// the VM ran. It returns the thread to speculate about, if the composite
// stopped one at a location, and whether that was a step.
func (s *Speculator) onStopEvents(c *jdwp.Composite) (thread jdwp.ObjectID, found, step bool) {
	s.endEpoch()
	var stopped jdwp.ObjectID
	for _, e := range c.Events {
		if t, ok := locatableThread(e); ok {
			stopped, found = t, true
			step = e.Kind() == jdwp.EventSingleStep
			break
		}
	}
	switch c.SuspendPolicy {
	case jdwp.SuspendPolicyAll:
		s.susp.kind = allSuspended
	case jdwp.SuspendPolicyEventThread:
		if !found {
			s.susp.kind = running
			return 0, false, false
		}
		s.susp.kind, s.susp.thread = threadSuspended, stopped
	default:
		s.susp.kind = running
		return 0, false, false
	}
	return stopped, found, step
}

// locatableThread returns the thread of an event that stops a thread at a
// location, where a debugger inspects frames.
func locatableThread(e jdwp.Event) (jdwp.ObjectID, bool) {
	if _, ok := jdwp.EventLocation(e); !ok {
		return 0, false
	}
	return jdwp.EventThread(e)
}

// endEpoch drops every suspension entry, keeps replies in flight about the
// old state out of the cache (they still answer held commands), and drops
// queued speculation about it.
func (s *Speculator) endEpoch() {
	s.susp.epoch++
	s.top = topFrame{}
	s.cache.purgeState()
	s.forget(func(life lifetime, _ jdwp.ReferenceTypeID) bool { return life == lifetimeSuspension })
}

// stateCacheable reports whether a suspension entry with these parameters is
// true until the epoch ends.
func (s *Speculator) stateCacheable(spec keySpec, data []byte) bool {
	if s.susp.invoking > 0 {
		return false
	}
	switch s.susp.kind {
	case allSuspended:
		return true
	case threadSuspended:
		if spec.immutable {
			return true
		}
		if !spec.threadLocal {
			return false
		}
		s.reader.Reset(data, s.sizes)
		return s.reader.ObjectID() == s.susp.thread
	}
	return false
}
