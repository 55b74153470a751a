package scachetest

import (
	"sort"

	"github.com/jdwpscache/scache/jdwp"
)

// Event requests of the model: EventRequest.Set gives ids in order (as
// OpenJDK's agent does: one counter; a step request of a thread that does
// not exist, or a count below 1, is refused before it takes an id), Clear removes them, and
// Fire reports events for some of them. SkipRequestIDs breaks the order.

// SkipRequestIDs makes the VM skip n request ids, as if requests the
// debugger did not make had taken them.
func (vm *ModelVM) SkipRequestIDs(n int32) { vm.nextRequest += n }

func (vm *ModelVM) requestAnswer(cmd jdwp.Command, r *jdwp.Reader, w *jdwp.Writer) (jdwp.ErrorCode, bool) {
	switch cmd {
	case jdwp.CmdEventRequestSet:
		var m jdwp.EventRequestSetCommand
		if m.Decode(r) != nil {
			return jdwp.ErrIllegalArgument, true
		}
		if vm.RefuseRequests > 0 {
			vm.RefuseRequests--
			return jdwp.ErrVMDead, true
		}
		for _, mod := range m.Modifiers {
			if step, ok := mod.(*jdwp.StepModifier); ok && vm.threads[step.Thread] == nil {
				return jdwp.ErrInvalidThread, true
			}
			if c, ok := mod.(*jdwp.CountModifier); ok && c.Count <= 0 {
				return jdwp.ErrInvalidCount, true
			}
		}
		if vm.requests == nil {
			vm.requests = map[int32]jdwp.EventKind{}
		}
		if vm.ReferenceAgent && vm.nextRequest == 0 {
			vm.nextRequest = 1 // OpenJDK's agent's first request of a session is 2
		}
		vm.nextRequest++
		if code := vm.refusesPlace(&m); code != jdwp.ErrNone {
			return code, true // as the agent: the refused request took its id
		}
		vm.requests[vm.nextRequest] = m.EventKind
		w.Int32(vm.nextRequest)
	case jdwp.CmdEventRequestClear:
		var m jdwp.EventRequestClearCommand
		if m.Decode(r) != nil {
			return jdwp.ErrIllegalArgument, true
		}
		delete(vm.requests, m.RequestID)
	case jdwp.CmdEventRequestClearAllBreakpoints:
		for id, k := range vm.requests {
			if k == jdwp.EventBreakpoint {
				delete(vm.requests, id)
			}
		}
	default:
		return 0, false
	}
	return jdwp.ErrNone, true
}

// refusesPlace returns the error the agent answers a breakpoint or field
// watch request m with: a class the model does not have, a method or field
// it does not declare, an index outside the method's line table
// (ModelLineTable), a watch on a VM that cannot watch fields.
func (vm *ModelVM) refusesPlace(m *jdwp.EventRequestSetCommand) jdwp.ErrorCode {
	for _, mod := range m.Modifiers {
		switch mod := mod.(type) {
		case *jdwp.LocationOnlyModifier:
			if m.EventKind == jdwp.EventBreakpoint && mod.Location.Class != 0 {
				if code := vm.refusesLocation(mod.Location); code != jdwp.ErrNone {
					return code
				}
			}
		case *jdwp.FieldOnlyModifier:
			if vm.NoFieldWatches {
				return jdwp.ErrNotImplemented
			}
			if _, ok := vm.classes[mod.Class]; !ok {
				return jdwp.ErrInvalidClass
			}
			if mod.Field < 1 || int(mod.Field) > len(modelFieldSignatures) {
				return jdwp.ErrInvalidFieldID
			}
		}
	}
	return jdwp.ErrNone
}

// refusesLocation returns the error the agent answers a breakpoint at l with.
func (vm *ModelVM) refusesLocation(l jdwp.Location) jdwp.ErrorCode {
	c, ok := vm.classes[jdwp.ReferenceTypeID(l.Class)]
	if !ok {
		return jdwp.ErrInvalidClass
	}
	declared := false
	for _, x := range c.Methods {
		declared = declared || x == l.Method
	}
	if !declared {
		return jdwp.ErrInvalidMethodID
	}
	if t := ModelLineTable(l.Method, c.Version); int64(l.Index) < t.Start || int64(l.Index) > t.End {
		return jdwp.ErrInvalidLocation
	}
	return jdwp.ErrNone
}

// Requests returns the ids of the event requests in force, in order.
func (vm *ModelVM) Requests() []int32 {
	ids := make([]int32, 0, len(vm.requests))
	for id := range vm.requests {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// Fire returns a composite with an event for each request id (0 for an
// automatic VMStart), of the requests' kinds, with no suspension.
func (vm *ModelVM) Fire(ids []int32) []byte {
	var events []jdwp.Event
	for _, id := range ids {
		if id == 0 {
			events = append(events, &jdwp.ThreadEvent{EventKind: jdwp.EventVMStart, Thread: 1})
			continue
		}
		switch vm.requests[id] {
		case jdwp.EventThreadStart, jdwp.EventThreadDeath:
			events = append(events, &jdwp.ThreadEvent{EventKind: vm.requests[id], RequestID: id, Thread: 1})
		case jdwp.EventClassUnload:
			events = append(events, &jdwp.ClassUnloadEvent{RequestID: id, Signature: "LGone;"})
		default:
			events = append(events, &jdwp.LocationEvent{EventKind: jdwp.EventBreakpoint, RequestID: id, Thread: 1,
				Location: jdwp.Location{TypeTag: jdwp.TypeTagClass, Class: 0x100, Method: 0x10001, Index: uint64(id)}})
		}
	}
	return vm.event(&jdwp.Composite{SuspendPolicy: jdwp.SuspendPolicyNone, Events: events})
}
