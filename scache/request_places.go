package scache

import (
	"slices"

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
	mod, ok := placeModifier(m).(*jdwp.LocationOnlyModifier)
	if !ok {
		return false
	}
	at := mod.Location
	return placeNamedOnlyBy(s, requestPlace{kind: jdwp.EventBreakpoint, id: uint64(at.Method), index: at.Index}, at.Class) &&
		withinLineTable(s, at)
}

// aheadableWatch reports whether the field watch request m cannot be
// refused by the VM: see above. notePlaces saw it first.
func aheadableWatch(s *Speculator, m *jdwp.EventRequestSetCommand) bool {
	mod, ok := placeModifier(m).(*jdwp.FieldOnlyModifier)
	if !ok {
		return false
	}
	return placeNamedOnlyBy(s, requestPlace{kind: m.EventKind, id: uint64(mod.Field)}, jdwp.ClassID(mod.Class)) &&
		watchesFields(s, m.EventKind) && listedField(s, mod.Class, mod.Field)
}

// placeModifier returns the one modifier of m that names a place (a
// location or a field), if the others are all the agent accepts whatever
// their values (a count above 0, class patterns); else nil.
func placeModifier(m *jdwp.EventRequestSetCommand) jdwp.Modifier {
	var place jdwp.Modifier
	for _, mod := range m.Modifiers {
		switch mod := mod.(type) {
		case *jdwp.LocationOnlyModifier, *jdwp.FieldOnlyModifier:
			if place != nil {
				return nil
			}
			place = mod
		case *jdwp.CountModifier:
			if mod.Count <= 0 {
				return nil
			}
		case *jdwp.ClassMatchModifier, *jdwp.ClassExcludeModifier:
		default:
			return nil
		}
	}
	return place
}

// placeNamedOnlyBy reports whether the session's requests named place
// with class only (notePlaces), and the places were all kept.
func placeNamedOnlyBy(s *Speculator, place requestPlace, class jdwp.ClassID) bool {
	q := &s.requests
	return class != conflicted && !q.placesFull && q.places[place] == class
}

// conflicted stands, in requestIDs.places, for a place requests named
// with two class ids (0 names no class).
const conflicted jdwp.ClassID = 0

// notePlaces notes the places the debugger's Set command m names for
// breakpoints and field watches, whether or not it is answered ahead.
func notePlaces(s *Speculator, m *jdwp.EventRequestSetCommand) {
	switch m.EventKind {
	case jdwp.EventBreakpoint, jdwp.EventFieldAccess, jdwp.EventFieldModification:
	default:
		return
	}
	for _, mod := range m.Modifiers {
		switch mod := mod.(type) {
		case *jdwp.LocationOnlyModifier:
			notePlace(s, requestPlace{kind: m.EventKind, id: uint64(mod.Location.Method), index: mod.Location.Index}, mod.Location.Class)
		case *jdwp.FieldOnlyModifier:
			notePlace(s, requestPlace{kind: m.EventKind, id: uint64(mod.Field)}, jdwp.ClassID(mod.Class))
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
	var table jdwp.MethodLineTableReply
	if !s.lookup.reply(&jdwp.MethodLineTableCommand{RefType: jdwp.ReferenceTypeID(at.Class), Method: at.Method}, &table) {
		return false
	}
	index := int64(at.Index)
	return table.Start >= 0 && index >= table.Start && index <= table.End
}

// watchesFields reports whether the VM's capabilities, cached, say it
// watches fields for events of kind (VirtualMachine.CapabilitiesNew: its
// first two booleans, canWatchFieldModification and canWatchFieldAccess).
func watchesFields(s *Speculator, kind jdwp.EventKind) bool {
	code, data, ok := s.lookup.data(&jdwp.VMCapabilitiesNewCommand{})
	if !ok || code != jdwp.ErrNone || len(data) != 32 {
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
	fields, ok := s.lookup.fields(class)
	return ok && slices.ContainsFunc(fields, func(f jdwp.FieldInfo) bool { return f.Field == field })
}
