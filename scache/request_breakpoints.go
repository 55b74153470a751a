package scache

import (
	"github.com/jdwpscache/scache/jdwp"
)

// Breakpoint requests answered ahead. An IDE sets a breakpoint by asking
// the line table of the method, then EventRequest.Set with the location it
// found there, and waits for the request's id: a round trip per
// breakpoint, 200 of them when it attaches to an app with breakpoints in
// 200 classes. OpenJDK's agent (eventFilter.c: setBreakpoint; HotSpot's
// and ART's JVMTI SetBreakpoint under it) refuses a breakpoint request
// only
//   - for a class or method id that no longer names one (the class was
//     unloaded),
//   - for a location outside the method's code (index below 0, or past
//     the end the line table gives),
//   - for a location where a request naming another class id set a
//     breakpoint already (the agent asks JVMTI again, which says
//     DUPLICATE),
//   - or for a modifier it may refuse (a thread, an instance).
//
// So a Speculator answers ahead (request_ids.go) a breakpoint request with
// one location and only modifiers that cannot fail, at an index within the
// line table the VM gave this session for that class and method (cached:
// a hot swap or the class's unload dropped it), at a location no request
// of the session named with another class id. Should the class unload in
// the round trip between its line table and the Set, the VM refuses the
// request and the debugger holds a breakpoint that cannot fire, in a class
// that is gone, as it would had the class gone a moment after the Set; the
// Speculator counts it (Stats.AheadContradicted), logs it and renames as
// for any refusal. A method's code changes under the debugger only by its
// own hot swap, which the Speculator sees: the assumption every cached
// reply about a class rests on (redefine.go). Another agent in the VM
// retransforming the class to shorter code would break it, here as there:
// the debugger, whose JDI caches line tables too, would send the same
// location, and would be told of the refusal only without the proxy.

// breakpointAt is a breakpoint's place as the agent matches requests:
// method and index (the class aside).
type breakpointAt struct {
	method jdwp.MethodID
	index  uint64
}

// maxBreakpointPlaces bounds the places remembered; past it, no more
// breakpoints are answered ahead this session.
const maxBreakpointPlaces = 1 << 14

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
	if at == nil || at.Class == conflicted || s.requests.placesFull || s.requests.breakpoints[breakpointAt{method: at.Method, index: at.Index}] != at.Class {
		return false
	}
	return withinLineTable(s, *at)
}

// conflicted stands, in requestIDs.breakpoints, for a place requests named
// with two class ids (0 names no class).
const conflicted jdwp.ClassID = 0

// notePlaces notes the places the debugger's Set command, with data, names
// for breakpoints, whether or not it is answered ahead.
func notePlaces(s *Speculator, data []byte) {
	if len(data) == 0 || jdwp.EventKind(data[0]) != jdwp.EventBreakpoint {
		return
	}
	m, err := s.decodeParams(jdwp.CmdEventRequestSet, data)
	if err != nil {
		return
	}
	q := &s.requests
	for _, mod := range m.(*jdwp.EventRequestSetCommand).Modifiers {
		l, ok := mod.(*jdwp.LocationOnlyModifier)
		if !ok {
			continue
		}
		place := breakpointAt{method: l.Location.Method, index: l.Location.Index}
		class, seen := q.breakpoints[place]
		switch {
		case seen && class != l.Location.Class:
			q.breakpoints[place] = conflicted
		case seen:
		case len(q.breakpoints) >= maxBreakpointPlaces:
			q.placesFull = true
		default:
			if q.breakpoints == nil {
				q.breakpoints = make(map[breakpointAt]jdwp.ClassID)
			}
			q.breakpoints[place] = l.Location.Class
		}
	}
}

// withinLineTable reports whether the VM's line table of the location's
// class and method, cached, covers its index.
func withinLineTable(s *Speculator, at jdwp.Location) bool {
	e, ok := s.cache.peek(NewKey(&jdwp.MethodLineTableCommand{RefType: jdwp.ReferenceTypeID(at.Class), Method: at.Method}, s.sizes))
	if !ok {
		return false
	}
	var h jdwp.Header
	if h.Parse(e.reply) != nil || h.ErrorCode != jdwp.ErrNone {
		return false
	}
	var table jdwp.MethodLineTableReply
	if jdwp.Unmarshal(jdwp.Data(e.reply), s.sizes, &table) != nil {
		return false
	}
	index := int64(at.Index)
	return table.Start >= 0 && index >= table.Start && index <= table.End
}
