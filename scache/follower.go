package scache

import (
	"fmt"

	"github.com/jdwpscache/scache/jdwp"
)

// The follower: what lets a Speculator next to the debugger (the far half
// of a split proxy) run the same state machine as the one next to the VM
// (the near half) without sending anything of its own. Both see the same
// packets in the same order: the VM's, which the near half forwards, and the
// debugger's, which the far half forwards. When the near half sends a
// synthetic command it announces it; the far half adopts it as if it had
// sent it itself at that point of the stream, and the reply, forwarded too,
// is absorbed, cached and belayed on by the far half's own rules. One
// difference is left: the debugger's commands reach the far half before the
// near one. An announcement says how many of them the near half had seen;
// if one the near half had not seen could change what the command reads
// (anything but a pure read), the far half adopts the command poisoned:
// nothing is held on it and its reply is not cached.

// adopt registers a synthetic command the near half sent, as the far
// half's own. poisoned says a debugger command the near half had not seen
// when it sent it may change what it reads. Its reply, when it comes, goes
// through OnDownstream (see absorbs). A command the near half should not
// have announced switches speculation off (disable): the debugger commands
// it releases are in the Response.
func (s *Speculator) adopt(packet []byte, poisoned bool) Response {
	s.mu.Lock()
	defer s.mu.Unlock()
	var r Response
	if err := s.register(packet, poisoned); err != nil {
		s.disable(&r, err)
	}
	return r
}

// register is adopt's bookkeeping; mu is held.
func (s *Speculator) register(packet []byte, poisoned bool) error {
	var h jdwp.Header
	if err := h.Parse(packet); err != nil {
		return fmt.Errorf("announced command: %w", err)
	}
	if h.IsReply() || !IsSyntheticID(h.ID) {
		return fmt.Errorf("announced packet %v is not a synthetic command", h)
	}
	if _, busy := s.inflight.pending[h.ID]; busy {
		return fmt.Errorf("announced command id %#x is already in flight", h.ID)
	}
	if len(s.inflight.pending) >= s.cfg.maxOrganicIDs+s.cfg.maxInFlight+s.cfg.maxQueued {
		return fmt.Errorf("%d commands in flight: the near half announces more than it may send", len(s.inflight.pending))
	}
	cmd := h.Cmd()
	p := &inFlight{id: h.ID, cmd: cmd, epoch: s.susp.epoch, synthetic: true, poisoned: poisoned || !s.enabled || s.over}
	if spec, ok := s.specOf(commandTraits[cmd]); ok {
		m, err := s.decodeParams(cmd, jdwp.Data(packet))
		if err != nil {
			return fmt.Errorf("announced %s: %w", cmd, err)
		}
		p.key, p.subject = keyOf(h, packet), subjectOf(spec, m)
		// Sent after the near half saw a Suspend or PopFrames in flight: read behind it.
		held := !p.poisoned && holdBehind(s, p)
		if spec.life == lifetimeSuspension && !held {
			var cacheable bool
			cacheable, p.moving, p.thread = s.susp.cacheable(spec, m, s.cfg.consistency)
			if !cacheable {
				p.poison()
			}
		}
		p.writes = s.pos.writesSent
	}
	s.inflight.addSynthetic(p)
	s.stats.Synthetic++
	if p.key != "" && !p.poisoned && !p.behind && s.cfg.belay {
		s.inflight.belayOn(p)
	}
	return nil
}

// absorbs reports whether the reply with id answers an adopted command.
func (s *Speculator) absorbs(id uint32) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.inflight.pending[id]
	return ok && p.synthetic
}

// readsOnly reports whether a debugger command changes nothing that a
// cached reply says: a keyable command under some policy, or an event
// request's Set or Clear (they change which events the VM will send, not
// what any command reads: a debugger clears the last step request the
// moment the step's event arrives, while the near half's follow-ups on the
// stop are under way). Anything else (an unparsable packet among them) may.
func readsOnly(packet []byte) bool {
	var h jdwp.Header
	if h.Parse(packet) != nil {
		return false
	}
	if h.IsReply() || h.CommandSet == jdwp.SetEventRequest {
		return true
	}
	tr := commandTraits[h.Cmd()]
	return tr.keyable && !tr.endsEpoch && !tr.changesValues
}

// usedRemotely takes note that the far half answered a debugger command
// from the entry of key: the learner hears of it as of a hit here. It
// reports the size of the reply when that entry was speculated here and
// this is its first use.
func (s *Speculator) usedRemotely(key Key) (bytes int, firstUse bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if StateCommand(key.Command()) {
		m, err := key.Message(s.sizes)
		if err != nil {
			m = nil // the key alone is noted
		}
		s.table.asked(s, key, m)
	}
	if e, ok := s.cache.get(key); ok {
		first := e.synthetic && !e.used
		var r Response
		s.use(&r, key, e)
		return len(e.reply), first
	}
	if spec, ok := s.keySpecOf(key.Command()); ok {
		s.learnUsed(key, spec.life, s.susp.epoch, 0, true)
	}
	return 0, false
}
