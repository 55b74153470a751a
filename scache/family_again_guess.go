package scache

import "github.com/jdwpscache/scache/jdwp"

// Guessed object ids. A method called on one object after another stops
// on a new `this` each time, and the debugger's first question about it,
// its type (ObjectReference.ReferenceType), can only be asked once the VM
// said which object it is: a round trip after the stop's own. But VMs hand
// out object ids in order (OpenJDK's JDWP agent, which ART also uses, gives
// each object it shows a debugger the next number of a counter), and a loop
// shows the debugger the same number of new objects from one stop to the
// next. So the Speculator learns, per class and kind of stop, how far apart
// the `this` of successive stops are, and at a stop asks the type of the
// object that distance after the last one, and of the object right after
// the newest it has seen named (a round that showed only objects it read),
// right behind the ThisObject that will give it its id (the agent answers
// commands one after another, in order). Once two stops in a row found
// neither guess right, it guesses there again only after one would have
// been. Likewise, once it asks the fields of `this`, it asks, right
// behind them, for the type, string value or length of the objects that
// stood as far after the last stop's `this` as its new field values did.
//
// Only commands that are correct whatever object an id names are sent on a
// guess: an object's type, a string's value, an array's length (the agent
// checks the object is a string or an array). The fields of an object are
// asked only once its type is known to be the one they were asked of: a
// VM reads fields by their offsets, and another class's field ids on an
// object are outside the protocol. A guess is keyed like any command, so
// its reply answers only a debugger command with the same bytes, about
// the object the id names by then: a wrong guess costs only waste. An
// error reply to a command about an object (the id given out only after
// the command was answered) is not kept and answers no one (see
// namesObject).

// idHistory is what the Speculator knows of the object at one site (the
// `this` of the stops of one kind in one class, a variable at a code
// location) from one stop to the next.
type idHistory struct {
	last  jdwp.ObjectID // the object at the last such stop
	delta uint64        // last minus the one before it: 0 once only one was seen
	// guesses are the guesses for the current stop; misses counts the
	// stops in a row where none was right.
	guesses [2]jdwp.ObjectID
	misses  int
	// observedAt is the stop (againLog.stops) the object was last noted at.
	observedAt int
}

// observe notes the object at the site at stop, once: a second reply that
// tells it at the same stop (speculation's and the debugger's own) is not
// a stop of its own.
func (h *idHistory) observe(id jdwp.ObjectID, stop int) {
	if h.observedAt == stop {
		return
	}
	h.observedAt = stop
	if h.last != 0 {
		h.delta = uint64(id) - uint64(h.last)
	}
	switch {
	case h.guesses == [2]jdwp.ObjectID{}:
	case id == h.guesses[0] || id == h.guesses[1]:
		h.misses = 0
	default:
		h.misses++
	}
	h.last, h.guesses = id, [2]jdwp.ObjectID{}
}

// guess returns the guesses for the current stop: the object the learned
// distance after the last, and (when that distance is not 0 and newest is
// not older than the last) the one after newest. It records them, for
// observe to tell whether one was right, and returns none while paused.
func (h *idHistory) guess(newest jdwp.ObjectID, mask uint64) [2]jdwp.ObjectID {
	if h.last == 0 {
		return [2]jdwp.ObjectID{}
	}
	h.guesses = [2]jdwp.ObjectID{jdwp.ObjectID((uint64(h.last) + h.delta) & mask)}
	if newest >= h.last && h.delta != 0 {
		h.guesses[1] = jdwp.ObjectID((uint64(newest) + 1) & mask)
	}
	if h.misses >= maxThisMisses {
		return [2]jdwp.ObjectID{} // paused: observe still tells whether these were right
	}
	return h.guesses
}

// maxThisMisses is how many stops in a row may find no guess right before
// guessing pauses at a site.
const maxThisMisses = 2

// thisSite is a class and a kind of stop (a breakpoint, a step).
type thisSite struct {
	class jdwp.ReferenceTypeID
	kind  stopKind
}

// guessThis asks, at a stop whose top frame's ThisObject went out with the
// event, for the type of the object the learned distance after the last
// stop's `this` of the same kind in the same class, and (when that distance
// is not 0) of the object after the newest one seen; and for the fields of
// either whose type is known already (the same object again).
func guessThis(s *Speculator, stop stopEvent) {
	g := &s.guesses
	if !s.stop.top.set || !s.stop.top.predicted || !s.stop.top.thisDone {
		return // no ThisObject ahead of a guess: its id would not be given out yet
	}
	if stop.kind == stopStep && g.lastThis != 0 && g.lastThread == stop.thread && g.lastClass == stop.loc.Class {
		// A step in the class of the last stop in this thread: mostly the
		// same frame (a step over), whose this it was.
		askFieldsOf(s, g.lastThis)
	}
	h := g.thisSeen[thisSite{stop.loc.Class, stop.kind}]
	if h == nil {
		return
	}
	for _, guess := range h.guess(g.newest, idMask(s.sizes.ObjectID)) {
		if guess != 0 {
			s.enqueue(&jdwp.ObjectRefReferenceTypeCommand{Object: guess}, true)
			askFieldsOf(s, guess)
		}
	}
}

// idGuesses is what the ids of objects seen at the last stops tell of the
// next stop's: the guessing state, kept apart from what the debugger asked
// (againLog) which decides what is asked of a guess.
type idGuesses struct {
	// thisSeen holds, by class and kind of stop, the `this` of the last
	// stops there.
	thisSeen map[thisSite]*idHistory
	// localsSeen holds, by code location and slot, the objects of the
	// variables of the last stops there (family_again_guess_locals.go).
	localsSeen map[localSite]*localHistory
	// newest is the highest object or type id a reply read named.
	newest jdwp.ObjectID
	// lastThis is the `this` of the last stop whose top frame told it, in
	// thread lastThread at class lastClass: a step mostly stays in the
	// frame it started from (step over), and that frame's this with it.
	lastThis   jdwp.ObjectID
	lastThread jdwp.ThreadID
	lastClass  jdwp.ReferenceTypeID
}

// sawThis notes the `this` of a stop of thread at a location in class.
func (g *idGuesses) sawThis(this jdwp.ObjectID, thread jdwp.ThreadID, class jdwp.ReferenceTypeID) {
	g.lastThis, g.lastThread, g.lastClass = this, thread, class
}

// sawID notes an object or type id a reply named.
func (g *idGuesses) sawID(id jdwp.ObjectID) {
	if id > g.newest {
		g.newest = id
	}
}

// observeThis notes the `this` of the current stop (the stop-th), at a
// site, once a ThisObject reply of its top frame told it.
func (g *idGuesses) observeThis(this jdwp.ObjectID, site thisSite, stop int) {
	if h := boundedEntry(&g.thisSeen, site, maxThis); h != nil {
		h.observe(this, stop)
	}
}

// askFieldsOf asks for the fields of obj the debugger asked of `this` at
// the recent stops of the current stop's kind in its class when this was
// of obj's type, once that type is known; and, right behind them, for what
// the debugger will ask of their values: for each value that was an object
// newer than the `this` it was read from, the object as much newer than
// obj (its facts, and an array's elements the debugger read at its path).
func askFieldsOf(s *Speculator, obj jdwp.ObjectID) {
	l := &s.again
	if obj == 0 {
		return
	}
	typ, ok := s.lookup.objectType(obj)
	if !ok {
		return // its type's reply will call again
	}
	if obj == l.this {
		// Known before the fields' reply, even when they went out on a
		// guess: the chains from this follow from its type.
		l.thisType = typ
	}
	if obj == l.fieldsAsked {
		return
	}
	e := l.thisFields[l.thisKindOf(typ)]
	if e == nil {
		return
	}
	l.fieldsAsked = obj
	for _, a := range e.asks {
		s.enqueue(&jdwp.ObjectRefGetValuesCommand{Object: obj, Fields: a.fields}, true)
	}
	mask := idMask(s.sizes.ObjectID)
	for _, a := range e.asks {
		if a.valuesOf == 0 {
			continue
		}
		// The same object read before (a stop taken up again in a new
		// epoch: takeup.go) most often holds what it held then.
		same := obj == a.valuesOf
		for i, v := range a.values {
			if !v.Tag.IsObject() || v.ObjectID() == 0 || !same && v.ObjectID() <= a.valuesOf {
				continue
			}
			guess := v.ObjectID()
			if !same {
				guess = jdwp.ObjectID((uint64(obj) + uint64(v.ObjectID()) - uint64(a.valuesOf)) & mask)
			}
			enqueueValueFacts(s, v.Tag, guess)
			if v.Tag == jdwp.TagArray && i < len(a.fields) {
				// Right whatever the id names: the agent checks it is an array.
				at := pathThrough("", a.fields[i])
				readArrayAt(s, l.thisKindOf(typ), at, guess)
				if obj == l.this {
					guessAt(l, at, guess)
				}
			}
		}
	}
	if obj == l.this {
		// Behind this's fields, and of the objects guessed on its paths
		// (family_again_moving.go).
		askValuesReadOnPath(s, "")
	}
}

// guessAt notes obj as the guess of what this holds at path: the reads in
// order (family_again_moving.go) go out of it until a reply shows the
// object there.
func guessAt(l *againLog, path string, obj jdwp.ObjectID) {
	if l.guessed == nil {
		l.guessed = make(map[string]jdwp.ObjectID)
	}
	if len(l.guessed) < maxHeld {
		l.guessed[path] = obj
	}
}

// onThisType goes on with the fields of the current stop's `this`, or of
// an object it holds, when the reply that tells its type arrives.
func onThisType(s *Speculator, p *inFlight, reply *replyData) error {
	l := &s.again
	m, err := reply.typed(s)
	if err != nil {
		return err
	}
	s.guesses.sawID(jdwp.ObjectID(m.(*jdwp.ObjectRefReferenceTypeReply).TypeID))
	if l.recording && p.object == l.this {
		askFieldsOf(s, l.this)
	}
	if path, ok := l.held[p.object]; ok && l.recording && l.thisType != 0 {
		askHeld(s, l.thisKindOf(l.thisType), path, p.object)
		askValuesReadOnPath(s, path)
	}
	return nil
}

// onThisValues notes the values of the fields of the current stop's
// `this` that the debugger asks at its stops in this class, and follows
// the objects the fields of this (and of the objects it holds) hold
// (family_again_chains.go).
func onThisValues(s *Speculator, p *inFlight, reply *replyData) error {
	l := &s.again
	if !l.recording || l.this == 0 {
		return nil
	}
	cmd, err := p.key.Message(s.sizes)
	asked, ok := cmd.(*jdwp.ObjectRefGetValuesCommand)
	if err != nil || !ok {
		return nil
	}
	path, ok := l.pathOf(asked.Object)
	if !ok {
		return nil
	}
	m, err := reply.typed(s)
	if err != nil {
		return err
	}
	values := m.(*jdwp.ValuesReply).Values
	if asked.Object == l.this {
		if e := l.thisFields[l.thisKindOf(l.thisType)]; e != nil {
			if a := e.ask(asked.Fields); a != nil {
				a.values = append(a.values[:0], values...)
				a.valuesOf = l.this
			}
		}
	}
	followChain(s, path, asked.Fields, values)
	return nil
}
