package scache

import "github.com/jdwpscache/scache/jdwp"

// The queue of speculation. A family's handler asks for a command with
// enqueue (a typed message: the queue finds its key and what it is about)
// or, for a command it kept by key, enqueueKey; admit is the one gate that
// decides whether it may be queued now. pump sends what is queued, urgent
// first, while the in-flight bound allows: synthetic commands get ids from
// FirstSyntheticID, and each is announced in the Response's speculated
// list (for a split proxy's near half).

// queueState holds the speculation waiting to go out.
type queueState struct {
	urgent  []queued // state commands of the stop, sent first
	waiting []queued // the others, sent as in-flight slots free up
	keys    map[Key]struct{}
	nextID  uint32 // the next synthetic id to try
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
	sub, ok := s.admit(m, false)
	if !ok {
		return
	}
	s.enqueueKey(s.newKey(m), m, sub, urgent)
}

// admit is the gate of the queue: it reports whether the command m may be
// queued now, and what it is about. Nothing is queued while the queue is
// closed, a command the policy does not cache is never sent, and a state
// command goes out only while the suspension lets its reply be cached and
// the learner has not paused its site. A command the debugger asked itself
// at its recent stops (asked: FamilyAgain's) is not the learner's to pause:
// FamilyAgain forgets it once the debugger stops asking.
func (s *Speculator) admit(m jdwp.CommandMessage, asked bool) (subject, bool) {
	if s.queueClosed() {
		return subject{}, false // checked before anything else: a full queue costs nothing
	}
	spec, ok := s.keySpecOf(m.Command())
	if !ok {
		return subject{}, false
	}
	sub := subjectOf(spec, m)
	if spec.life == lifetimeSuspension {
		var cacheable bool
		cacheable, sub.moving = s.suspensionCacheable(spec, m)
		if !cacheable || !asked && !s.learn.allows(m) {
			return subject{}, false
		}
	}
	if s.cost.slow() && !s.cost.pays(s.odds(m, spec, asked)) {
		return subject{}, false
	}
	return sub, true
}

// queueClosed reports whether nothing may be queued now: the session is
// ending, the Speculator follows another (a far half), or the queue is full.
func (s *Speculator) queueClosed() bool {
	return s.over || s.cfg.follower || len(s.queue.waiting)+len(s.queue.urgent) >= s.cfg.maxQueued
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
	if s.queueClosed() {
		return
	}
	if !repeat || !sub.moving {
		if s.holds(key) && !sub.moving {
			return // a moving entry is asked again: the debugger's next view wants a reply newer than what it was shown since
		}
		if _, ok := s.inflight.byKey[key]; ok {
			return
		}
		if _, ok := s.queue.keys[key]; ok {
			return
		}
	}
	s.queue.keys[key] = struct{}{}
	q := queued{key: key, msg: m, subject: sub}
	if urgent {
		s.queue.urgent = append(s.queue.urgent, q)
	} else {
		s.queue.waiting = append(s.queue.waiting, q)
	}
}

// newKey returns the key of a command the Speculator composes.
func (s *Speculator) newKey(m jdwp.CommandMessage) Key {
	return appendKey(&s.scratch.keyWriter, m, s.sizes)
}

// pump sends queued speculation, urgent first, while the in-flight bound allows.
// sc holds the buffers of the Response's direction.
func (s *Speculator) pump(r *Response, sc *responseBuffers) {
	if !s.enabled || s.over {
		return
	}
	s.queue.urgent = s.send(r, sc, s.queue.urgent)
	s.queue.waiting = s.send(r, sc, s.queue.waiting)
}

// send sends commands from the front of list while the bound allows and
// returns what is left.
func (s *Speculator) send(r *Response, sc *responseBuffers, list []queued) []queued {
	sent := 0
	bound := s.cost.inFlightBound(s.cfg.maxInFlight)
	for len(list) > sent && (bound == 0 || s.inflight.synthetic < bound) {
		q := list[sent]
		sent++
		delete(s.queue.keys, q.key)
		if s.holds(q.key) && !q.subject.moving {
			continue
		}
		if _, ok := s.inflight.byKey[q.key]; ok && !q.subject.moving {
			continue
		}
		id := s.newSyntheticID()
		p := &inFlight{id: id, cmd: q.key.Command(), key: q.key, subject: q.subject, epoch: s.susp.epoch, synthetic: true,
			writes: s.pos.writesSent}
		s.cost.sending(p)
		s.inflight.addSynthetic(p)
		s.inflight.belayOn(p)
		s.stats.Synthetic++
		s.learnSent(q)
		packet := q.key.AppendCommand(sc.buf(jdwp.HeaderSize+len(q.key)), id)
		sc.keep(packet)
		s.cost.sent(packet)
		r.Edict.Upstream = append(r.Edict.Upstream, packet)
		r.Journal.Upstream = append(r.Journal.Upstream, packet)
		r.speculated = append(r.speculated, packet)
	}
	n := copy(list, list[sent:])
	for i := n; i < len(list); i++ {
		list[i] = queued{}
	}
	return list[:n]
}

// dropQueued removes the queued commands for which drop is true.
func (s *Speculator) dropQueued(list []queued, drop func(queued) bool) []queued {
	kept := list[:0]
	for _, q := range list {
		if drop(q) {
			delete(s.queue.keys, q.key)
			continue
		}
		kept = append(kept, q)
	}
	for i := len(kept); i < len(list); i++ {
		list[i] = queued{}
	}
	return kept
}

// newSyntheticID returns the next id of the synthetic range that is not in
// flight, wrapping at the end of the range.
func (s *Speculator) newSyntheticID() uint32 {
	for {
		id := s.queue.nextID
		if s.queue.nextID == LastSyntheticID {
			s.queue.nextID = FirstSyntheticID
		} else {
			s.queue.nextID++
		}
		if _, busy := s.inflight.pending[id]; !busy {
			return id
		}
	}
}

// queued is a speculated command not yet sent.
type queued struct {
	key Key
	msg jdwp.CommandMessage // the command as a typed message; nil: decode the key
	subject
}

// subject is what a keyed command is about: its lifetime, and the class or
// object that ends it.
type subject struct {
	life   lifetime
	class  jdwp.ReferenceTypeID // of a lifetimeClass command
	object jdwp.ObjectID        // of a lifetimeObject command
	values bool                 // a lifetimeSuspension command that reads values
	moving bool                 // a lifetimeSuspension command cached as a moving entry (sequential.go)
}

// learnSent tells the learner that a queued command went out: class
// metadata for the session, state while its stop goes on.
func (s *Speculator) learnSent(q queued) {
	switch {
	case q.life == lifetimeClass:
		s.learn.classSent(q.key.Command())
	case q.life == lifetimeSuspension && s.learn.inStop:
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
