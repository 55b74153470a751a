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
// at its last stop in the same method, go out again in the order it read
// them, each newer than what the miss tells; at most maxValuesReadAgain
// times an epoch, and on a slow VM only for a debugger whose reads never
// overlapped (as the threads view, askViewAgain). A read of an object at
// a path of fields from that stop's this (FamilyAgain's chains) names the
// object at the same path now: a loop's next pass shows another this.
// The stop sends them in that order too (askAgainInOrder), but before the
// new this is known: once it is, and each new array it holds, they go out
// again (askValuesReadOnPath).

// valuesReads is what the debugger read of moving values in the epoch
// epoch (a stop at site), in order, as often as it read each, and, by site, at the
// last stop there that read any; again counts the reads asked again
// behind a miss in the epoch.
type valuesReads struct {
	epoch uint64
	site  valuesSite
	reads []valueRead
	last  map[valuesSite][]valueRead
	again int
	// onPaths counts the times the reads went out again in the epoch as
	// objects on paths from this became known (askValuesReadOnPath).
	onPaths int
}

// valueRead is a read of moving values, and, if it reads an object the
// stop's this leads to, the path of fields from this (pathOf) to it and
// the object's type, if known (0: not).
type valueRead struct {
	key    Key
	path   string
	onPath bool
	typ    jdwp.ReferenceTypeID
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
// epoch behind a miss, and maxValuesOnPaths as objects they read become
// known.
const (
	maxValuesReads     = 32
	maxValuesSites     = 64
	maxValuesReadAgain = 2
	maxValuesOnPaths   = 4
)

// movingValues reports whether cmd reads values that the suspension
// serves as moving entries now.
func movingValues(s *Speculator, cmd jdwp.Command) bool {
	spec := keyable[cmd]
	return spec.values && spec.moving && stateMoves(s) && s.susp.settled()
}

// roll keeps the reads of the epoch that ended, if any, and starts the
// epoch that goes on.
func (r *valuesReads) roll(s *Speculator) {
	if r.epoch == s.susp.epoch {
		return
	}
	if len(r.reads) > 0 {
		if r.last == nil || len(r.last) >= maxValuesSites {
			r.last = make(map[valuesSite][]valueRead)
		}
		r.last[r.site] = r.reads
	}
	loc := s.stop.event.loc
	r.epoch, r.reads, r.again, r.onPaths = s.susp.epoch, nil, 0, 0
	r.site = valuesSite{class: loc.Class, method: loc.Method}
}

// toAskAgain returns the reads to ask again, in the order the debugger
// makes them: this epoch's so far (it may read them again), then those
// the last stop in this method made that this one has not made yet (it
// makes them next), each of an object on a path from this as the object
// on that path now. A read made twice goes out twice: each copy serves
// one.
func (r *valuesReads) toAskAgain(s *Speculator) []jdwp.CommandMessage {
	return r.toAskAgainFrom(s, func(valueRead) bool { return true })
}

// toAskAgainFrom is toAskAgain from the first read that first reports:
// those before it, each already asked in order behind the last state the
// debugger was told, stay where they are.
func (r *valuesReads) toAskAgainFrom(s *Speculator, first func(valueRead) bool) []jdwp.CommandMessage {
	keys := make([]Key, 0, maxValuesReads)
	started := false
	for _, v := range r.reads {
		started = started || first(v)
		if started {
			keys = append(keys, v.key)
		}
	}
	made := make(map[Key]int, len(r.reads))
	for _, v := range r.reads {
		made[v.key]++
	}
	for _, v := range r.last[r.site] {
		k := s.again.now(s, v)
		if made[k] > 0 {
			made[k]-- // made already at this stop
			continue
		}
		started = started || first(v)
		if started {
			keys = append(keys, k)
		}
	}
	msgs := make([]jdwp.CommandMessage, 0, len(keys))
	for _, k := range keys {
		if m, err := k.Message(s.sizes); err == nil {
			msgs = append(msgs, m)
		}
	}
	return msgs
}

// now returns the key of the read v of an earlier stop as it reads the
// object on the same path from this at the current stop, if the log knows
// that object (and, for its fields, that it is of the type v read them
// of); else v's own key.
func (l *againLog) now(s *Speculator, v valueRead) Key {
	if !v.onPath {
		return v.key
	}
	obj := l.objectAt(v.path)
	m, err := v.key.Message(s.sizes)
	if obj == 0 || err != nil {
		return v.key
	}
	switch m := m.(type) {
	case *jdwp.ObjectRefGetValuesCommand:
		// Field ids read of an object of another type are outside the
		// protocol (a VM reads fields by their offsets): the object now
		// must be known to be of the type the fields were read of.
		if typ, ok := s.lookup.objectType(obj); !ok || typ != v.typ || v.typ == 0 {
			return v.key
		}
		m.Object = obj
	case *jdwp.ArrayRefGetValuesCommand:
		m.Array = obj
	default:
		return v.key
	}
	return s.newKey(m)
}

// objectAt returns the current stop's object at path from this (0: not
// known yet).
func (l *againLog) objectAt(path string) jdwp.ObjectID {
	if !l.recording {
		return 0
	}
	if path == "" {
		return l.this
	}
	for obj, at := range l.held {
		if at == path {
			return obj
		}
	}
	return l.guessed[path] // a guess, until a reply shows what is there
}

// noteAgainAsked is FamilyAgain's onAsked: what the debugger asks, to ask
// it again at its next stop (noteAsked), and its reads of moving values.
func noteAgainAsked(s *Speculator, key Key, m jdwp.CommandMessage) {
	noteValuesRead(s, key, m)
	noteAsked(s, key, m)
}

// noteValuesRead follows the debugger's reads of moving values, in order.
func noteValuesRead(s *Speculator, key Key, m jdwp.CommandMessage) {
	if !movingValues(s, key.Command()) {
		return
	}
	r := &s.valuesRead
	r.roll(s)
	if len(r.reads) >= maxValuesReads {
		return
	}
	if m == nil {
		m, _ = key.Message(s.sizes)
	}
	obj := objectOf(m)
	path, onPath := s.again.pathOf(obj)
	typ, _ := s.lookup.objectType(obj)
	r.reads = append(r.reads, valueRead{key: key, path: path, onPath: onPath, typ: typ})
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
	for _, m := range r.toAskAgain(s) {
		enqueueReadInOrder(s, m)
	}
}

// askAgainInOrder is FamilyAgain's onStop: what the debugger asked at its
// recent stops (askAgain), and, where values move, on a VM known to be
// fast, the values it read at its last stop in this method, again in the
// order it read them: askAgain's go out in its own order, and each read
// that comes before one already answered, in the order the replies came,
// would miss under rule (a).
func askAgainInOrder(s *Speculator, stop stopEvent) {
	askAgain(s, stop)
	askThisOfTakenUp(s)
	askValuesReadInOrder(s)
}

// askThisOfTakenUp makes, at a parked stop taken up again (takeup.go),
// its top frame's this the stop's, from the cached ThisObject reply, and
// asks its fields as at its own stop: they may have moved since. Its type
// is asked first if unknown (the ThisObject reply came once another stop
// had superseded this one): its reply asks the fields (onThisType).
func askThisOfTakenUp(s *Speculator) {
	top := s.stop.top
	if !s.stop.takenUp || !top.set || !s.again.recording {
		return
	}
	var this jdwp.TaggedObjectReply
	if !s.lookup.reply(&jdwp.FrameThisObjectCommand{Thread: top.thread, Frame: top.frame}, &this) || this.Object.ID == 0 {
		return
	}
	s.again.this = this.Object.ID
	if _, ok := s.lookup.objectType(this.Object.ID); !ok {
		s.enqueue(&jdwp.ObjectRefReferenceTypeCommand{Object: this.Object.ID}, true)
	}
	askFieldsOf(s, this.Object.ID)
}

// askValuesAgainInOrder is FamilyAgain's onValuesChanged: where values
// move, on a VM known to be fast, the reads of the epoch and the next ones
// go out again first, in the order the debugger makes them; then the
// values the edit dropped (askValuesAgain), in the order of their keys,
// those already queued staying where they are.
func askValuesAgainInOrder(s *Speculator, dropped []Key) {
	askValuesReadInOrder(s)
	askValuesAgain(s, dropped)
}

// askValuesReadInOrder queues, where values move and the VM is known to be
// fast, the reads of the epoch and those made next at the last stop in
// its method, in the order the debugger makes them (toAskAgain).
func askValuesReadInOrder(s *Speculator) {
	askValuesReadInOrderFrom(s, func(valueRead) bool { return true })
}

// askValuesReadInOrderFrom is askValuesReadInOrder from the first read
// that first reports (toAskAgainFrom).
func askValuesReadInOrderFrom(s *Speculator, first func(valueRead) bool) {
	if !stateMoves(s) || !s.cost.fast() {
		return
	}
	r := &s.valuesRead
	r.roll(s)
	for _, m := range r.toAskAgainFrom(s, first) {
		enqueueReadInOrder(s, m)
	}
}

// askValuesReadOnPath queues the reads of askValuesReadInOrder again once
// the object at path from the stop's this is known ("": this, its type
// known and its fields gone out), if the last stop in this method read
// one there; at most maxValuesOnPaths times an epoch. At the stop those
// reads went out as reads of the objects of the last stop; now they go out
// of the object there now, behind the read that showed it, which the
// debugger makes before them: from the first read of an object there on
// (those before it went out in order already, and read no object there).
func askValuesReadOnPath(s *Speculator, path string) {
	r := &s.valuesRead
	r.roll(s)
	there := func(v valueRead) bool { return v.onPath && v.path == path }
	if r.onPaths >= maxValuesOnPaths || !slices.ContainsFunc(r.last[r.site], there) || !stateMoves(s) || !s.cost.fast() {
		return
	}
	r.onPaths++
	askValuesReadInOrderFrom(s, there)
}

// resetValuesReads forgets the reads (FamilyAgain's onReset).
func resetValuesReads(s *Speculator) { s.valuesRead = valuesReads{} }
