package jdwp

import (
	"fmt"
	"math"
)

// Ids of the five sizes of the specification. The object id kinds of the
// specification (threadID, stringID, classLoaderID, …) are aliases of ObjectID,
// and the reference type kinds (classID, interfaceID, arrayTypeID) aliases of
// ReferenceTypeID: on the wire they differ only in meaning.
type (
	// ObjectID identifies an object in the VM; 0 is null.
	ObjectID uint64
	// ReferenceTypeID identifies a reference type (class, interface, array type).
	ReferenceTypeID uint64
	// MethodID identifies a method within its reference type.
	MethodID uint64
	// FieldID identifies a field within its reference type.
	FieldID uint64
	// FrameID identifies a stack frame; valid only while its thread stays suspended.
	FrameID uint64
)

// Object id kinds of the specification.
type (
	ThreadID      = ObjectID // a thread object
	ThreadGroupID = ObjectID // a thread group object
	StringID      = ObjectID // a java.lang.String object
	ClassLoaderID = ObjectID // a class loader object
	ClassObjectID = ObjectID // a java.lang.Class object
	ArrayID       = ObjectID // an array object
	ModuleID      = ObjectID // a module object
	ClassID       = ReferenceTypeID
	InterfaceID   = ReferenceTypeID
	ArrayTypeID   = ReferenceTypeID
)

// A Location is an executable position: a method of a type and a code index.
type Location struct {
	TypeTag TypeTag
	Class   ClassID
	Method  MethodID
	Index   uint64
}

// String returns the location as "CLASS:class/method@index".
func (l Location) String() string {
	return fmt.Sprintf("%s:%#x/%#x@%d", l.TypeTag, l.Class, l.Method, l.Index)
}

// A TaggedObjectID is an object id preceded by a tag saying its kind.
type TaggedObjectID struct {
	Tag Tag
	ID  ObjectID
}

// A Value is a tagged value: a tag byte followed by data whose size the tag
// determines. Bits holds primitive values as their bit pattern (floats and
// doubles through math.Float32bits/Float64bits, booleans as 0 or 1, signed
// values sign-extended to 64 bits) and object values as their ObjectID.
type Value struct {
	Tag  Tag
	Bits uint64
}

// IntValue makes an int Value.
func IntValue(v int32) Value { return Value{Tag: TagInt, Bits: uint64(int64(v))} }

// LongValue makes a long Value.
func LongValue(v int64) Value { return Value{Tag: TagLong, Bits: uint64(v)} }

// BooleanValue makes a boolean Value.
func BooleanValue(v bool) Value { return Value{Tag: TagBoolean, Bits: b2u(v)} }

// ObjectValue makes an object Value of tag t (TagObject, TagString, TagArray, …).
func ObjectValue(t Tag, id ObjectID) Value { return Value{Tag: t, Bits: uint64(id)} }

// DoubleValue makes a double Value.
func DoubleValue(v float64) Value { return Value{Tag: TagDouble, Bits: math.Float64bits(v)} }

// FloatValue makes a float Value.
func FloatValue(v float32) Value { return Value{Tag: TagFloat, Bits: uint64(math.Float32bits(v))} }

func b2u(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}

// IsObject reports whether the tag denotes an object (an objectID follows it).
func (t Tag) IsObject() bool {
	switch t {
	case TagArray, TagObject, TagString, TagThread, TagThreadGroup, TagClassLoader, TagClassObject:
		return true
	}
	return false
}

// Valid reports whether the specification defines the tag.
func (t Tag) Valid() bool { _, ok := tagNames[t]; return ok }

// primitiveSize returns the data size of a primitive tag, 0 for void, and -1
// for object tags and undefined tags.
func (t Tag) primitiveSize() int {
	switch t {
	case TagByte, TagBoolean:
		return 1
	case TagChar, TagShort:
		return 2
	case TagInt, TagFloat:
		return 4
	case TagLong, TagDouble:
		return 8
	case TagVoid:
		return 0
	}
	return -1
}

// ObjectID returns the value as an object id (meaningful for object tags only).
func (v Value) ObjectID() ObjectID { return ObjectID(v.Bits) }

// Int returns the value as a signed integer (byte, char, short, int, long, boolean).
func (v Value) Int() int64 { return int64(v.Bits) }

// String renders the value for logs and transcripts.
func (v Value) String() string {
	switch {
	case v.Tag.IsObject():
		return fmt.Sprintf("%c@%#x", byte(v.Tag), v.Bits)
	case v.Tag == TagFloat:
		return fmt.Sprint(math.Float32frombits(uint32(v.Bits)))
	case v.Tag == TagDouble:
		return fmt.Sprint(math.Float64frombits(v.Bits))
	case v.Tag == TagBoolean:
		return fmt.Sprint(v.Bits != 0)
	case v.Tag == TagVoid:
		return "void"
	case v.Tag == TagChar:
		return fmt.Sprintf("%q", rune(v.Bits))
	}
	return fmt.Sprint(int64(v.Bits))
}
