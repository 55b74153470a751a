package scache

import (
	"slices"

	"github.com/jdwpscache/scache/jdwp"
)

// Asking again what the debugger asked at its last stops. A debugger's
// views ask, at every stop, much that no reply of the stop leads to: an
// expanded `this` (ObjectReference.GetValues of its fields), a class's
// statics (ReferenceType.GetValues), a watched object, another thread. The
// commands are the same bytes from stop to stop, so the Speculator keeps
// the state commands the debugger asked at the recent stops of each kind
// (breakpoint, step) and sends them again at the next stop of that kind,
// with the frames. A command is forgotten once againIdle stops of its kind
// went by without the debugger asking it; one it asks at every other stop
// (a step out of the method whose `this` it expands) is kept.
//
// Commands that name a frame are left out: frame ids change at every
// resume, and FamilyTopFrame asks the top frame's under its new id. A
// thread's command asked of the stopped thread is kept as asked of
// whichever thread stopped (stoppedThread): the next stop may be in
// another thread, and its debugger asks the same of that one.
//
// The fields of `this` are kept apart, by the class of the stop's location
// and the kind of stop (jdb dumps this at breakpoints only): most stops in
// a method find it on another object (a loop calling it on one object
// after another), and the debugger asks the same fields of the new one. They go out as soon as the top frame's this is known and its
// type is the type of the object they were asked of (see family_again_guess.go).

const (
	againIdle   = 2   // stops of its kind without the debugger asking it, and a command is forgotten
	maxAgain    = 64  // commands remembered per kind of stop
	maxThis     = 256 // classes whose this's fields are remembered
	maxThisAsks = 32  // GetValues of this remembered per class (jdb asks one per field)
)

// againLog holds the commands to ask again, per kind of stop, and per
// method invoked at a kind of stop (what a debugger asks after a renderer's
// toString differs from what it asks after size()).
type againLog struct {
	kinds   [numStopKinds]againKind
	invoked map[invokedSite]*againKind
	// stop is the current stop (stop.go), read only: its thread, class
	// and kind stay the stop's through the invocations made in it.
	stop *stopState
	// recording: what the debugger asks is recorded, in current: the
	// stop's kind, or after an invocation the invoked method's.
	recording bool
	current   *againKind
	// calls holds, by the id of an invocation sent while recording, what
	// the log knew of the stop: the recording goes on at its reply.
	calls map[uint32]callContext
	// thisFields holds, by the class of a stop's location, the type of its
	// this and the kind of stop, the fields of this the debugger asked at
	// its recent such stops.
	thisFields map[thisKind]*thisFields
	// chains holds, by a path of fields from this at a kind of stop and
	// the type of the object there, the fields the debugger asked of it
	// (family_again_chains.go); held, the objects of the current stop
	// whose path from this a reply showed.
	chains map[heldKind]*thisFields
	held   map[jdwp.ObjectID]string
	// guessed holds, by path from this, the object askFieldsOf guessed
	// there before a reply showed it (family_again_guess.go): the reads
	// the debugger makes there go out of it, in their order, at once.
	guessed map[string]jdwp.ObjectID
	// arrays holds, by a path of fields from this at a kind of stop, the
	// ranges the debugger read of the array there (family_again_arrays.go).
	arrays map[chainKind]*arrayRanges
	// this is the top frame's this once a ThisObject reply of the stop
	// told it (0: not yet) and thisType its type once known; fieldsAsked,
	// the object whose fields were asked at the stop.
	this        jdwp.ObjectID
	thisType    jdwp.ReferenceTypeID
	fieldsAsked jdwp.ObjectID
	// askedAtStop: the debugger asked something while recording. A stop
	// whose thread is still parked at its event when it closes
	// (Speculator.stopUnseen) ages all the same if the debugger read it:
	// workers that queue their stops leave every stop read parked behind
	// a newer event.
	askedAtStop bool
}

// invokedSite is a method invoked at a kind of stop.
type invokedSite struct {
	method jdwp.MethodID
	kind   stopKind
}

// maxInvoked bounds the methods whose follow-ups are remembered.
const maxInvoked = 64

// callContext is what the log knew of the stop when the debugger sent an
// invocation while recording: the thread stands where it stood once the
// invocation returns, and this is the same object.
type callContext struct {
	this     jdwp.ObjectID
	thisType jdwp.ReferenceTypeID
}

// invoking keeps what the log knows of the stop for the reply to the
// invocation id, if it records the stop.
func (l *againLog) invoking(id uint32) {
	if !l.recording {
		return
	}
	if len(l.calls) >= maxInvoked {
		clear(l.calls) // replies that never came (failed invocations)
	}
	if l.calls == nil {
		l.calls = make(map[uint32]callContext)
	}
	l.calls[id] = callContext{this: l.this, thisType: l.thisType}
}

// class and kind are those of the current stop: the class of its location
// and the kind of stop.
func (l *againLog) class() jdwp.ReferenceTypeID { return l.stop.event.loc.Class }
func (l *againLog) kind() stopKind              { return l.stop.event.kind }

// thisKind is the class of a stop's location, the type of its this and
// the kind of stop: jdb dumps this at breakpoints, not at steps.
type thisKind struct {
	class, typ jdwp.ReferenceTypeID
	kind       stopKind
}

// thisKindOf returns the kind of the current stop with this of type typ.
func (l *againLog) thisKindOf(typ jdwp.ReferenceTypeID) thisKind {
	return thisKind{l.class(), typ, l.kind()}
}

// thisFields are the fields of this the debugger asks at stops in a class
// when this is of a type: one ObjectReference.GetValues of them all (JDI
// IDEs) or one per field (jdb's dump), in the order asked.
type thisFields struct {
	asks []*fieldsAsk
}

// fieldsAsk is one ObjectReference.GetValues the debugger asks of this.
type fieldsAsk struct {
	fields []jdwp.FieldID
	// values are the fields' values at the last stop, read from valuesOf.
	values   []jdwp.Value
	valuesOf jdwp.ObjectID
	recency
}

// ask returns the ask of the given fields, if remembered.
func (e *thisFields) ask(fields []jdwp.FieldID) *fieldsAsk {
	for _, a := range e.asks {
		if slices.Equal(a.fields, fields) {
			return a
		}
	}
	return nil
}

// age closes a stop for the asks and reports whether any is still kept.
func (e *thisFields) age() bool {
	e.asks = aged(e.asks, func(a **fieldsAsk) bool { return (*a).age() })
	return len(e.asks) > 0
}

// aged closes a stop for each entry of list (age reports whether it is
// still kept) and returns those kept, in order, in list's storage.
func aged[T any](list []T, age func(*T) bool) []T {
	kept := list[:0]
	for i := range list {
		if age(&list[i]) {
			kept = append(kept, list[i])
		}
	}
	clear(list[len(kept):])
	return kept
}

// boundedEntry returns (*m)[k], made (with the map) when absent, unless the
// map holds limit entries already: then nil.
func boundedEntry[K comparable, V any](m *map[K]*V, k K, limit int) *V {
	if v := (*m)[k]; v != nil {
		return v
	}
	if len(*m) >= limit {
		return nil
	}
	if *m == nil {
		*m = make(map[K]*V)
	}
	v := new(V)
	(*m)[k] = v
	return v
}

// recency is how recently the debugger asked something: kept while it was
// asked at one of the last againIdle stops where it could have been.
type recency struct {
	idle  int  // such stops since the debugger last asked it
	asked bool // at the current stop
}

// age closes a stop for it and reports whether it is still kept.
func (r *recency) age() bool {
	if r.asked {
		r.idle, r.asked = 0, false
	} else {
		r.idle++
	}
	return r.idle < againIdle
}

// againKind holds the commands of one kind of stop, oldest first, and
// aged, the sequence number (plus one) of the last stop it aged at: a
// stop read in parts (another thread's event came between them, and it
// was taken up again: takeup.go) ages once.
type againKind struct {
	keys  []againEntry
	index map[Key]int // position in keys
	aged  uint64
}

type againEntry struct {
	key Key
	recency
}

// againCommands are the commands FamilyAgain may send: the state commands
// that name no frame, and what it asks of guessed objects (family_again_guess.go).
func againCommands() []jdwp.Command {
	cmds := []jdwp.Command{jdwp.CmdObjectReferenceReferenceType, jdwp.CmdStringReferenceValue, jdwp.CmdArrayReferenceLength}
	for cmd, spec := range keyable {
		if spec.life == lifetimeSuspension && cmd.Set != jdwp.SetStackFrame {
			cmds = append(cmds, cmd)
		}
	}
	return cmds
}

// askAgain queues, at a stop, the commands the debugger asked at the
// recent stops of the same kind, oldest first, where the suspension lets
// their replies be cached.
func askAgain(s *Speculator, stop stopEvent) {
	s.guesses.sawID(jdwp.ObjectID(stop.loc.Class))
	s.again.beginStop()
	enqueueAgain(s, s.again.current, stop.thread)
	guessThis(s, stop)
}

// enqueueAgain queues the commands of kind k about thread t, oldest first,
// where the suspension lets their replies be cached.
func enqueueAgain(s *Speculator, k *againKind, t jdwp.ThreadID) {
	for _, e := range k.keys {
		key := e.key.ofThread(t, s.sizes)
		m, err := key.Message(s.sizes)
		if err != nil {
			continue
		}
		if sub, ok := s.admit(m, true); ok {
			s.enqueueKey(key, m, sub, false)
		}
	}
}

// askAgainAfterInvocation queues, at the reply to the invocation id of a
// method at a stop the log recorded, once its thread is back where it
// stood, what the debugger asked after invoking that method at its recent
// stops of the same kind (an IDE's threads view behind its renderers), and
// the fields of this it asks at such stops (toString may have changed
// them); then it records what the debugger asks now as that method's
// follow-ups.
func askAgainAfterInvocation(s *Speculator, id uint32) {
	l := &s.again
	ctx, recorded := l.calls[id]
	delete(l.calls, id)
	call := s.stop.invoked
	if !recorded || call.back.thread == 0 || !l.beginInvoked(call.method, ctx) {
		return
	}
	enqueueAgain(s, l.current, s.stop.event.thread)
	askFieldsOf(s, l.this)
}

// askAgainBehindPop asks, right behind the debugger's PopFrames, what it
// asked after its last pops at this kind of stop (an invocation of no
// method: askAgainAfterInvocation asks them again at the reply, and
// records them): the agent reads them once the frames are popped, so they
// are back in the pop's own round trip (behind.go).
func askAgainBehindPop(s *Speculator, cmd jdwp.Command, back stopEvent) {
	if cmd != jdwp.CmdStackFramePopFrames || back.thread == 0 {
		return
	}
	k := s.again.invoked[invokedSite{0, s.again.kind()}]
	if k == nil {
		return
	}
	for _, e := range k.keys {
		if m, err := e.key.ofThread(back.thread, s.sizes).Message(s.sizes); err == nil {
			enqueueBehind(s, m)
		}
	}
}

// sawFrames notes the classes of a Frames reply's frames as ids seen at
// the stop (family_again_guess.go).
func sawFrames(s *Speculator, _ *inFlight, reply *replyData) error {
	m, err := reply.typed(s)
	if err != nil {
		return err
	}
	for _, f := range m.(*jdwp.ThreadFramesReply).Frames {
		s.guesses.sawID(jdwp.ObjectID(f.Location.Class))
	}
	return nil
}

// askThisFields notes, when a ThisObject reply tells the top frame's this
// at a stop, which object it is, and asks for the fields of this the
// debugger asked at its recent stops of the same kind in the same class
// (once its type is known).
func askThisFields(s *Speculator, p *inFlight, reply *replyData) error {
	l := &s.again
	if !l.recording || !s.stop.top.set {
		return nil
	}
	m, err := reply.typed(s)
	if err != nil {
		return err
	}
	this := m.(*jdwp.TaggedObjectReply).Object.ID
	cmd, err := p.key.Message(s.sizes)
	asked, ok := cmd.(*jdwp.FrameThisObjectCommand)
	if err != nil || !ok || asked.Thread != s.stop.top.thread || asked.Frame != s.stop.top.frame || this == 0 {
		return nil
	}
	l.this = this
	s.guesses.observeThis(this, thisSite{l.class(), l.kind()}, s.stop.stops())
	s.guesses.sawThis(this, asked.Thread, l.class())
	askFieldsOf(s, this)
	return nil
}

// noteAsked records a state command the debugger asked (whether answered
// from speculation or not) during the current stop, with its parameters:
// the fields of the stop's this apart, by its class.
func noteAsked(s *Speculator, key Key, m jdwp.CommandMessage) {
	l := &s.again
	l.askedAtStop = l.askedAtStop || l.recording
	if m, ok := m.(*jdwp.ObjectRefGetValuesCommand); ok && l.recording && l.this != 0 {
		if m.Object == l.this {
			if typ, ok := s.lookup.objectType(m.Object); ok {
				l.thisType = typ
				l.noteThisFields(m)
			}
			return
		}
		if path, ok := l.held[m.Object]; ok {
			if typ, ok := s.lookup.objectType(m.Object); ok {
				l.noteChainFields(path, typ, m)
			}
			return
		}
	}
	if m, ok := m.(*jdwp.ArrayRefGetValuesCommand); ok && l.recording && l.this != 0 {
		if path, ok := l.held[m.Array]; ok {
			l.noteArrayRange(s, path, m)
			return
		}
	}
	if t, ok := key.thread(s.sizes); ok && t == stoppedThread {
		return // thread 0 is no thread: kept as a stop's own it would mean another
	}
	l.noteKey(key.ofStoppedThread(l.stop.event.thread, s.sizes))
}

// noteThisFields records the fields of an ObjectReference.GetValues the
// debugger asked of the current stop's this, whose type is known.
func (l *againLog) noteThisFields(m *jdwp.ObjectRefGetValuesCommand) {
	if l.class() == 0 {
		return
	}
	if e := boundedEntry(&l.thisFields, l.thisKindOf(l.thisType), maxThis); e != nil {
		e.note(m.Fields)
	}
}

// note marks the ask of fields as asked at the current stop, remembering
// it if new (up to maxThisAsks).
func (e *thisFields) note(fields []jdwp.FieldID) {
	a := e.ask(fields)
	if a == nil {
		if len(e.asks) >= maxThisAsks {
			return
		}
		a = &fieldsAsk{fields: append([]jdwp.FieldID(nil), fields...)}
		e.asks = append(e.asks, a)
	}
	a.asked = true
}

// noteKey records the key of a state command the debugger asked during the
// current stop, unless it names a frame.
func (l *againLog) noteKey(key Key) {
	if !l.recording || key.Command().Set == jdwp.SetStackFrame {
		return
	}
	k := l.current
	if i, ok := k.index[key]; ok {
		k.keys[i].asked = true
		return
	}
	if len(k.keys) >= maxAgain {
		return // full: a new command waits until older ones are forgotten
	}
	if k.index == nil {
		k.index = make(map[Key]int)
	}
	k.index[key] = len(k.keys)
	k.keys = append(k.keys, againEntry{key: key, recency: recency{asked: true}})
}

// beginStop starts recording the current stop.
func (l *againLog) beginStop() {
	l.endStop(false)
	l.recording = true
	l.current = &l.kinds[l.kind()]
}

// beginInvoked starts recording what the debugger asks after an
// invocation of method at the stop of ctx, and reports whether it did (the
// methods remembered are bounded).
func (l *againLog) beginInvoked(method jdwp.MethodID, ctx callContext) bool {
	l.endStop(false)
	k := boundedEntry(&l.invoked, invokedSite{method, l.kind()}, maxInvoked)
	if k == nil {
		return false
	}
	l.recording, l.current = true, k
	l.this, l.thisType = ctx.this, ctx.thisType
	return true
}

// endStop closes the current stop, if any: what its debugger did not ask
// ages, and what went idle too long is forgotten, once a stop. Nothing ages
// at a stop unseen (its thread parked: the debugger may not have looked at
// it yet) where the debugger asked nothing.
func (l *againLog) endStop(unseen bool) {
	if !l.recording {
		return
	}
	l.recording = false
	if (!unseen || l.askedAtStop) && l.current.aged != l.stop.seq+1 {
		l.current.aged = l.stop.seq + 1
		l.ageStop()
	}
	l.askedAtStop = false
	clear(l.held)
	clear(l.guessed)
	l.this, l.thisType, l.fieldsAsked = 0, 0, 0
}

// ageStop ages what the debugger did not ask at the stop that ends, and
// forgets what went idle too long.
func (l *againLog) ageStop() {
	// Only the fields of this's type could have been asked at the stop.
	// They age once a stop: what the debugger asked of this after an
	// invocation counts for the stop it was asked at.
	kind := l.thisKindOf(l.thisType)
	if l.current == &l.kinds[l.kind()] {
		if e := l.thisFields[kind]; e != nil && !e.age() {
			delete(l.thisFields, kind)
		}
		l.ageChains(kind)
		l.ageArrays(kind)
	}
	k := l.current
	k.keys = aged(k.keys, func(e *againEntry) bool { return e.age() })
	clear(k.index)
	for i, e := range k.keys {
		k.index[e.key] = i
	}
}

// reset forgets everything: the ids in the keys may mean nothing any more.
func (l *againLog) reset() { *l = againLog{stop: l.stop} }

// endAgainStop closes the stop's recording (onEndStop).
func endAgainStop(s *Speculator, unseen bool) { s.again.endStop(unseen) }

// noteInvoking keeps what the log knows of the stop for the reply to the
// invocation id (onInvoking).
func noteInvoking(s *Speculator, id uint32) { s.again.invoking(id) }

// resetAgain forgets what the debugger asked and the ids seen: they may
// mean nothing any more (onReset).
func resetAgain(s *Speculator) {
	s.again.reset()
	s.guesses = idGuesses{}
	resetValuesReads(s)
}
