package scache

import (
	"cmp"
	"fmt"

	"github.com/jdwpscache/scache/jdwp"
)

// The upstream path: a packet going to the VM, normally a debugger's
// command, through named stages. OnUpstream lists them in the order they
// run; each either completes the Response (it reports true: the packet is
// dealt with) or passes the command on to the next.

// upCommand is a packet going to the VM as the stages of OnUpstream see it.
type upCommand struct {
	packet []byte // renamed by requestIDs when the debugger names a request by another id
	h      jdwp.Header
	cmd    jdwp.Command
	tr     traits
	// track: its reply must be tracked whatever is cached (it tells a
	// protocol fact, proves a suspension or triggers a family).
	track bool
	// Of a command that may be answered from the cache (lookUp on):
	spec   keySpec
	params jdwp.CommandMessage // scratch: valid during this call
	key    Key
	moving bool // cached, if at all, as a moving entry (sequential.go)
	// parked is the parked thread whose state it reads (parked.go; 0: none).
	parked jdwp.ObjectID
}

// OnUpstream takes a packet going to the VM (normally a debugger command) and
// says what to send. See Response for how long the result is valid.
func (s *Speculator) OnUpstream(packet []byte) Response {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.PacketsUp++
	r := s.scratch.up.reset()
	c := upCommand{packet: packet}
	switch {
	case s.readCommand(r, &c): // a malformed packet switches speculation off; a reply goes through
	case s.requestIDs(r, &c): // EventRequest: a Set answered ahead, a Clear's request renamed (request_ids.go)
	case s.passThrough(r, &c): // speculation off: everything goes through
	case s.sessionCommand(r, &c): // id sizes, classes, hot swap, dispose, exit: what the session knows
	case s.clearAhead(r, &c): // a Clear answered ahead (answer_ahead.go)
	case s.suspensionCommand(r, &c): // commands that let threads run or change values (state.go)
	case s.lookUp(r, &c): // not cacheable now: forwarded, tracked if it must be
	case s.answerFromCache(r, &c):
	case s.belay(r, &c): // its twin is in flight: held until the reply
	case s.derive(r, &c): // a function of a cached reply (derived.go)
	default:
		s.miss(r, &c) // forwarded, and learned as wanted
	}
	if s.queue.pending() {
		s.pump(r, &s.scratch.up) // what the debugger's command led to, behind it
	}
	return *r
}

// readCommand parses the packet's header.
func (s *Speculator) readCommand(r *Response, c *upCommand) bool {
	if err := c.h.Parse(c.packet); err != nil {
		s.disable(r, fmt.Errorf("upstream packet: %w", err))
		s.forwardUp(r, c.packet)
		return true
	}
	if c.h.IsReply() {
		s.forwardUp(r, c.packet)
		return true
	}
	c.cmd = c.h.Cmd()
	return false
}

// requestIDs lets the request ids of the EventRequest set see the command
// first: they are kept in step even with speculation off.
func (s *Speculator) requestIDs(r *Response, c *upCommand) bool {
	if c.h.CommandSet != jdwp.SetEventRequest {
		return false
	}
	var done bool
	c.packet, done = s.onRequestCommand(r, c.h, c.packet)
	return done
}

// passThrough forwards everything once speculation is off, and turns it
// off for a debugger's id that collides with a synthetic command in flight.
func (s *Speculator) passThrough(r *Response, c *upCommand) bool {
	if s.enabled {
		if p, ok := s.inflight.pending[c.h.ID]; ok && p.synthetic {
			s.disable(r, fmt.Errorf("debugger command id %#x collides with a synthetic command in flight", c.h.ID))
		}
	}
	if !s.enabled {
		s.forwardUp(r, c.packet)
		return true
	}
	return false
}

// sessionCommand takes note of the commands that change what the
// Speculator knows of the session: its id sizes and classes (their replies
// are tracked), a hot swap, objects disposed, the session's end.
func (s *Speculator) sessionCommand(r *Response, c *upCommand) bool {
	var err error
	switch c.cmd {
	case jdwp.CmdVirtualMachineIDSizes, jdwp.CmdVirtualMachineAllClasses,
		jdwp.CmdVirtualMachineAllClassesWithGeneric:
		c.track = true
	case jdwp.CmdVirtualMachineClassesBySignature:
		m, decodeErr := s.decodeParams(c.cmd, jdwp.Data(c.packet))
		if decodeErr == nil && !s.replyAwaited(c.h.ID) && s.classes.ask(c.h.ID, m.(*jdwp.VMClassesBySignatureCommand).Signature) {
			c.track = true // its classes are learned (classes.go)
		}
	case jdwp.CmdVirtualMachineRedefineClasses:
		err = s.onRedefine(c.h.ID, c.packet)
	case jdwp.CmdVirtualMachineDispose:
		s.clearAll()
		endSession(s)
	case jdwp.CmdVirtualMachineDisposeObjects:
		err = s.onDisposeObjects(jdwp.Data(c.packet))
	case jdwp.CmdVirtualMachineExit:
		endSession(s)
	}
	if err != nil {
		s.disable(r, err)
		s.forwardUp(r, c.packet)
		return true
	}
	return false
}

// clearAhead answers a Clear ahead, when it may (answer_ahead.go).
func (s *Speculator) clearAhead(r *Response, c *upCommand) bool {
	if !s.clearAnswerable(c.cmd, c.packet) {
		return false
	}
	s.forwardAndAnswer(r, c.h, c.packet, nil)
	return true
}

// suspensionCommand updates the suspension for a command that lets threads
// run or ends the epoch (state.go). A command that changes values goes
// out at once, with the values it makes stale asked again right behind it.
func (s *Speculator) suspensionCommand(r *Response, c *upCommand) bool {
	c.tr = commandTraits[c.cmd]
	var err error
	if c.tr.endsEpoch || c.tr.changesValues {
		err = s.pos.write(c.h.ID, s.cfg.maxOrganicIDs)
	}
	track, stateErr := s.onStateCommand(c.cmd, c.tr, c.h.ID, jdwp.Data(c.packet))
	err = cmp.Or(err, stateErr)
	switch {
	case err != nil:
		s.disable(r, err)
	case c.tr.changesValues:
		s.forwardUp(r, c.packet)
		s.pump(r, &s.scratch.up)
		return true
	default:
		c.track = c.track || track
		return false
	}
	s.forwardUp(r, c.packet)
	return true
}

// lookUp finds the command's key, if the policy caches its reply now;
// otherwise the command is forwarded (and tracked if its reply must be).
// A state command the debugger asks is told to the families (onAsked).
func (s *Speculator) lookUp(r *Response, c *upCommand) bool {
	spec, ok := s.specOf(c.tr)
	if ok {
		m, err := s.decodeParams(c.cmd, jdwp.Data(c.packet))
		if err != nil {
			s.disable(r, fmt.Errorf("%s command with %d malformed data bytes: %w", c.cmd, len(c.packet)-jdwp.HeaderSize, err))
			s.forwardUp(r, c.packet)
			return true
		}
		c.spec, c.params = spec, m
		if spec.life == lifetimeSuspension {
			ok, c.moving, c.parked = s.susp.cacheable(spec, m, s.cfg.consistency)
		}
	}
	if !ok {
		if c.track || s.triggers[c.cmd] {
			s.track(&inFlight{id: c.h.ID, cmd: c.cmd, epoch: s.susp.epoch})
		}
		s.forwardUp(r, c.packet)
		return true
	}
	c.key = keyOf(c.h, c.packet)
	if c.moving && !s.inflight.readsOverlap {
		s.inflight.sawRead()
	}
	if spec.life == lifetimeSuspension {
		s.table.asked(s, c.key, c.params)
	}
	return false
}

// answerFromCache answers the command from a cached reply, re-tagged.
func (s *Speculator) answerFromCache(r *Response, c *upCommand) bool {
	e, ok := s.cache.get(c.key)
	if e, ok = servable(s, e, ok, c.moving); !ok {
		return false
	}
	serve(s, r, c.key, e)
	reply := s.retag(&s.scratch.up, e.reply, c.h.ID)
	s.answerHit(r, c.packet, reply)
	s.auditAnswer(r, c, reply)
	s.debug("hit", c.h.ID, c.cmd)
	return true
}

// servable returns the reply of the cached entry e (found: ok) that may
// answer a debugger command now, if e moves as the command's reply would
// (moving): of a moving entry, the oldest reply the sequential rules let
// answer, and none at the far half.
func servable(s *Speculator, e *entry, ok, moving bool) (*entry, bool) {
	if ok && e.moving {
		e, ok = s.cache.servableReply(e, &s.pos)
		ok = ok && !s.cfg.near // the far half served none (options.go)
	}
	return e, ok && e.moving == moving
}

// serve counts the reply e of key as a hit that answers the debugger,
// delivering its position if it moves.
func serve(s *Speculator, r *Response, key Key, e *entry) {
	if e.moving {
		s.pos.deliver(e.arrived)
	}
	s.stats.Hits++
	s.use(r, key, e)
}

// belay holds the command on its twin in flight.
func (s *Speculator) belay(r *Response, c *upCommand) bool {
	p, ok := s.inflight.byKey[c.key]
	if !ok || !s.cfg.belay || p.moving != c.moving || p.moving && p.writes != s.pos.writesSent {
		return false
	}
	s.hold(r, p, c.h.ID, c.packet, s.auditAnswer(r, c, nil))
	s.debug("belay", c.h.ID, c.cmd)
	return true
}

// derive answers the command from a cached reply it is a function of.
func (s *Speculator) derive(r *Response, c *upCommand) bool {
	if !s.cfg.cacheState {
		return false
	}
	if answerPart(s, r, c) { // a part of a cached read of values (derived_parts.go)
		return true
	}
	if !s.derived(r, c.h.ID, c.packet, c.params) {
		return false
	}
	s.auditAnswer(r, c, r.Edict.Downstream[len(r.Edict.Downstream)-1])
	return true
}

// miss forwards a cacheable command nothing answered, tracked so that its
// reply is cached, and tells the learner the debugger wants it.
func (s *Speculator) miss(r *Response, c *upCommand) {
	s.stats.Misses++
	switch c.spec.life { // the debugger asks it: speculate it
	case lifetimeSuspension:
		s.learn.used(c.params)
	case lifetimeClass:
		s.learn.classUsed(c.cmd)
	}
	if s.queue.dropFirst(c.key) {
		s.stats.Replaced++ // the debugger asked it before it went out: its command goes in its place
	}
	s.table.missed(s, c.params, c.spec.life)
	if s.cfg.cacheOrganic || s.cfg.belay || c.track || s.triggers[c.cmd] {
		sub := subjectOf(c.spec, c.params)
		sub.moving, sub.thread = c.moving, c.parked
		s.track(&inFlight{id: c.h.ID, cmd: c.cmd, key: c.key, subject: sub, epoch: s.susp.epoch, writes: s.pos.writesSent})
	}
	s.forwardUp(r, c.packet)
}

// use marks the cache entry of key as having answered a debugger command
// in the Response r.
func (s *Speculator) use(r *Response, key Key, e *entry) {
	hit := e.synthetic && !e.used
	if hit {
		s.stats.SyntheticUsed++
	}
	e.used = true
	if s.cfg.follower { // the far half tells the near one (split.go)
		r.used = append(r.used, key)
	}
	s.learnUsed(key, e.life, e.epoch, e.thread, hit)
}

// learnUsed tells the learner that a reply with key, of lifetime life,
// answered the debugger (hit: a speculated one, its first use): class
// metadata for the session, state only while its stop goes on.
func (s *Speculator) learnUsed(key Key, life lifetime, epoch uint64, parked jdwp.ObjectID, hit bool) {
	switch {
	case life == lifetimeClass:
		s.learn.classUsed(key.Command())
		if hit {
			s.learn.classOf(key.Command()).hits++
		}
	case life == lifetimeSuspension && (epoch == s.susp.epoch || parked != 0 && s.susp.isParked(parked)) && s.learn.counting():
		if m, err := key.Message(s.sizes); err == nil {
			s.learn.used(m)
			if hit {
				s.learn.hit(m)
			}
		}
	}
}

// answerHit sends a reply built from the cache for a debugger command.
func (s *Speculator) answerHit(r *Response, cmd, reply []byte) {
	r.Outcome = Answered
	r.Edict.Downstream = append(r.Edict.Downstream, reply)
	r.Journal.Upstream = append(r.Journal.Upstream, cmd)
	r.Journal.Downstream = append(r.Journal.Downstream, reply)
}

// hold belays a debugger command on a command in flight (with a, the
// audit of its answer).
func (s *Speculator) hold(r *Response, p *inFlight, id uint32, packet []byte, a *audit) {
	r.Outcome = Held
	s.inflight.hold(p, &heldCommand{id: id, packet: append([]byte(nil), packet...), audit: a})
	r.Journal.Upstream = append(r.Journal.Upstream, packet)
}

// forwardUp sends the packet to the VM as it is.
func (s *Speculator) forwardUp(r *Response, packet []byte) {
	if s.cost.sent(packet) {
		s.cost.sentBehind(s.inflight.synthetic)
	}
	r.Edict.Upstream = append(r.Edict.Upstream, packet)
	r.Journal.Upstream = append(r.Journal.Upstream, packet)
}
