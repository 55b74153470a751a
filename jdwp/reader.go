package jdwp

import (
	"encoding/binary"
	"math"
)

// A Reader is a cursor over the data of one packet (the bytes after the
// header). Reads use the connection's IDSizes for ids.
//
// A Reader keeps the first error: once a read fails (past the end, a bad tag,
// an impossible count) that read and every later one return zero values and
// Err reports the failure, a *DecodeError. Decoders read every field, then
// return Err, so a truncated packet is never mistaken for a short one. Nothing
// a Reader does panics, whatever the bytes.
type Reader struct {
	data  []byte
	off   int
	sizes IDSizes
	err   error
}

// NewReader returns a Reader over data with the given id sizes. Invalid sizes
// make every id read fail with ErrBadIDSize.
func NewReader(data []byte, sizes IDSizes) *Reader {
	r := &Reader{}
	r.Reset(data, sizes)
	return r
}

// Reset makes r read data from the start, forgetting any error. It lets a
// caller reuse one Reader without allocating.
func (r *Reader) Reset(data []byte, sizes IDSizes) {
	*r = Reader{data: data, sizes: sizes}
	if err := sizes.Validate(); err != nil {
		r.err = &DecodeError{What: "id sizes", Err: err}
	}
}

// Err returns the first error a read met, or nil.
func (r *Reader) Err() error { return r.err }

// Offset returns how many bytes have been read.
func (r *Reader) Offset() int { return r.off }

// Len returns how many bytes remain unread.
func (r *Reader) Len() int { return len(r.data) - r.off }

// Sizes returns the id sizes the Reader uses.
func (r *Reader) Sizes() IDSizes { return r.sizes }

// Rest returns the unread bytes and marks them read. It does not copy.
func (r *Reader) Rest() []byte {
	if r.err != nil {
		return nil
	}
	b := r.data[r.off:]
	r.off = len(r.data)
	return b
}

// fail records err at the current offset, unless an error is already kept.
func (r *Reader) fail(what string, err error) {
	if r.err == nil {
		r.err = &DecodeError{Offset: r.off, What: what, Err: err}
	}
}

// take returns the next n bytes, or nil and an error.
func (r *Reader) take(n int, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.data)-r.off {
		r.fail(what, ErrTruncated)
		return nil
	}
	b := r.data[r.off : r.off+n]
	r.off += n
	return b
}

// Bytes returns the next n bytes without copying.
func (r *Reader) Bytes(n int) []byte { return r.take(n, "bytes") }

// Uint8 reads a byte.
func (r *Reader) Uint8() uint8 {
	if b := r.take(1, "u1"); b != nil {
		return b[0]
	}
	return 0
}

// Bool reads a boolean (one byte, non-zero is true).
func (r *Reader) Bool() bool { return r.Uint8() != 0 }

// Uint16 reads a big-endian u2.
func (r *Reader) Uint16() uint16 {
	if b := r.take(2, "u2"); b != nil {
		return binary.BigEndian.Uint16(b)
	}
	return 0
}

// Uint32 reads a big-endian u4.
func (r *Reader) Uint32() uint32 {
	if b := r.take(4, "u4"); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

// Int32 reads a big-endian int.
func (r *Reader) Int32() int32 { return int32(r.Uint32()) }

// Uint64 reads a big-endian u8.
func (r *Reader) Uint64() uint64 {
	if b := r.take(8, "u8"); b != nil {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

// Int64 reads a big-endian long.
func (r *Reader) Int64() int64 { return int64(r.Uint64()) }

// id reads an id of the given kind's negotiated size.
func (r *Reader) id(k idKind) uint64 {
	n := r.sizes.size(k)
	b := r.take(n, k.String())
	if b == nil {
		return 0
	}
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v
}

// ObjectID reads an object id (also threadID, stringID and the other object kinds).
func (r *Reader) ObjectID() ObjectID { return ObjectID(r.id(idObject)) }

// ReferenceTypeID reads a reference type id (also classID, interfaceID, arrayTypeID).
func (r *Reader) ReferenceTypeID() ReferenceTypeID { return ReferenceTypeID(r.id(idReferenceType)) }

// MethodID reads a method id.
func (r *Reader) MethodID() MethodID { return MethodID(r.id(idMethod)) }

// FieldID reads a field id.
func (r *Reader) FieldID() FieldID { return FieldID(r.id(idField)) }

// FrameID reads a frame id.
func (r *Reader) FrameID() FrameID { return FrameID(r.id(idFrame)) }

// StringBytes reads a JDWP string (u4 length, then modified UTF-8 bytes) and
// returns its bytes as they are on the wire, without copying.
func (r *Reader) StringBytes() []byte {
	n := r.Uint32()
	if r.err != nil {
		return nil
	}
	if uint64(n) > uint64(r.Len()) {
		r.fail("string", ErrTruncated)
		return nil
	}
	return r.take(int(n), "string")
}

// String reads a JDWP string and converts it from modified UTF-8 to a Go string.
func (r *Reader) String() string {
	b := r.StringBytes()
	if b == nil {
		return ""
	}
	return DecodeModifiedUTF8(b)
}

// Count reads an int count of elements that each take at least minSize bytes,
// and fails with ErrBadCount if it is negative or the remaining data cannot
// hold that many. It bounds every allocation a decoder makes by the packet's size.
func (r *Reader) Count(minSize int) int {
	n := r.Int32()
	if r.err != nil {
		return 0
	}
	if minSize < 1 {
		minSize = 1
	}
	if n < 0 || int64(n)*int64(minSize) > int64(r.Len()) {
		r.fail("count", ErrBadCount)
		return 0
	}
	return int(n)
}

// TypeTag reads a type tag byte.
func (r *Reader) TypeTag() TypeTag { return TypeTag(r.Uint8()) }

// Tag reads a value tag byte and checks that the specification defines it.
func (r *Reader) Tag() Tag {
	t := Tag(r.Uint8())
	if r.err == nil && !t.Valid() {
		r.off--
		r.fail("tag", ErrBadTag)
		return 0
	}
	return t
}

// Location reads a location (type tag, class id, method id, u8 index).
func (r *Reader) Location() Location {
	return Location{TypeTag: r.TypeTag(), Class: r.ReferenceTypeID(), Method: r.MethodID(), Index: r.Uint64()}
}

// TaggedObjectID reads a tag and an object id.
func (r *Reader) TaggedObjectID() TaggedObjectID {
	t := r.Tag()
	return TaggedObjectID{Tag: t, ID: r.ObjectID()}
}

// Value reads a tagged value.
func (r *Reader) Value() Value {
	return r.UntaggedValue(r.Tag())
}

// UntaggedValue reads the data of a value whose tag is already known (as in
// array regions of primitives, or StackFrame.SetValues).
func (r *Reader) UntaggedValue(t Tag) Value {
	if r.err != nil {
		return Value{}
	}
	if t.IsObject() {
		return Value{Tag: t, Bits: uint64(r.ObjectID())}
	}
	switch t.primitiveSize() {
	case 0:
		return Value{Tag: t}
	case 1:
		if t == TagByte {
			return Value{Tag: t, Bits: uint64(int64(int8(r.Uint8())))}
		}
		return Value{Tag: t, Bits: uint64(r.Uint8())}
	case 2:
		if t == TagShort {
			return Value{Tag: t, Bits: uint64(int64(int16(r.Uint16())))}
		}
		return Value{Tag: t, Bits: uint64(r.Uint16())}
	case 4:
		if t == TagInt {
			return Value{Tag: t, Bits: uint64(int64(r.Int32()))}
		}
		return Value{Tag: t, Bits: uint64(r.Uint32())}
	case 8:
		return Value{Tag: t, Bits: r.Uint64()}
	}
	r.fail("value", ErrBadTag)
	return Value{}
}

// Float32 reads a float.
func (r *Reader) Float32() float32 { return math.Float32frombits(r.Uint32()) }
