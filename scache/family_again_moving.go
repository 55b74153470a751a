package scache

import (
	"slices"

	"github.com/jdwpscache/scache/jdwp"
)

// Values read again behind a miss. Under suspend policy EVENT_THREAD the
// values a variables view reads (this's fields, a type's statics, an
// array's elements) are moving entries (keyable.go), and rule (a) serves
// one only if it arrived after every state already delivered
// (sequential.go). A view that reads the same values twice at a stop (an
// IDE's variables view, then its expanded arrays and this again) finds
// the first reply older than a state it was told since: that read goes to
// the VM, and its reply, newer still, keeps every other value speculated
// from answering the reads after it, a round trip each. So behind such a
// miss the values the debugger read in the epoch, and those it read next
// at its last stop in the same method, go out again in the order it read them,
// each newer than what the miss tells; at most
// maxValuesReadAgain times an epoch, and on a slow VM only for a debugger
// whose reads never overlapped (as the threads view, askViewAgain).

// valuesReads is what the debugger read of moving values in the epoch
// epoch (a stop at site), in order, each key once, and, by site, at the
// last stop there that read any; again counts the reads asked again
// behind a miss in the epoch.
type valuesReads struct {
	epoch uint64
	site  valuesSite
	keys  []Key
	last  map[valuesSite][]Key
	again int
}

// valuesSite is where a stop is, as far as what a variables view reads
// there goes: its method. The last stop in the same method (a step after
// a breakpoint, the next pass of a loop) most often shows the same this,
// whatever kind of stop it was.
type valuesSite struct {
	class  jdwp.ClassID
	method jdwp.MethodID
}

// maxValuesReads bounds the reads kept of one epoch, maxValuesSites the
// sites kept; maxValuesReadAgain, the times the reads go out again in an
// epoch.
const (
	maxValuesReads     = 32
	maxValuesSites     = 64
	maxValuesReadAgain = 2
)

// movingValues reports whether cmd reads values that the suspension
// serves as moving entries now.
func movingValues(s *Speculator, cmd jdwp.Command) bool {
	return keyable[cmd].values && MovingState(cmd) && s.cfg.consistency == Sequential &&
		s.susp.kind == threadSuspended && s.susp.settled()
}

// roll keeps the reads of the epoch that ended, if any, and starts the
// epoch that goes on.
func (r *valuesReads) roll(s *Speculator) {
	if r.epoch == s.susp.epoch {
		return
	}
	if len(r.keys) > 0 {
		if r.last == nil || len(r.last) >= maxValuesSites {
			r.last = make(map[valuesSite][]Key)
		}
		r.last[r.site] = r.keys
	}
	loc := s.stop.event.loc
	r.epoch, r.keys, r.again = s.susp.epoch, nil, 0
	r.site = valuesSite{class: loc.Class, method: loc.Method}
}

// toAskAgain returns the reads to ask again, in the order the debugger
// makes them: this epoch's so far (it may read them again), then the
// last stop's in this method it has not made yet (it reads them next).
func (r *valuesReads) toAskAgain() []Key {
	keys := slices.Clone(r.keys)
	for _, k := range r.last[r.site] {
		if len(keys) < maxValuesReads && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// noteAgainAsked is FamilyAgain's onAsked: what the debugger asks, to ask
// it again at its next stop (noteAsked), and its reads of moving values.
func noteAgainAsked(s *Speculator, key Key, m jdwp.CommandMessage) {
	noteValuesRead(s, key, m)
	noteAsked(s, key, m)
}

// noteValuesRead follows the debugger's reads of moving values, in order.
func noteValuesRead(s *Speculator, key Key, _ jdwp.CommandMessage) {
	if !movingValues(s, key.Command()) {
		return
	}
	r := &s.valuesRead
	r.roll(s)
	if len(r.keys) < maxValuesReads && !slices.Contains(r.keys, key) {
		r.keys = append(r.keys, key)
	}
}

// askValuesReadAgain follows a read of moving values that nothing
// answered: the values read in the epoch go out again behind it.
func askValuesReadAgain(s *Speculator, m jdwp.CommandMessage, life lifetime) {
	if life != lifetimeSuspension || !movingValues(s, m.Command()) {
		return
	}
	r := &s.valuesRead
	r.roll(s)
	if r.again >= maxValuesReadAgain || s.cost.slow() && s.inflight.readsOverlap {
		return
	}
	r.again++
	for _, key := range r.toAskAgain() {
		if m, err := key.Message(s.sizes); err == nil {
			s.enqueueInOrder(m)
		}
	}
}

// askValuesAgainInOrder is FamilyAgain's onValuesChanged: the values the
// debugger's edit dropped, asked again as it goes out (askValuesAgain),
// and, where they move, on a VM known to be fast, the reads of the epoch
// and the next ones again in the order the debugger makes them: the first
// are in the order of their keys, and each read after the edit that comes
// before one already answered in that order would miss under rule (a).
func askValuesAgainInOrder(s *Speculator, dropped []Key) {
	askValuesAgain(s, dropped)
	if s.cfg.consistency != Sequential || s.susp.kind != threadSuspended || !s.cost.fast() {
		return
	}
	r := &s.valuesRead
	r.roll(s)
	for _, key := range r.toAskAgain() {
		if m, err := key.Message(s.sizes); err == nil {
			s.enqueueInOrder(m)
		}
	}
}

// resetValuesReads forgets the reads (FamilyAgain's onReset).
func resetValuesReads(s *Speculator) { s.valuesRead = valuesReads{} }
