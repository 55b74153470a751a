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

// maxEachField bounds the fields asked one by one of an object.
const maxEachField = 64

// onFieldAsked goes on, when the reply to a debugger's
// ObjectReference.GetValues of one field arrives, with each other field of
// the object: a debugger that asks the fields of an object one at a time
// (jdb's dump, a command per field, and one of no field) asks the others
// next, and they need no reply before them.
func (s *Speculator) onFieldAsked(p *inFlight, _ *replyData) error {
	if p.synthetic {
		return nil
	}
	cmd, err := p.key.Message(s.sizes)
	asked, ok := cmd.(*jdwp.ObjectRefGetValuesCommand)
	if err != nil || !ok || len(asked.Fields) != 1 {
		return nil
	}
	s.askEachField(asked.Object)
	return nil
}

// askEachField queues an ObjectReference.GetValues of each instance field
// of obj, one field each, then one of no field, as far as the metadata of
// its class and superclasses is cached (a debugger that dumps an object
// asked for it first).
func (s *Speculator) askEachField(obj jdwp.ObjectID) {
	class, ok := s.objectType(obj)
	for n := 0; ok && class != 0 && n < maxEachField; {
		var fields []jdwp.FieldInfo
		if fields, ok = s.cachedFields(class); !ok {
			break
		}
		for _, f := range fields {
			if f.ModBits&jdwp.ModStatic == 0 && n < maxEachField {
				s.enqueue(&jdwp.ObjectRefGetValuesCommand{Object: obj, Fields: []jdwp.FieldID{f.Field}}, true)
				n++
			}
		}
		class, ok = s.cachedSuperclass(class)
	}
	s.enqueue(&jdwp.ObjectRefGetValuesCommand{Object: obj}, true)
}

// cachedFields returns the fields a class declares, from a cached
// FieldsWithGeneric or Fields reply.
func (s *Speculator) cachedFields(class jdwp.ReferenceTypeID) ([]jdwp.FieldInfo, bool) {
	withGeneric := jdwp.RefTypeFieldsReply{Generic: true}
	if s.cachedReply(&jdwp.RefTypeFieldsWithGenericCommand{RefType: class}, &withGeneric) {
		return withGeneric.Fields, true
	}
	var plain jdwp.RefTypeFieldsReply
	if s.cachedReply(&jdwp.RefTypeFieldsCommand{RefType: class}, &plain) {
		return plain.Fields, true
	}
	return nil, false
}

// cachedSuperclass returns a class's superclass (0 for Object) from a
// cached reply.
func (s *Speculator) cachedSuperclass(class jdwp.ReferenceTypeID) (jdwp.ReferenceTypeID, bool) {
	var m jdwp.ClassTypeSuperclassReply
	if !s.cachedReply(&jdwp.ClassTypeSuperclassCommand{RefType: class}, &m) {
		return 0, false
	}
	return m.Superclass, true
}

// onObjectValues is onValues, then onFieldAsked.
func (s *Speculator) onObjectValues(p *inFlight, reply *replyData) error {
	if err := s.onValues(p, reply); err != nil {
		return err
	}
	return s.onFieldAsked(p, reply)
}
