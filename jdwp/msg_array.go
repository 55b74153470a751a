package jdwp

// Messages of the ArrayReference (13) command set that read elements.

// ArrayRefGetValuesCommand asks for a range of an array's elements
// (ArrayReference.GetValues): Length elements from index First. Its reply
// is an ArrayRegionReply.
type ArrayRefGetValuesCommand struct {
	Array  ObjectID
	First  int32
	Length int32
}

// Command implements CommandMessage.
func (*ArrayRefGetValuesCommand) Command() Command { return CmdArrayReferenceGetValues }

// Encode implements Message.
func (m *ArrayRefGetValuesCommand) Encode(w *Writer) {
	w.ObjectID(m.Array)
	w.Int32(m.First)
	w.Int32(m.Length)
}

// Decode implements Message.
func (m *ArrayRefGetValuesCommand) Decode(r *Reader) error {
	m.Array, m.First, m.Length = r.ObjectID(), r.Int32(), r.Int32()
	return r.Err()
}

// ArrayRegionReply is a range of an array's elements (the arrayregion of
// ArrayReference.GetValues): the tag of the array's component type, then
// the elements, each untagged when the components are primitive and
// tagged with the object's own tag when they are objects. Every value in
// Values of a primitive region carries Tag.
type ArrayRegionReply struct {
	Tag    Tag
	Values []Value
}

// Encode implements Message.
func (m *ArrayRegionReply) Encode(w *Writer) {
	w.Tag(m.Tag)
	w.Int32(int32(len(m.Values)))
	for _, v := range m.Values {
		if m.Tag.IsObject() {
			w.Value(v)
		} else {
			w.UntaggedValue(Value{Tag: m.Tag, Bits: v.Bits})
		}
	}
}

// Decode implements Message. A region of void, or of a tag the
// specification does not define, is an error: its elements would take no
// bytes, and its count could not be bounded by the data.
func (m *ArrayRegionReply) Decode(r *Reader) error {
	m.Tag = r.Tag()
	if r.err != nil {
		return r.Err()
	}
	size := m.Tag.primitiveSize()
	if m.Tag.IsObject() {
		size = 1 + r.sizes.ObjectID
	} else if size <= 0 {
		r.fail("array region", ErrBadTag)
		return r.Err()
	}
	m.Values = make([]Value, r.Count(size))
	for i := range m.Values {
		if m.Tag.IsObject() {
			m.Values[i] = r.Value()
		} else {
			m.Values[i] = r.UntaggedValue(m.Tag)
		}
	}
	return r.Err()
}
