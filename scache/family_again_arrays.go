package scache

import "github.com/jdwpscache/scache/jdwp"

// Arrays held by this. An IDE's variables view with an array expanded
// reads its elements (ArrayReference.GetValues) at every stop, and the
// array is the one a path of fields from this holds: a new array wherever
// this is a new object, so the command never repeats byte for byte. As for
// the objects along a chain (family_again_chains.go), FamilyAgain keeps, by
// the kind of stop and the path, the ranges the debugger read of the array
// there, and reads them of the array the path holds at the next such stop
// as soon as a reply shows which array that is.
//
// A debugger reads the whole array (JDI's getValues(): its length first,
// then every element) or a page of it. A range that covered the whole
// array it was read of covers the whole of the next one: it is read at the
// new array's length once that is known (FamilyValues asks it with the
// array), and at the old length until then (most arrays a path holds keep
// their size). A range that runs past a shorter array's end is answered
// with an error, which answers no one: waste only.

// maxArrayRange bounds the elements of a range read again: a debugger
// pages a big array (an IDE shows 100 elements at a time), and a whole big
// array read once is not worth its bytes again on a guess.
const maxArrayRange = 1024

// arrayRange is a range of elements the debugger read of the array at a
// path; whole: it was the whole of that array.
type arrayRange struct {
	first, length int32
	whole         bool
	recency
}

// arrayRanges are the ranges read of the array at one path.
type arrayRanges struct {
	ranges []*arrayRange
}

// noteArrayRange records a range the debugger read of the array held by
// the current stop's this at path.
func (l *againLog) noteArrayRange(s *Speculator, path string, m *jdwp.ArrayRefGetValuesCommand) {
	if l.class() == 0 || l.thisType == 0 || m.First < 0 || m.Length <= 0 || m.Length > maxArrayRange {
		return
	}
	e := boundedEntry(&l.arrays, chainKind{l.thisKindOf(l.thisType), path}, maxChains)
	if e == nil {
		return
	}
	n, known := s.lookup.arrayLength(m.Array)
	whole := known && m.First == 0 && m.Length == n
	for _, r := range e.ranges {
		if r.first == m.First && (r.length == m.Length || (whole && r.whole)) {
			r.length, r.whole, r.asked = m.Length, whole, true
			return
		}
	}
	if len(e.ranges) < maxThisAsks {
		e.ranges = append(e.ranges, &arrayRange{first: m.First, length: m.Length, whole: whole, recency: recency{asked: true}})
	}
}

// readArrayAt asks, of the array now held at path (at) from the stop's
// this, the ranges the debugger read of the array there at the recent
// stops of the kind.
func readArrayAt(s *Speculator, kind thisKind, at string, array jdwp.ObjectID) {
	e := s.again.arrays[chainKind{kind, at}]
	if e == nil {
		return
	}
	n, known := s.lookup.arrayLength(array)
	for _, r := range e.ranges {
		length := r.length
		if r.whole && known {
			length = n
		}
		if r.first+length <= r.first || length > maxArrayRange {
			continue // empty (JDI reads nothing of an empty array), or too big
		}
		s.enqueue(&jdwp.ArrayRefGetValuesCommand{Array: array, First: r.first, Length: length}, true)
	}
}

// onHeldArrayLength asks, when the length of an array held at a path from
// the stop's this arrives, the whole of it if the debugger read the whole
// of the array there at the recent stops: at its own length, which may
// not be the one readArrayAt guessed.
func onHeldArrayLength(s *Speculator, p *inFlight, _ *replyData) error {
	l := &s.again
	path, ok := l.held[p.object]
	if !ok || !l.recording || l.thisType == 0 {
		return nil
	}
	readArrayAt(s, l.thisKindOf(l.thisType), path, p.object)
	return nil
}

// ageArrays closes a stop of kind for the paths whose arrays were read at
// such stops.
func (l *againLog) ageArrays(kind thisKind) {
	for k, e := range l.arrays {
		if k.thisKind != kind {
			continue
		}
		e.ranges = aged(e.ranges, func(r **arrayRange) bool { return (*r).age() })
		if len(e.ranges) == 0 {
			delete(l.arrays, k)
		}
	}
}
