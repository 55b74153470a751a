package scache

import (
	"fmt"
	"time"

	"github.com/jdwpscache/scache/jdwp"
)

// The downstream path: a packet going to the debugger, a reply or an event,
// through named stages. OnDownstream lists them in the order they run; each
// either completes the Response (it reports true) or passes the packet on.

// downPacket is a packet going to the debugger as the stages of
// OnDownstream see it.
type downPacket struct {
	packet []byte // renamed when the debugger knows a request by another id
	h      jdwp.Header
	p      *inFlight // the command a reply answers, once matched
	// at is when a reply arrived, prev when the one before it did (with a
	// clock: cost.go).
	at, prev time.Time
}

// OnDownstream takes a packet going to the debugger (a reply or a VM command
// such as an event) and says what to send. See Response for how long the
// result is valid.
func (s *Speculator) OnDownstream(packet []byte) Response {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.PacketsDown++
	r := s.scratch.down.reset()
	s.pos.arrive()
	d := downPacket{packet: packet}
	switch {
	case s.readDown(r, &d): // a malformed packet switches speculation off
	case s.auditReply(r, &d): // the reply to an audit's copy: compared, absorbed (audit.go)
	case s.event(r, &d): // an event: stops, classes, death; speculate the stop (families.go)
	case s.settleReply(r, &d): // a reply that lets the suspension settle or a hot swap's metadata be asked again
	case s.requestReply(r, &d): // the reply to a Set answered ahead: absorbed (request_ids.go)
	case s.absorbLateReply(r, d.h, d.packet): // the reply to a Clear answered ahead (answer_ahead.go)
	case s.matchReply(r, &d): // a reply nobody tracked goes through
	case s.deliver(r, &d): // the reply reaches the debugger, or is absorbed, and answers the commands held on it
	default:
		s.keepReply(&d)     // cached, unless stale or poisoned
		if s.react(r, &d) { // the suspension, the protocol facts, the families' triggers
			return *r
		}
		s.pump(r, &s.scratch.down)
	}
	return *r
}

// readDown parses the packet's header.
func (s *Speculator) readDown(r *Response, d *downPacket) bool {
	if err := d.h.Parse(d.packet); err != nil {
		s.disable(r, fmt.Errorf("downstream packet: %w", err))
		s.forwardDown(r, d.packet)
		return true
	}
	if d.h.IsReply() {
		d.at, d.prev = s.cost.arrival()
	}
	return false
}

// event takes a command of the VM: an event composite updates the
// suspension and classes and starts the families of a stop; its request ids
// are renamed where the debugger knows them by others.
func (s *Speculator) event(r *Response, d *downPacket) bool {
	if d.h.IsReply() {
		return false
	}
	s.pos.deliver(s.pos.arrived) // an event tells the debugger the VM's state now
	if s.enabled && d.h.Cmd() == jdwp.CmdEventComposite {
		if err := s.onEvents(d.packet); err != nil {
			s.disable(r, err)
		} else {
			s.pump(r, &s.scratch.down)
		}
	}
	if s.requests.renaming() && d.h.Cmd() == jdwp.CmdEventComposite {
		d.packet = s.renameEvents(d.packet)
	}
	s.forwardDown(r, d.packet)
	return true
}

// settleReply notes the reply to a command that let threads run (state.go)
// and asks again, at a hot swap's reply, the metadata it made stale
// (redefine.go). The reply goes on.
func (s *Speculator) settleReply(r *Response, d *downPacket) bool {
	s.onSettle(d.h.ID)
	s.pos.answered(d.h.ID)
	if s.onRedefined(d.h.ID) {
		s.pump(r, &s.scratch.down)
	}
	return false
}

// requestReply absorbs the reply to a Set answered ahead, and renames the
// request id of a forwarded one the debugger knows by another.
func (s *Speculator) requestReply(r *Response, d *downPacket) bool {
	if len(s.requests.ahead) == 0 && len(s.requests.forwarded) == 0 {
		return false
	}
	var absorbed bool
	d.packet, absorbed = s.onSetReply(r, d.h, d.packet)
	return absorbed
}

// matchReply finds the command in flight the reply answers; a reply to an
// untracked command goes through.
func (s *Speculator) matchReply(r *Response, d *downPacket) bool {
	p, ok := s.inflight.pending[d.h.ID]
	if !ok {
		s.pos.deliver(s.pos.arrived)
		s.forwardDown(r, d.packet)
		return true
	}
	s.inflight.answered(p)
	s.cost.answered(p, len(d.packet), d.at, d.prev)
	d.p = p
	return false
}

// deliver forwards the reply to a debugger's command or absorbs a
// synthetic one, and answers the commands held on it. An error about an
// object (perhaps asked before the VM gave the object its id: a guess, see
// family_again_guess.go; or a debugger naming an id it was not shown) is not kept, and
// the commands held on it go to the VM. Once speculation is off, that is
// all.
func (s *Speculator) deliver(r *Response, d *downPacket) bool {
	p := d.p
	if p.synthetic {
		s.inflight.syntheticAnswered()
		s.stats.BytesSpeculated += int64(len(d.packet))
		r.Outcome = Absorbed
		r.Journal.Downstream = append(r.Journal.Downstream, d.packet)
	} else {
		if s.pins(p) {
			s.pos.deliver(s.pos.arrived)
		}
		s.forwardDown(r, d.packet)
	}
	if d.h.ErrorCode != jdwp.ErrNone && namesObject(p.cmd) {
		p.poison()
		s.releaseWaiters(r, p)
	}
	s.answerWaiters(r, p, d.packet)
	if p.synthetic && len(p.waiters) > 0 {
		s.stats.SyntheticUsed++
		s.learnUsed(p.key, p.life, p.epoch, p.thread, true)
		if s.cfg.follower {
			r.used = append(r.used, p.key)
		}
	}
	return !s.enabled
}

// keepReply caches the reply of a keyed command, unless it was invalidated
// in flight or proves the suspension it was sent in over. The reply goes on.
func (s *Speculator) keepReply(d *downPacket) bool {
	p := d.p
	if s.onThreadNotSuspended(p, d.h.ErrorCode) {
		p.poison()
	}
	cached := false
	if p.key != "" && !p.poisoned && !p.behind && (p.synthetic || s.cfg.cacheOrganic) {
		var older *entry
		if p.moving {
			older = s.cache.olderReplies(p.key)
		}
		s.cache.add(p.key, &entry{older: older, reply: append([]byte(nil), d.packet...), class: p.class, object: p.object, values: p.values, thread: p.thread,
			life:  p.life,
			epoch: p.epoch, synthetic: p.synthetic, used: !p.synthetic || len(p.waiters) > 0,
			moving: p.moving, arrived: s.pos.arrived})
		cached = true
	}
	if p.synthetic && !cached && len(p.waiters) == 0 {
		s.stats.Wasted++
	}
	return false
}

// react updates the suspension for the reply to a debugger's command, and
// runs the protocol facts and families' triggers of a successful reply
// (facts.go). It reports true when the reply could not be read, which
// switches speculation off.
func (s *Speculator) react(r *Response, d *downPacket) bool {
	p := d.p
	if !p.synthetic {
		s.onStateReply(p, d.h.ErrorCode)
	}
	if d.h.ErrorCode == jdwp.ErrNone && (!p.synthetic || !s.cfg.classic) {
		if err := s.onReply(r, p, jdwp.Data(d.packet)); err != nil {
			s.disable(r, fmt.Errorf("%s reply: %w", p.cmd, err))
			return true
		}
	}
	return false
}

// forwardDown sends the packet to the debugger as it is.
func (s *Speculator) forwardDown(r *Response, packet []byte) {
	r.Edict.Downstream = append(r.Edict.Downstream, packet)
	r.Journal.Downstream = append(r.Journal.Downstream, packet)
}

// answerWaiters sends the reply to every debugger command held on p.
func (s *Speculator) answerWaiters(r *Response, p *inFlight, reply []byte) {
	if len(p.waiters) == 0 {
		return
	}
	for _, hc := range p.waiters {
		if !hc.answer() {
			continue
		}
		if s.pins(p) {
			s.pos.deliver(s.pos.arrived)
		}
		if hc.audit != nil {
			hc.audit.served = auditedPart(reply)
		}
		b := s.retag(&s.scratch.down, reply, hc.id)
		s.stats.Belayed++
		r.Edict.Downstream = append(r.Edict.Downstream, b)
		r.Journal.Downstream = append(r.Journal.Downstream, b)
	}
	s.inflight.compactHeld()
}

// releaseWaiters sends upstream, in the order they arrived, the debugger
// commands held on p: its reply will not answer them.
func (s *Speculator) releaseWaiters(r *Response, p *inFlight) {
	s.sendHeldUp(r, p.takeWaiters())
	s.inflight.compactHeld()
}

// sendHeldUp sends upstream in r the held commands not answered yet.
func (s *Speculator) sendHeldUp(r *Response, held []*heldCommand) {
	for _, hc := range held {
		if !hc.answer() {
			continue
		}
		// Already in the journal since it was held: only the edict sends it now.
		if hc.audit != nil {
			hc.audit.gone = true // the VM answers it itself
		}
		s.cost.sent(hc.packet)
		r.Edict.Upstream = append(r.Edict.Upstream, hc.packet)
	}
}
