package scache

import (
	"slices"

	"github.com/jdwpscache/scache/jdwp"
)

// Values read in parts. A variables view reads a frame's visible locals in
// one StackFrame.GetValues and an object's fields in one
// ObjectReference.GetValues, and that is what the families speculate. Much
// else reads them a few at a time: JDI's StackFrame.getValue and
// ObjectReference.getValue send a command of one slot or field, and so do
// the evaluators behind watch expressions and conditional breakpoints, the
// Eclipse IDE's variables view (a command per variable) and a tool written
// on JDI; an IDE pages a big array, a hundred elements at a time. Each such
// read is answered from a cached read of the same frame, object, type or
// array that holds every value it asks: the VM reads each value on its
// own, so the reply to a part is the whole's values at the part's places,
// byte for byte (derived_parts_test.go compares with HotSpot's).
//
// The part is served as the whole would be: under the whole's lifetime,
// and a moving whole (sequential.go) only where the rules let it answer,
// delivering its position.

// maxPartSources bounds the cached reads a part is looked for in.
const maxPartSources = 64

// answerPart answers the debugger's GetValues c from a cached GetValues
// of the same subject that read every value c asks, and reports whether it
// did. It does not wait for such a read in flight.
func answerPart(s *Speculator, r *Response, c *upCommand) bool {
	subject := partSubject(c.params, s.sizes)
	if subject == 0 || len(c.key) <= subject {
		return false
	}
	for _, key := range s.cache.valueReadsOf(c.key[:subject], maxPartSources) {
		if key == c.key {
			continue
		}
		e, ok := s.cache.peek(key)
		if e, ok = servable(s, e, ok, c.moving); !ok {
			continue
		}
		whole, err := key.Message(s.sizes)
		if err != nil {
			continue
		}
		reply, ok := partOf(c.params, whole, e.reply, s.sizes, c.h.ID)
		if !ok {
			continue
		}
		s.cache.get(key) // as recently used as a hit makes it
		serve(s, r, key, e)
		s.answerHit(r, c.packet, reply)
		s.auditAnswer(r, c, reply)
		s.debug("part", c.h.ID, c.cmd)
		return true
	}
	return false
}

// partSubject returns how many bytes of a GetValues key name what it
// reads (the command, then the frame, object, type or array), or 0 if m is
// no GetValues that a wider one may answer.
func partSubject(m jdwp.CommandMessage, sizes jdwp.IDSizes) int {
	switch m := m.(type) {
	case *jdwp.FrameGetValuesCommand:
		if len(m.Slots) > 0 {
			return 2 + int(sizes.ObjectID) + int(sizes.FrameID)
		}
	case *jdwp.ObjectRefGetValuesCommand:
		if len(m.Fields) > 0 {
			return 2 + int(sizes.ObjectID)
		}
	case *jdwp.RefTypeGetValuesCommand:
		if len(m.Fields) > 0 {
			return 2 + int(sizes.ReferenceTypeID)
		}
	case *jdwp.ArrayRefGetValuesCommand:
		if m.First >= 0 && m.Length >= 0 {
			return 2 + int(sizes.ObjectID)
		}
	}
	return 0
}

// partOf builds the reply with id to part, a GetValues command, from
// wholeReply, the successful reply to whole, a GetValues of the same
// subject, if whole read every value part asks.
func partOf(part, whole jdwp.CommandMessage, wholeReply []byte, sizes jdwp.IDSizes, id uint32) ([]byte, bool) {
	data, ok := successData(wholeReply)
	if !ok {
		return nil, false
	}
	if p, ok := part.(*jdwp.ArrayRefGetValuesCommand); ok {
		w, ok := whole.(*jdwp.ArrayRefGetValuesCommand)
		if !ok {
			return nil, false
		}
		// The VM refuses a first index past the array's last even for no
		// element (INVALID_INDEX): the part's must be one the whole read.
		end := int64(w.First) + int64(w.Length)
		if p.First < w.First || int64(p.First) >= end || int64(p.First)+int64(p.Length) > end {
			return nil, false
		}
		var region jdwp.ArrayRegionReply
		if jdwp.Unmarshal(data, sizes, &region) != nil || len(region.Values) != int(w.Length) {
			return nil, false
		}
		from := p.First - w.First
		region.Values = region.Values[from : from+p.Length]
		return jdwp.AppendReplyPacket(nil, id, &region, sizes), true
	}
	at, asked, ok := placesIn(part, whole)
	if !ok {
		return nil, false
	}
	var all jdwp.ValuesReply
	if jdwp.Unmarshal(data, sizes, &all) != nil || len(all.Values) != asked {
		return nil, false
	}
	values := make([]jdwp.Value, len(at))
	for i, k := range at {
		values[i] = all.Values[k]
	}
	return jdwp.AppendReplyPacket(nil, id, &jdwp.ValuesReply{Values: values}, sizes), true
}

// placesIn returns, for each value part asks, its place among those whole
// asks (a frame's slot with the same type tag, an object's or type's
// field), if whole asks every one, and how many whole asks.
func placesIn(part, whole jdwp.CommandMessage) (at []int, asked int, ok bool) {
	switch p := part.(type) {
	case *jdwp.FrameGetValuesCommand:
		if w, ok := whole.(*jdwp.FrameGetValuesCommand); ok {
			at, ok := places(p.Slots, w.Slots)
			return at, len(w.Slots), ok
		}
	case *jdwp.ObjectRefGetValuesCommand:
		if w, ok := whole.(*jdwp.ObjectRefGetValuesCommand); ok {
			at, ok := places(p.Fields, w.Fields)
			return at, len(w.Fields), ok
		}
	case *jdwp.RefTypeGetValuesCommand:
		if w, ok := whole.(*jdwp.RefTypeGetValuesCommand); ok {
			at, ok := places(p.Fields, w.Fields)
			return at, len(w.Fields), ok
		}
	}
	return nil, 0, false
}

// places returns the index in whole of each of part's items, if whole
// holds them all.
func places[T comparable](part, whole []T) ([]int, bool) {
	at := make([]int, len(part))
	for i, x := range part {
		if at[i] = slices.Index(whole, x); at[i] < 0 {
			return nil, false
		}
	}
	return at, true
}
