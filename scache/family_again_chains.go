package scache

import (
	"encoding/binary"

	"github.com/jdwpscache/scache/jdwp"
)

// Chains of objects held by this. A debugger that dumps this goes on to
// the objects its fields hold: jdb's `dump this.map` asks the map's fields
// one by one, an IDE's expanded field asks the held object's. Those objects
// are new at every stop where this is (a method called on one object
// after another), so the commands never repeat byte for byte; what repeats
// is the path to them: the fields from this. FamilyAgain keeps, by the kind
// of stop (as for this's own fields, see thisFields) and the path, the
// fields the debugger asked of the object at the end of it, and asks them
// again as soon as a reply of the stop shows which object is there now: a
// level ahead of the debugger from one proxy, the whole walk at the VM's
// latency from a split proxy's near half.

const (
	maxChainDepth = 3   // fields from this to the deepest object whose asks are kept
	maxHeld       = 256 // objects of one stop whose path from this is known
	maxChains     = 256 // paths whose asks are kept
)

// chainKind is a path of fields from this at a kind of stop.
type chainKind struct {
	thisKind
	path string // the field ids from this, 8 bytes each, big-endian
}

// heldKind is a path of fields from this at a kind of stop, and the type
// of the object there: the fields asked of an object of one class are
// asked only of an object known to be of that class (a field holds
// objects of many: an ArrayList at one stop, an empty list of another
// class at the next), as a VM reads fields by offsets and another class's
// field ids on an object are outside the protocol.
type heldKind struct {
	chainKind
	typ jdwp.ReferenceTypeID
}

// pathLen returns the number of fields of a path.
func pathLen(path string) int { return len(path) / 8 }

// pathThrough returns path followed by field.
func pathThrough(path string, field jdwp.FieldID) string {
	return string(binary.BigEndian.AppendUint64([]byte(path), uint64(field)))
}

// noteChainFields records the fields of an ObjectReference.GetValues the
// debugger asked of an object of type typ held by the current stop's this
// at path.
func (l *againLog) noteChainFields(path string, typ jdwp.ReferenceTypeID, m *jdwp.ObjectRefGetValuesCommand) {
	if l.class() == 0 || l.thisType == 0 {
		return
	}
	if e := boundedEntry(&l.chains, heldKind{chainKind{l.thisKindOf(l.thisType), path}, typ}, maxChains); e != nil {
		e.note(m.Fields)
	}
}

// askHeld asks of obj, held at path (at) from the stop's this, what the
// debugger asked of the object there at the recent stops of the kind when
// it was of obj's type, once that type is known (its reply calls again:
// onThisType).
func askHeld(s *Speculator, kind thisKind, at string, obj jdwp.ObjectID) {
	typ, ok := s.lookup.objectType(obj)
	if !ok {
		return
	}
	if e := s.again.chains[heldKind{chainKind{kind, at}, typ}]; e != nil {
		for _, a := range e.asks {
			s.enqueue(&jdwp.ObjectRefGetValuesCommand{Object: obj, Fields: a.fields}, true)
		}
	}
}

// pathOf returns the path from the current stop's this to obj, if known.
func (l *againLog) pathOf(obj jdwp.ObjectID) (string, bool) {
	if !l.recording || obj == 0 {
		return "", false
	}
	if obj == l.this {
		return "", true
	}
	path, ok := l.held[obj]
	return path, ok
}

// followChain notes, from the reply to ObjectReference.GetValues of fields
// of an object at path from this, the objects those fields hold, and asks
// of each what the debugger asked of the object at its path at the recent
// stops of the kind.
func followChain(s *Speculator, path string, fields []jdwp.FieldID, values []jdwp.Value) {
	l := &s.again
	if pathLen(path) >= maxChainDepth || len(fields) != len(values) || l.thisType == 0 {
		return
	}
	kind := l.thisKindOf(l.thisType)
	for i, v := range values {
		obj := v.ObjectID()
		if !v.Tag.IsObject() || obj == 0 || obj == l.this {
			continue
		}
		if _, known := l.held[obj]; known || len(l.held) >= maxHeld {
			continue
		}
		if l.held == nil {
			l.held = make(map[jdwp.ObjectID]string)
		}
		at := pathThrough(path, fields[i])
		l.held[obj] = at
		askHeld(s, kind, at, obj)
		if v.Tag == jdwp.TagArray {
			readArrayAt(s, kind, at, obj)
			askValuesReadOnPath(s, at) // an array's reads need no type
		}
	}
}

// ageChains closes a stop of kind for the paths asked at such stops.
func (l *againLog) ageChains(kind thisKind) {
	for k, e := range l.chains {
		if k.chainKind.thisKind == kind && !e.age() {
			delete(l.chains, k)
		}
	}
}
