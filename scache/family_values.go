package scache

import "github.com/jdwpscache/scache/jdwp"

// FamilyValues: the facts of the values a frame or an object shows that
// never change (an object's type, a string's value, an array's length),
// asked as soon as a reply shows the values.

// onValues asks for the type of every object, the value of every string and
// the length of every array among the values of a GetValues or ThisObject
// reply of the current epoch.
func (s *Speculator) onValues(_ *inFlight, reply *replyData) error {
	m, err := reply.typed(s)
	if err != nil {
		return err
	}
	var values []jdwp.Value
	switch m := m.(type) {
	case *jdwp.TaggedObjectReply:
		values = []jdwp.Value{{Tag: m.Object.Tag, Bits: uint64(m.Object.ID)}}
	case *jdwp.ValuesReply:
		values = m.Values
	}
	for _, v := range values {
		if !v.Tag.IsObject() || v.Bits == 0 {
			continue
		}
		s.guesses.sawID(v.ObjectID())
		s.enqueueValueFacts(v.Tag, v.ObjectID())
	}
	return nil
}

// enqueueValueFacts queues what a debugger asks of an object value it
// shows: its type, and a string's value or an array's length.
func (s *Speculator) enqueueValueFacts(tag jdwp.Tag, obj jdwp.ObjectID) {
	switch tag {
	case jdwp.TagString:
		s.enqueue(&jdwp.StringRefValueCommand{Object: obj}, true)
	case jdwp.TagArray:
		s.enqueue(&jdwp.ArrayRefLengthCommand{Array: obj}, true)
	}
	s.enqueue(&jdwp.ObjectRefReferenceTypeCommand{Object: obj}, true)
}
