package jdwp

import "fmt"

// IDSizes are the sizes in bytes of the variably sized ids of a connection, as
// the VirtualMachine.IDSizes reply gives them. Each is 1 to 8. HotSpot and ART
// use 8 for every kind.
type IDSizes struct {
	FieldID         int
	MethodID        int
	ObjectID        int
	ReferenceTypeID int
	FrameID         int
}

// DefaultIDSizes are the sizes assumed before a VirtualMachine.IDSizes reply is seen.
var DefaultIDSizes = IDSizes{FieldID: 8, MethodID: 8, ObjectID: 8, ReferenceTypeID: 8, FrameID: 8}

// Validate reports an error wrapping ErrBadIDSize if any size is outside 1..8.
func (s IDSizes) Validate() error {
	for _, f := range []struct {
		name string
		size int
	}{{"fieldID", s.FieldID}, {"methodID", s.MethodID}, {"objectID", s.ObjectID}, {"referenceTypeID", s.ReferenceTypeID}, {"frameID", s.FrameID}} {
		if f.size < 1 || f.size > 8 {
			return fmt.Errorf("%w: %s size %d", ErrBadIDSize, f.name, f.size)
		}
	}
	return nil
}

// size returns the byte size of an id kind.
func (s IDSizes) size(k idKind) int {
	switch k {
	case idField:
		return s.FieldID
	case idMethod:
		return s.MethodID
	case idObject:
		return s.ObjectID
	case idReferenceType:
		return s.ReferenceTypeID
	default:
		return s.FrameID
	}
}

// idKind selects one of the five id sizes.
type idKind uint8

const (
	idField idKind = iota
	idMethod
	idObject
	idReferenceType
	idFrame
)

func (k idKind) String() string {
	return [...]string{"fieldID", "methodID", "objectID", "referenceTypeID", "frameID"}[k]
}
