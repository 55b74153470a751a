package scache

import "github.com/jdwpscache/scache/jdwp"

// The queue of speculation. A family's handler asks for a command with
// enqueue (a typed message: the queue finds its key and what it is about)
// or, for a command it kept by key, enqueueKey; admit is the one gate that
// decides whether it may be queued now, by asking four owners: the queue
// (is it open), the suspension (may the reply be cached, is it moving), the
// learner (does the debugger use it) and the cost model (does it pay).
// pump sends what is queued, urgent first, while the in-flight bound
// allows: synthetic commands get ids from FirstSyntheticID, and each is
// announced in the Response's speculated list (for a split proxy's near
// half).
//
// queueState owns the speculation waiting to go out: the queued commands,
// urgent first, how many copies of each key, and the next synthetic id. Only its
// methods below change them; the gate that fills it (admit, enqueue) and
// the pump that empties it are the Speculator's, further down.
type queueState struct {
	urgent  []queued    // state commands of the stop, sent first
	waiting []queued    // the others, sent as in-flight slots free up
	keys    map[Key]int // how many copies of each key are queued
	nextID  uint32      // the next synthetic id to try
	max     int         // the most commands queued at once
	// shut: nothing is queued any more (the session ends) or ever (a
	// follower: a far half speculates only what its near half sends).
	shut bool
}

func newQueue(max int, shut bool) queueState {
	return queueState{keys: make(map[Key]int), nextID: FirstSyntheticID, max: max, shut: shut}
}

// closed reports whether nothing may be queued now: the queue is shut or full.
func (q *queueState) closed() bool {
	return q.shut || len(q.waiting)+len(q.urgent) >= q.max
}

// pending reports whether any command is queued.
func (q *queueState) pending() bool { return len(q.urgent)+len(q.waiting) > 0 }

// has reports whether a command with key is queued.
func (q *queueState) has(key Key) bool {
	return q.keys[key] > 0
}

// push queues c, urgent or not.
func (q *queueState) push(c queued, urgent bool) {
	q.keys[c.key]++
	if urgent {
		q.urgent = append(q.urgent, c)
	} else {
		q.waiting = append(q.waiting, c)
	}
}

// drain hands the queued commands to send, urgent first and each list in
// order, while room reports room for one more, and removes those handed.
func (q *queueState) drain(room func() bool, send func(queued)) {
	q.urgent = q.drainList(q.urgent, room, send)
	q.waiting = q.drainList(q.waiting, room, send)
}

func (q *queueState) drainList(list []queued, room func() bool, send func(queued)) []queued {
	sent := 0
	for len(list) > sent && room() {
		c := list[sent]
		sent++
		q.forget(c.key)
		send(c)
	}
	n := copy(list, list[sent:])
	clear(list[n:])
	return list[:n]
}

// each calls f for every queued command.
func (q *queueState) each(f func(queued)) {
	for _, list := range [][]queued{q.urgent, q.waiting} {
		for _, c := range list {
			f(c)
		}
	}
}

// dropWhere removes the queued commands for which drop is true.
func (q *queueState) dropWhere(drop func(queued) bool) {
	q.waiting = q.dropFrom(q.waiting, drop)
	q.urgent = q.dropFrom(q.urgent, drop)
}

func (q *queueState) dropFrom(list []queued, drop func(queued) bool) []queued {
	kept := list[:0]
	for _, c := range list {
		if drop(c) {
			q.forget(c.key)
			continue
		}
		kept = append(kept, c)
	}
	clear(list[len(kept):])
	return kept
}

// dropFirst removes the first queued command with key, if any, and reports
// whether it did.
func (q *queueState) dropFirst(key Key) bool {
	if !q.has(key) {
		return false // the common case, without a walk of the queue
	}
	dropped := false
	drop := func(c queued) bool {
		if dropped || c.key != key {
			return false
		}
		dropped = true
		return true
	}
	q.urgent = q.dropFrom(q.urgent, drop)
	q.waiting = q.dropFrom(q.waiting, drop)
	return dropped
}

// forget counts one queued copy of key less.
func (q *queueState) forget(key Key) {
	if q.keys[key]--; q.keys[key] <= 0 {
		delete(q.keys, key)
	}
}

// empty drops every queued command.
func (q *queueState) empty() {
	q.waiting, q.urgent = nil, nil
	clear(q.keys)
}

// shutDown drops every queued command and queues nothing more.
func (q *queueState) shutDown() {
	q.empty()
	q.shut = true
}

// syntheticID returns the next id of the synthetic range that busy does
// not report in flight, wrapping at the end of the range.
func (q *queueState) syntheticID(busy func(uint32) bool) uint32 {
	for {
		id := q.nextID
		if q.nextID == LastSyntheticID {
			q.nextID = FirstSyntheticID
		} else {
			q.nextID++
		}
		if !busy(id) {
			return id
		}
	}
}

// enqueueClass queues a class metadata command about class, or about one of
// its methods when method is not 0.
func (s *Speculator) enqueueClass(cmd jdwp.Command, class jdwp.ReferenceTypeID, method jdwp.MethodID, urgent bool) {
	s.enqueue(classCommand(cmd, class, method), urgent)
}

// enqueue queues a speculated command m, if admit lets it, unless its key
// is cached, in flight or already queued. Urgent commands (the state of a
// stop, which the debugger asks first) go before the others.
func (s *Speculator) enqueue(m jdwp.CommandMessage, urgent bool) {
	enqueueAs(s, m, false, urgent, false)
}

// enqueueAs is the gate and the queue in one, as each way of queueing a
// command uses them: admit m (asked: the debugger asks it itself, so the
// learner does not pause it), then queue it, urgent or not; with repeat, a
// moving command goes out again even if queued or in flight
// (sequential.go: enqueueInOrder).
func enqueueAs(s *Speculator, m jdwp.CommandMessage, asked, urgent, repeat bool) {
	if sub, ok := s.admit(m, asked); ok {
		s.enqueueKeyRepeat(s.newKey(m), m, sub, urgent, repeat)
	}
}

// admit is the gate of the queue: it reports whether the command m may be
// queued now, and what it is about. It asks the queue whether it is open
// (checked first: a full queue costs nothing), the policy whether it caches
// the reply, the suspension whether the reply may be cached now (and is
// moving), the learner whether the debugger uses it, and the cost model
// whether it pays. A command the debugger asked itself at its recent stops
// (asked: FamilyAgain's) is not the learner's to pause: FamilyAgain forgets
// it once the debugger stops asking.
func (s *Speculator) admit(m jdwp.CommandMessage, asked bool) (subject, bool) {
	if s.queue.closed() {
		return subject{}, false
	}
	spec, ok := s.keySpecOf(m.Command())
	if !ok {
		return subject{}, false
	}
	sub := subjectOf(spec, m)
	if spec.life == lifetimeSuspension {
		var cacheable bool
		cacheable, sub.moving, sub.thread = s.susp.cacheable(spec, m, s.cfg.consistency)
		if !cacheable || !asked && !s.learn.allows(m) {
			return subject{}, false
		}
	}
	if !pays(s, m, spec, asked) {
		return subject{}, false
	}
	return sub, true
}

// pays is admit's question to the cost model: whether the command m (of
// spec; asked: by the debugger at its recent stops) pays for its service
// at the odds the learner gives it.
func pays(s *Speculator, m jdwp.CommandMessage, spec keySpec, asked bool) bool {
	cost := s.cost.costOf(m.Command())
	return cost <= 0 || s.cost.pays(s.learn.oddsOf(m, spec, asked), cost)
}

// enqueueKey is enqueue for a command given by its key and its message m
// (nil: decoded from the key if the learner needs it), which admit let
// through (or let through before: the metadata asked again after a hot
// swap).
func (s *Speculator) enqueueKey(key Key, m jdwp.CommandMessage, sub subject, urgent bool) {
	s.enqueueKeyRepeat(key, m, sub, urgent, false)
}

// enqueueKeyRepeat is enqueueKey; with repeat, a moving command goes out
// again even if it is queued or in flight (sequential.go: enqueueInOrder).
func (s *Speculator) enqueueKeyRepeat(key Key, m jdwp.CommandMessage, sub subject, urgent, repeat bool) {
	if s.queue.closed() {
		return
	}
	if !repeat || !sub.moving {
		if s.cache.holds(key, &s.pos) && !sub.moving {
			return // a moving entry is asked again: the debugger's next view wants a reply newer than what it was shown since
		}
		if s.inflight.hasKeyIn(key, s.susp.epoch) || s.queue.has(key) {
			return
		}
	}
	s.queue.push(queued{key: key, msg: m, subject: sub}, urgent)
}

// newKey returns the key of a command the Speculator composes.
func (s *Speculator) newKey(m jdwp.CommandMessage) Key {
	return appendKey(&s.scratch.keyWriter, m, s.sizes)
}

// pump sends queued speculation, urgent first, while the in-flight bound
// allows. sc holds the buffers of the Response's direction.
func (s *Speculator) pump(r *Response, sc *responseBuffers) {
	if !s.enabled || s.over {
		return
	}
	bound := s.cost.inFlightBound(s.cfg.maxInFlight)
	room := func() bool { return (bound == 0 || s.inflight.synthetic < bound) && s.cost.bytesRoom() }
	s.queue.drain(room, func(q queued) { s.send(r, sc, q) })
}

// send sends the queued command q, unless a reply to it that is not moving
// is cached or in flight since it was queued.
func (s *Speculator) send(r *Response, sc *responseBuffers, q queued) {
	held := s.cache.holds(q.key, &s.pos) // drops a moving entry past the rules, moving or not
	if !q.behind && !q.subject.moving && (held || s.inflight.hasKey(q.key)) {
		return
	}
	id := s.queue.syntheticID(s.idBusy)
	p := &inFlight{id: id, cmd: q.key.Command(), key: q.key, subject: q.subject, epoch: s.susp.epoch, synthetic: true,
		writes: s.pos.writesSent}
	s.cost.sending(p)
	s.inflight.addSynthetic(p)
	if !holdBehind(s, p) {
		s.inflight.belayOn(p)
	}
	s.stats.Synthetic++
	s.learnSent(q)
	packet := q.key.AppendCommand(sc.buf(jdwp.HeaderSize+len(q.key)), id)
	sc.keep(packet)
	s.cost.sent(packet)
	r.Edict.Upstream = append(r.Edict.Upstream, packet)
	r.Journal.Upstream = append(r.Journal.Upstream, packet)
	r.speculated = append(r.speculated, packet)
}

// queued is a speculated command not yet sent.
type queued struct {
	key Key
	msg jdwp.CommandMessage // the command as a typed message; nil: decode the key
	subject
	// behind: queued to be read behind the debugger's Suspend or PopFrames in flight
	// (behind.go), whatever the epoch that ends holds of it.
	behind bool
}

// subject is what a keyed command is about: its lifetime, and the class or
// object that ends it.
type subject struct {
	life   lifetime
	class  jdwp.ReferenceTypeID // of a lifetimeClass command
	object jdwp.ObjectID        // of a lifetimeObject command
	values bool                 // a lifetimeSuspension command that reads values
	moving bool                 // a lifetimeSuspension command cached as a moving entry (sequential.go)
	thread jdwp.ObjectID        // a lifetimeSuspension command about a parked thread, true while it is (parked.go)
}

// learnSent tells the learner that a queued command went out: class
// metadata for the session, state while its stop goes on.
func (s *Speculator) learnSent(q queued) {
	switch {
	case q.life == lifetimeClass:
		s.learn.classSent(q.key.Command())
	case q.life == lifetimeSuspension && s.learn.counting():
		m := q.msg
		if m == nil {
			var err error
			if m, err = q.key.Message(s.sizes); err != nil {
				return
			}
		}
		s.learn.sent(m)
	}
}

// classCommand returns the class metadata command cmd about class, or about
// one of its methods when method is not 0.
func classCommand(cmd jdwp.Command, class jdwp.ReferenceTypeID, method jdwp.MethodID) jdwp.CommandMessage {
	switch cmd {
	case jdwp.CmdClassTypeSuperclass:
		return &jdwp.ClassTypeSuperclassCommand{RefType: class}
	case jdwp.CmdReferenceTypeSourceFile:
		return &jdwp.RefTypeSourceFileCommand{RefType: class}
	case jdwp.CmdReferenceTypeSourceDebugExtension:
		return &jdwp.RefTypeSourceDebugExtensionCommand{RefType: class}
	case jdwp.CmdReferenceTypeInterfaces:
		return &jdwp.RefTypeInterfacesCommand{RefType: class}
	case jdwp.CmdReferenceTypeMethodsWithGeneric:
		return &jdwp.RefTypeMethodsWithGenericCommand{RefType: class}
	case jdwp.CmdReferenceTypeSignatureWithGeneric:
		return &jdwp.RefTypeSignatureWithGenericCommand{RefType: class}
	case jdwp.CmdReferenceTypeSignature:
		return &jdwp.RefTypeSignatureCommand{RefType: class}
	case jdwp.CmdReferenceTypeClassLoader:
		return &jdwp.RefTypeClassLoaderCommand{RefType: class}
	case jdwp.CmdReferenceTypeFieldsWithGeneric:
		return &jdwp.RefTypeFieldsWithGenericCommand{RefType: class}
	case jdwp.CmdMethodLineTable:
		return &jdwp.MethodLineTableCommand{RefType: class, Method: method}
	case jdwp.CmdMethodIsObsolete:
		return &jdwp.MethodIsObsoleteCommand{RefType: class, Method: method}
	case jdwp.CmdMethodVariableTableWithGeneric:
		return &jdwp.MethodVariableTableWithGenericCommand{RefType: class, Method: method}
	}
	panic("scache: no class command " + cmd.String())
}
