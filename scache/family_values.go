package scache

import "github.com/jdwpscache/scache/jdwp"

// FamilyValues: the facts of the values a frame or an object shows that
// never change (an object's type, a string's value, an array's length),
// asked as soon as a reply shows the values.

// onValues asks for the type of every object, the value of every string and
// the length of every array among the values of a GetValues or ThisObject
// reply of the current epoch (an array's elements among them).
func onValues(s *Speculator, _ *inFlight, reply *replyData) error {
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
	case *jdwp.ArrayRegionReply:
		values = m.Values[:min(len(m.Values), maxElementFacts)]
	}
	for _, v := range values {
		if !v.Tag.IsObject() || v.Bits == 0 {
			continue
		}
		s.guesses.sawID(v.ObjectID())
		enqueueValueFacts(s, v.Tag, v.ObjectID())
	}
	return nil
}

// maxElementFacts bounds the elements of an array region whose facts are
// asked: an IDE shows a big array a page at a time (IntelliJ 100
// elements), and asks the facts of what it shows.
const maxElementFacts = 100

// speculateShown asks, at a stop, for the facts of the objects its event
// names (stopEvent.shown): the type of the exception thrown, of the
// object a watchpoint names and of the value written, of the value a
// method returns; a debugger shows them with the stop, and JDI asks each
// type before it shows anything.
func speculateShown(s *Speculator, stop stopEvent) {
	for _, v := range stop.shown {
		if v.Tag.IsObject() && v.Bits != 0 {
			s.guesses.sawID(v.ObjectID())
			enqueueValueFacts(s, v.Tag, v.ObjectID())
		}
	}
}

// enqueueValueFacts queues what a debugger asks of an object value it
// shows: its type, and a string's value or an array's length.
func enqueueValueFacts(s *Speculator, tag jdwp.Tag, obj jdwp.ObjectID) {
	switch tag {
	case jdwp.TagString:
		s.enqueue(&jdwp.StringRefValueCommand{Object: obj}, true)
	case jdwp.TagArray:
		s.enqueue(&jdwp.ArrayRefLengthCommand{Array: obj}, true)
	}
	s.enqueue(&jdwp.ObjectRefReferenceTypeCommand{Object: obj}, true)
}

// maxEachField bounds the fields asked one by one of an object.
const maxEachField = 64

// onFieldAsked goes on, when the reply to a debugger's
// ObjectReference.GetValues of one field arrives, with each other field of
// the object: a debugger that asks the fields of an object one at a time
// (jdb's dump, a command per field, and one of no field) asks the others
// next, and they need no reply before them; while the debugger goes on
// with them (family_values_each.go).
func onFieldAsked(s *Speculator, p *inFlight, _ *replyData) error {
	if p.synthetic {
		return nil
	}
	cmd, err := p.key.Message(s.sizes)
	asked, ok := cmd.(*jdwp.ObjectRefGetValuesCommand)
	if err != nil || !ok || len(asked.Fields) != 1 || !eachFieldWanted(s, asked.Object) {
		return nil
	}
	askEachField(s, asked.Object)
	return nil
}

// askEachField queues an ObjectReference.GetValues of each instance field
// of obj, one field each, then one of no field, as far as the metadata of
// its class and superclasses is cached (a debugger that dumps an object
// asked for it first).
func askEachField(s *Speculator, obj jdwp.ObjectID) {
	class, ok := s.lookup.objectType(obj)
	for n := 0; ok && class != 0 && n < maxEachField; {
		var fields []jdwp.FieldInfo
		if fields, ok = s.lookup.fields(class); !ok {
			break
		}
		for _, f := range fields {
			if f.ModBits&jdwp.ModStatic == 0 && n < maxEachField {
				s.enqueue(&jdwp.ObjectRefGetValuesCommand{Object: obj, Fields: []jdwp.FieldID{f.Field}}, true)
				n++
			}
		}
		class, ok = s.lookup.superclass(class)
	}
	s.enqueue(&jdwp.ObjectRefGetValuesCommand{Object: obj}, true)
}

// onObjectValues is onValues, then onFieldAsked.
func onObjectValues(s *Speculator, p *inFlight, reply *replyData) error {
	if err := onValues(s, p, reply); err != nil {
		return err
	}
	return onFieldAsked(s, p, reply)
}
