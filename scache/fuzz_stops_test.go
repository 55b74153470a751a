package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
)

// stopsThreads is how many threads FuzzSpeculatorStops names (ids 1 to
// stopsThreads).
const stopsThreads = 4

// stopsEventKinds are the events FuzzSpeculatorStops sends: the ones that
// begin, end or leave alone a stop.
var stopsEventKinds = []jdwp.EventKind{
	jdwp.EventBreakpoint, jdwp.EventSingleStep, jdwp.EventThreadStart, jdwp.EventThreadDeath,
	jdwp.EventClassPrepare, jdwp.EventMethodEntry, jdwp.EventVMDeath, jdwp.EventException,
}

// stopsPolicies are the suspend policies of its events.
var stopsPolicies = []jdwp.SuspendPolicy{jdwp.SuspendPolicyEventThread, jdwp.SuspendPolicyAll, jdwp.SuspendPolicyNone}

// stopsEvent returns an Event.Composite of one event of a kind and a
// policy that pick chooses, about thread t, at a location in class c.
func stopsEvent(pick byte, t jdwp.ThreadID, c uint64) []byte {
	kind := stopsEventKinds[int(pick)%len(stopsEventKinds)]
	loc := jdwp.Location{TypeTag: jdwp.TypeTagClass, Class: jdwp.ClassID(c), Method: jdwp.MethodID(c), Index: uint64(pick >> 4)}
	var ev jdwp.Event
	switch kind {
	case jdwp.EventBreakpoint, jdwp.EventSingleStep, jdwp.EventMethodEntry:
		ev = &jdwp.LocationEvent{EventKind: kind, RequestID: int32(pick&3) + 1, Thread: t, Location: loc}
	case jdwp.EventThreadStart, jdwp.EventThreadDeath:
		ev = &jdwp.ThreadEvent{EventKind: kind, RequestID: 0, Thread: t}
	case jdwp.EventClassPrepare:
		ev = &jdwp.ClassPrepareEvent{RequestID: 5, Thread: t, TypeTag: jdwp.TypeTagClass, TypeID: jdwp.ReferenceTypeID(c), Signature: "LMain;", Status: 7}
	case jdwp.EventException:
		ev = &jdwp.ExceptionEvent{RequestID: 6, Thread: t, Location: loc,
			Exception: jdwp.TaggedObjectID{Tag: jdwp.TagObject, ID: jdwp.ObjectID(c + 100)}, CatchLocation: loc}
	default:
		ev = &jdwp.VMDeathEvent{}
	}
	policy := stopsPolicies[int(pick>>3)%len(stopsPolicies)]
	return jdwp.Marshal(&jdwp.Composite{SuspendPolicy: policy, Events: []jdwp.Event{ev}}, sizes8)
}

// stopsCommand returns a debugger's command about thread t that pick
// chooses: a stop's reads, a threads view's, and the commands that let
// threads run or stop them.
func stopsCommand(pick byte, t jdwp.ThreadID, frame uint64) jdwp.CommandMessage {
	f := jdwp.FrameID(frame)
	switch pick % 16 {
	case 0:
		return &jdwp.ThreadFramesCommand{Thread: t, StartFrame: 0, Length: -1}
	case 1:
		return &jdwp.ThreadFramesCommand{Thread: t, StartFrame: 0, Length: 1}
	case 2:
		return &jdwp.ThreadStatusCommand{Thread: t}
	case 3:
		return &jdwp.ThreadNameCommand{Thread: t}
	case 4:
		return &jdwp.ThreadFrameCountCommand{Thread: t}
	case 5:
		return &jdwp.VMAllThreadsCommand{}
	case 6:
		return &jdwp.FrameThisObjectCommand{Thread: t, Frame: f}
	case 7:
		return &jdwp.FrameGetValuesCommand{Thread: t, Frame: f, Slots: []jdwp.SlotRequest{{Slot: 1, Tag: jdwp.TagObject}}}
	case 8:
		return &jdwp.ThreadResumeCommand{Thread: t}
	case 9:
		return &jdwp.VMResumeCommand{}
	case 10:
		return &jdwp.ThreadSuspendCommand{Thread: t}
	case 11:
		return &jdwp.VMSuspendCommand{}
	case 12:
		return &jdwp.ClassTypeInvokeMethodCommand{StaticCall: jdwp.StaticCall{Class: 10,
			MethodCall: jdwp.MethodCall{Thread: t, Method: 10, Options: int32(pick>>4) & jdwp.InvokeSingleThreaded}}}
	case 13:
		return &jdwp.FramePopFramesCommand{Thread: t, Frame: f}
	case 14:
		return &jdwp.ObjectRefReferenceTypeCommand{Object: jdwp.ObjectID(frame + 100)}
	default:
		return &jdwp.VMTopLevelThreadGroupsCommand{}
	}
}

// FuzzSpeculatorStops drives the Speculator through stops as a debugger
// and a VM make them: well-formed events (breakpoints, steps, threads
// starting and dying, under each suspend policy) about a few threads, and
// the debugger's well-formed reads of a stop and a threads view, resumes,
// suspends and invocations, so that the fuzzer reaches the suspension,
// parked threads and the families behind them; the replies, to the
// debugger's commands and to speculation alike, carry the fuzzer's bytes.
// As FuzzSpeculator, it checks that the Speculator never panics and that
// every packet is forwarded, answered or held exactly once.
func FuzzSpeculatorStops(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		c := newConservation(t)
		c.up(jdwp.AppendCommandPacket(nil, 1, &jdwp.VMIDSizesCommand{}, sizes8))
		c.down(jdwp.AppendReply(nil, 1, jdwp.ErrNone, jdwp.Marshal(&jdwp.VMIDSizesReply{Sizes: sizes8}, sizes8)))
		nextID, nextEvent := uint32(2), uint32(0x10000000)
		take := func(n int) []byte { // the next n bytes of data, or what is left
			n = min(n, len(data))
			b := data[:n]
			data = data[n:]
			return b
		}
		for len(data) >= 2 {
			op, pick := data[0], data[1]
			data = data[2:]
			thread := jdwp.ThreadID(op>>3)%stopsThreads + 1
			switch op & 7 {
			case 0, 1:
				c.down(jdwp.AppendCommand(nil, nextEvent, jdwp.CmdEventComposite, stopsEvent(pick, thread, uint64(op>>5)+10)))
				nextEvent++
			case 2, 3, 4:
				c.organic = append(c.organic, nextID)
				c.up(jdwp.AppendCommandPacket(nil, nextID, stopsCommand(pick, thread, uint64(op>>5)), sizes8))
				nextID++
			case 5, 6:
				ids := c.answerable()
				if len(ids) == 0 {
					continue
				}
				reply := take(int(pick >> 2))
				code := jdwp.ErrNone
				if op&0x80 != 0 {
					code = jdwp.ErrThreadNotSuspended
				}
				c.down(jdwp.AppendReply(nil, ids[int(op>>3)%len(ids)], code, reply))
			case 7:
				c.up(append([]byte(nil), take(int(pick>>2))...))
			}
		}
		_ = c.s.Close()
	})
}
