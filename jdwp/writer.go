package jdwp

import "encoding/binary"

// A Writer appends the data of a packet to a buffer it owns and reuses.
//
// Reset empties the buffer but keeps its memory, so that encoding into one
// Writer again and again does not allocate once the buffer has grown.
// Ids are written with the Writer's IDSizes, truncated to their low bytes.
type Writer struct {
	buf   []byte
	sizes IDSizes
}

// NewWriter returns a Writer that writes ids with the given sizes.
func NewWriter(sizes IDSizes) *Writer { return &Writer{sizes: sizes} }

// Reset empties the buffer, keeping its capacity, and sets the id sizes.
func (w *Writer) Reset(sizes IDSizes) {
	w.buf = w.buf[:0]
	w.sizes = sizes
}

// Bytes returns the bytes written so far. They are valid until the next Reset.
func (w *Writer) Bytes() []byte { return w.buf }

// Len returns how many bytes have been written.
func (w *Writer) Len() int { return len(w.buf) }

// Sizes returns the id sizes the Writer uses.
func (w *Writer) Sizes() IDSizes { return w.sizes }

// Uint8 writes a byte.
func (w *Writer) Uint8(v uint8) { w.buf = append(w.buf, v) }

// Bool writes a boolean as one byte.
func (w *Writer) Bool(v bool) {
	if v {
		w.Uint8(1)
	} else {
		w.Uint8(0)
	}
}

// Uint16 writes a big-endian u2.
func (w *Writer) Uint16(v uint16) { w.buf = binary.BigEndian.AppendUint16(w.buf, v) }

// Uint32 writes a big-endian u4.
func (w *Writer) Uint32(v uint32) { w.buf = binary.BigEndian.AppendUint32(w.buf, v) }

// Int32 writes a big-endian int.
func (w *Writer) Int32(v int32) { w.Uint32(uint32(v)) }

// Uint64 writes a big-endian u8.
func (w *Writer) Uint64(v uint64) { w.buf = binary.BigEndian.AppendUint64(w.buf, v) }

// Int64 writes a big-endian long.
func (w *Writer) Int64(v int64) { w.Uint64(uint64(v)) }

// Raw appends bytes as they are.
func (w *Writer) Raw(b []byte) { w.buf = append(w.buf, b...) }

func (w *Writer) id(k idKind, v uint64) {
	n := w.sizes.size(k)
	if n < 1 || n > 8 {
		n = 8
	}
	for i := n - 1; i >= 0; i-- {
		w.buf = append(w.buf, byte(v>>(8*uint(i))))
	}
}

// ObjectID writes an object id.
func (w *Writer) ObjectID(v ObjectID) { w.id(idObject, uint64(v)) }

// ReferenceTypeID writes a reference type id.
func (w *Writer) ReferenceTypeID(v ReferenceTypeID) { w.id(idReferenceType, uint64(v)) }

// MethodID writes a method id.
func (w *Writer) MethodID(v MethodID) { w.id(idMethod, uint64(v)) }

// FieldID writes a field id.
func (w *Writer) FieldID(v FieldID) { w.id(idField, uint64(v)) }

// FrameID writes a frame id.
func (w *Writer) FrameID(v FrameID) { w.id(idFrame, uint64(v)) }

// String writes a JDWP string: the length of its modified UTF-8 form, then the bytes.
func (w *Writer) String(s string) {
	lenAt := len(w.buf)
	w.Uint32(0)
	w.buf = AppendModifiedUTF8(w.buf, s)
	binary.BigEndian.PutUint32(w.buf[lenAt:], uint32(len(w.buf)-lenAt-4))
}

// StringBytes writes a JDWP string whose bytes are already modified UTF-8.
func (w *Writer) StringBytes(b []byte) {
	w.Uint32(uint32(len(b)))
	w.Raw(b)
}

// TypeTag writes a type tag.
func (w *Writer) TypeTag(t TypeTag) { w.Uint8(uint8(t)) }

// Tag writes a value tag.
func (w *Writer) Tag(t Tag) { w.Uint8(uint8(t)) }

// Location writes a location.
func (w *Writer) Location(l Location) {
	w.TypeTag(l.TypeTag)
	w.ReferenceTypeID(l.Class)
	w.MethodID(l.Method)
	w.Uint64(l.Index)
}

// TaggedObjectID writes a tag and an object id.
func (w *Writer) TaggedObjectID(o TaggedObjectID) {
	w.Tag(o.Tag)
	w.ObjectID(o.ID)
}

// Value writes a tagged value.
func (w *Writer) Value(v Value) {
	w.Tag(v.Tag)
	w.UntaggedValue(v)
}

// UntaggedValue writes a value's data without its tag.
func (w *Writer) UntaggedValue(v Value) {
	if v.Tag.IsObject() {
		w.ObjectID(ObjectID(v.Bits))
		return
	}
	switch v.Tag.primitiveSize() {
	case 1:
		w.Uint8(uint8(v.Bits))
	case 2:
		w.Uint16(uint16(v.Bits))
	case 4:
		w.Uint32(uint32(v.Bits))
	case 8:
		w.Uint64(v.Bits)
	}
}
