package scache

import (
	"github.com/jdwpscache/scache/jdwp"
)

// Breakpoint and watchpoint requests answered ahead. An IDE sets a
// breakpoint by asking the line table of the method, then
// EventRequest.Set with the location it found there, and waits for the
// request's id: a round trip per breakpoint, 200 of them when it attaches
// to an app with breakpoints in 200 classes. OpenJDK's agent
// (eventFilter.c: setBreakpoint, setWatchpoint; HotSpot's and ART's JVMTI
// under them) refuses a breakpoint or a field watch request only
//   - for a class, method or field id that no longer names one (the class
//     was unloaded), or a field the class does not have,
//   - for a location outside the method's code (index below 0, or past
//     the end the line table gives),
//   - for a place where a request naming another class id set a
//     breakpoint or a watch already (the agent asks JVMTI again, which
//     says DUPLICATE),
//   - for a field watch, on a VM that cannot watch fields,
//   - or for a modifier it may refuse (a thread, an instance).
//
// So a Speculator answers ahead (request_ids.go) a breakpoint request with
// one location and only modifiers that cannot fail, at an index within the
// line table the VM gave this session for that class and method (cached:
// a hot swap or the class's unload dropped it), at a place no request of
// the session named with another class id; and likewise a watch of a field
// among those the VM listed for the class, on a VM whose capabilities
// (asked at the handshake) say it watches fields. Should the class unload
// in the round trip between its line table and the Set, the VM refuses the
// request and the debugger holds a breakpoint that cannot fire, in a class
// that is gone, as it would had the class gone a moment after the Set; the
// Speculator counts it (Stats.AheadContradicted), logs it and renames as
// for any refusal. A method's code changes under the debugger only by its
// own hot swap, which the Speculator sees: the assumption every cached
// reply about a class rests on (redefine.go). Another agent in the VM
// retransforming the class to shorter code would break it, here as there:
// the debugger, whose JDI caches line tables too, would send the same
// location, and would be told of the refusal only without the proxy.

// A requestPlace is where a breakpoint or a field watch is set, as the
// agent matches requests (the class aside): a breakpoint's method and
// index, a watch's field.
type requestPlace struct {
	kind  jdwp.EventKind // EventBreakpoint, EventFieldAccess or EventFieldModification
	id    uint64         // the method's or the field's
	index uint64         // a breakpoint's code index
}

// maxPlaces bounds the places remembered; past it, no more breakpoints or
// watches are answered ahead this session.
const maxPlaces = 1 << 14

// aheadableBreakpoint reports whether the breakpoint request m cannot be
// refused by the VM: see above. notePlaces saw it first.
func aheadableBreakpoint(s *Speculator, m *jdwp.EventRequestSetCommand) bool {
	var at *jdwp.Location
	for _, mod := range m.Modifiers {
		switch mod := mod.(type) {
		case *jdwp.LocationOnlyModifier:
			if at != nil {
				return false
			}
			at = &mod.Location
		case *jdwp.CountModifier:
			if mod.Count <= 0 {
				return false
			}
		case *jdwp.ClassMatchModifier, *jdwp.ClassExcludeModifier:
		default:
			return false
		}
	}
	if at == nil || at.Class == conflicted || s.requests.placesFull ||
		s.requests.places[requestPlace{kind: jdwp.EventBreakpoint, id: uint64(at.Method), index: at.Index}] != at.Class {
		return false
	}
	return withinLineTable(s, *at)
}

// conflicted stands, in requestIDs.places, for a place requests named
// with two class ids (0 names no class).
const conflicted jdwp.ClassID = 0

// notePlaces notes the places the debugger's Set command, with data, names
// for breakpoints and field watches, whether or not it is answered ahead.
func notePlaces(s *Speculator, data []byte) {
	if len(data) == 0 {
		return
	}
	switch kind := jdwp.EventKind(data[0]); kind {
	case jdwp.EventBreakpoint, jdwp.EventFieldAccess, jdwp.EventFieldModification:
	default:
		return
	}
	m, err := s.decodeParams(jdwp.CmdEventRequestSet, data)
	if err != nil {
		return
	}
	set := m.(*jdwp.EventRequestSetCommand)
	for _, mod := range set.Modifiers {
		switch mod := mod.(type) {
		case *jdwp.LocationOnlyModifier:
			notePlace(s, requestPlace{kind: set.EventKind, id: uint64(mod.Location.Method), index: mod.Location.Index}, mod.Location.Class)
		case *jdwp.FieldOnlyModifier:
			notePlace(s, requestPlace{kind: set.EventKind, id: uint64(mod.Field)}, jdwp.ClassID(mod.Class))
		}
	}
}

// notePlace notes that a request named place with class.
func notePlace(s *Speculator, place requestPlace, class jdwp.ClassID) {
	q := &s.requests
	seen, ok := q.places[place]
	switch {
	case ok && seen != class:
		q.places[place] = conflicted
	case ok:
	case len(q.places) >= maxPlaces:
		q.placesFull = true
	default:
		if q.places == nil {
			q.places = make(map[requestPlace]jdwp.ClassID)
		}
		q.places[place] = class
	}
}

// withinLineTable reports whether the VM's line table of the location's
// class and method, cached, covers its index.
func withinLineTable(s *Speculator, at jdwp.Location) bool {
	data, ok := cachedReply(s, &jdwp.MethodLineTableCommand{RefType: jdwp.ReferenceTypeID(at.Class), Method: at.Method})
	if !ok {
		return false
	}
	var table jdwp.MethodLineTableReply
	if jdwp.Unmarshal(data, s.sizes, &table) != nil {
		return false
	}
	index := int64(at.Index)
	return table.Start >= 0 && index >= table.Start && index <= table.End
}

// aheadableWatch reports whether the field watch request m cannot be
// refused by the VM: see above. notePlaces saw it first.
func aheadableWatch(s *Speculator, m *jdwp.EventRequestSetCommand) bool {
	var at *jdwp.FieldOnlyModifier
	for _, mod := range m.Modifiers {
		switch mod := mod.(type) {
		case *jdwp.FieldOnlyModifier:
			if at != nil {
				return false
			}
			at = mod
		case *jdwp.CountModifier:
			if mod.Count <= 0 {
				return false
			}
		case *jdwp.ClassMatchModifier, *jdwp.ClassExcludeModifier:
		default:
			return false
		}
	}
	if at == nil || jdwp.ClassID(at.Class) == conflicted || s.requests.placesFull ||
		s.requests.places[requestPlace{kind: m.EventKind, id: uint64(at.Field)}] != jdwp.ClassID(at.Class) {
		return false
	}
	return watchesFields(s, m.EventKind) && listedField(s, at.Class, at.Field)
}

// watchesFields reports whether the VM's capabilities, cached, say it
// watches fields for events of kind (VirtualMachine.CapabilitiesNew: its
// first two booleans, canWatchFieldModification and canWatchFieldAccess).
func watchesFields(s *Speculator, kind jdwp.EventKind) bool {
	data, ok := cachedReply(s, &jdwp.VMCapabilitiesNewCommand{})
	if !ok || len(data) != 32 {
		return false
	}
	if kind == jdwp.EventFieldModification {
		return data[0] == 1
	}
	return data[1] == 1
}

// listedField reports whether the VM's list of the fields of class, cached
// in either form, holds field.
func listedField(s *Speculator, class jdwp.ReferenceTypeID, field jdwp.FieldID) bool {
	for _, m := range []jdwp.CommandMessage{&jdwp.RefTypeFieldsWithGenericCommand{RefType: class}, &jdwp.RefTypeFieldsCommand{RefType: class}} {
		data, ok := cachedReply(s, m)
		if !ok {
			continue
		}
		fields := jdwp.RefTypeFieldsReply{Generic: m.Command() == jdwp.CmdReferenceTypeFieldsWithGeneric}
		if jdwp.Unmarshal(data, s.sizes, &fields) != nil {
			continue
		}
		for _, f := range fields.Fields {
			if f.Field == field {
				return true
			}
		}
	}
	return false
}

// cachedReply returns the data of the VM's successful reply to m, if cached.
func cachedReply(s *Speculator, m jdwp.CommandMessage) ([]byte, bool) {
	e, ok := s.cache.peek(NewKey(m, s.sizes))
	if !ok {
		return nil, false
	}
	var h jdwp.Header
	if h.Parse(e.reply) != nil || h.ErrorCode != jdwp.ErrNone {
		return nil, false
	}
	return jdwp.Data(e.reply), true
}
