package scache

import "github.com/jdwpscache/scache/jdwp"

// speculateFrames queues the class metadata commands about the first
// MaxFrames frames of a Frames reply, top frame first.
func (s *Speculator) speculateFrames(_ *inFlight, reply *replyData) error {
	m, err := reply.typed(s)
	if err != nil {
		return err
	}
	frames := m.(*jdwp.ThreadFramesReply).Frames
	set := defaultFrameSet
	if s.cfg.classic {
		set = classicFrameSet
	}
	if len(frames) > s.cfg.maxFrames {
		frames = frames[:s.cfg.maxFrames]
	}
	seen := make([]jdwp.Location, 0, len(frames))
	for _, f := range frames {
		loc := f.Location
		if sameMethodSeen(seen, loc) {
			continue // a recursion: the same commands were just queued
		}
		seen = append(seen, loc)
		s.enqueueLocation(loc, set)
	}
	return nil
}

// speculateStopLocation queues, at a stop, the class metadata commands
// about the stop's location: the event names the top frame's class and
// method, so what a debugger asks of the top frame goes out with the
// frames instead of one reply behind them.
func (s *Speculator) speculateStopLocation(stop stopEvent) {
	if s.cfg.classic || stop.loc.Class == 0 {
		return
	}
	s.enqueueLocation(stop.loc, defaultFrameSet)
}

// enqueueLocation queues the commands of set about the class and method of
// a frame's location.
func (s *Speculator) enqueueLocation(loc jdwp.Location, set []jdwp.Command) {
	for _, cmd := range set {
		var method jdwp.MethodID // 0: a class command
		if aboutMethod(cmd) {
			if loc.Method == 0 {
				continue // an obsolete frame after a hot swap: no method to ask about
			}
			method = loc.Method
		}
		if cmd == jdwp.CmdClassTypeSuperclass && loc.TypeTag == jdwp.TypeTagInterface && !s.cfg.classic {
			continue // an interface's default or static method: Superclass would fail
		}
		if !s.cfg.classic && !s.learn.allowsClass(cmd) {
			continue // this debugger does not ask it
		}
		s.enqueueClass(cmd, loc.Class, method, false)
	}
}

// sameMethodSeen reports whether seen holds a location in the same method.
func sameMethodSeen(seen []jdwp.Location, loc jdwp.Location) bool {
	for _, l := range seen {
		if l.TypeTag == loc.TypeTag && l.Class == loc.Class && l.Method == loc.Method {
			return true
		}
	}
	return false
}

// enqueueClass queues a class metadata command about class, or about one of
// its methods when method is not 0.
func (s *Speculator) enqueueClass(cmd jdwp.Command, class jdwp.ReferenceTypeID, method jdwp.MethodID, urgent bool) {
	s.enqueue(classCommand(cmd, class, method), subject{life: lifetimeClass, class: class}, urgent)
}

// speculateAttach asks, once a session's id sizes are known, for the facts a
// debugger asks once a session.
func (s *Speculator) speculateAttach(*inFlight, *replyData) error {
	s.enqueue(&jdwp.VMVersionCommand{}, subject{life: lifetimeSession}, false)
	s.enqueue(&jdwp.VMCapabilitiesNewCommand{}, subject{life: lifetimeSession}, false)
	return nil
}

// enqueueObject queues a command about what never changes of an object.
func (s *Speculator) enqueueObject(m jdwp.CommandMessage, urgent bool) {
	if _, ok := s.keySpecOf(m.Command()); ok {
		s.enqueue(m, subject{life: lifetimeObject, object: objectOf(m)}, urgent)
	}
}

// enqueue adds a speculated command unless its key is cached, in flight or
// already queued. Urgent commands (the state of a stop, which the debugger
// asks first) go before the others.
func (s *Speculator) enqueue(m jdwp.CommandMessage, sub subject, urgent bool) {
	if s.queueClosed() {
		return // checked before the key is made: a full queue costs nothing
	}
	s.enqueueKey(s.newKey(m), sub, urgent)
}

// queueClosed reports whether nothing may be queued now: the session is
// ending, the Speculator follows another (a far half), or the queue is full.
func (s *Speculator) queueClosed() bool {
	return s.over || s.cfg.follower || len(s.queue)+len(s.urgent) >= s.cfg.maxQueued
}

// enqueueKey is enqueue for a command given by its key.
func (s *Speculator) enqueueKey(key Key, sub subject, urgent bool) {
	if s.queueClosed() {
		return
	}
	if s.cache.contains(key) {
		return
	}
	if _, ok := s.byKey[key]; ok {
		return
	}
	if _, ok := s.queuedKeys[key]; ok {
		return
	}
	s.queuedKeys[key] = struct{}{}
	q := queued{key: key, subject: sub}
	if urgent {
		s.urgent = append(s.urgent, q)
	} else {
		s.queue = append(s.queue, q)
	}
}

// newKey returns the key of a command the Speculator composes.
func (s *Speculator) newKey(m jdwp.CommandMessage) Key { return appendKey(&s.keyWriter, m, s.sizes) }

// pump sends queued speculation, urgent first, while the in-flight bound allows.
// sc holds the buffers of the Response's direction.
func (s *Speculator) pump(r *Response, sc *scratch) {
	if !s.enabled || s.over {
		return
	}
	s.urgent = s.send(r, sc, s.urgent)
	s.queue = s.send(r, sc, s.queue)
}

// send sends commands from the front of list while the bound allows and
// returns what is left.
func (s *Speculator) send(r *Response, sc *scratch, list []queued) []queued {
	sent := 0
	for len(list) > sent && (s.cfg.maxInFlight == 0 || s.synthetic < s.cfg.maxInFlight) {
		q := list[sent]
		sent++
		delete(s.queuedKeys, q.key)
		if s.cache.contains(q.key) {
			continue
		}
		if _, ok := s.byKey[q.key]; ok {
			continue
		}
		id := s.newSyntheticID()
		p := &inFlight{id: id, cmd: q.key.Command(), key: q.key, subject: q.subject, epoch: s.susp.epoch, synthetic: true}
		s.pending[id] = p
		s.byKey[q.key] = p
		s.synthetic++
		s.stats.Synthetic++
		s.learnOf(q.key, q.life, s.susp.epoch, false)
		packet := q.key.AppendCommand(sc.buf(jdwp.HeaderSize+len(q.key)), id)
		sc.keep(packet)
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
			delete(s.queuedKeys, q.key)
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
		id := s.nextID
		if s.nextID == LastSyntheticID {
			s.nextID = FirstSyntheticID
		} else {
			s.nextID++
		}
		if _, busy := s.pending[id]; !busy {
			return id
		}
	}
}
