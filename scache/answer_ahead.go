package scache

import (
	"github.com/jdwpscache/scache/jdwp"
)

// Answers ahead. EventRequest.Clear's reply is fixed in practice: for an
// event kind the agent knows, clearing a request succeeds whether or not the
// request still exists (OpenJDK's agent, which ART uses too, takes a request
// it cannot find as "already freed": success). A debugger clears its step request at every step
// event and waits for that empty reply before it inspects the stop: a whole
// round trip that tells it nothing.
//
// Next to the debugger (a proxy there, the far half of a split proxy; see
// WithAnswerAhead), the Speculator forwards the debugger's Clear unchanged,
// in its place in the stream, and answers it at once with the empty reply:
// jdb clears its step request as it leaves each stop, where no speculation
// overlaps the round trip. The VM's reply,
// when it comes, is absorbed. Every later command of the debugger reaches
// the VM after the Clear, as it would have. It does so only for the kinds
// whose clearing touches nothing but the agent's own handler lists (single
// steps and breakpoints: a breakpoint's class stays loaded while the
// request holds it), and never once the session is ending (after Exit,
// Dispose or VMDeath a Clear may be answered VM_DEAD). Should the VM answer
// an error anyway, Stats.AheadContradicted counts it and the Speculator logs
// it.

// clearAnswerable reports whether a debugger's Clear packet may be answered
// ahead.
func (s *Speculator) clearAnswerable(cmd jdwp.Command, packet []byte) bool {
	if cmd != jdwp.CmdEventRequestClear || !s.cfg.answerAhead || s.over {
		return false
	}
	if s.replyAwaited(jdwp.PacketID(packet)) {
		return false // an id still in use: which reply is whose would be a guess
	}
	m, err := s.decodeParams(cmd, jdwp.Data(packet))
	if err != nil {
		return false
	}
	kind := m.(*jdwp.EventRequestClearCommand).EventKind
	return kind == jdwp.EventSingleStep || kind == jdwp.EventBreakpoint
}

// forwardAndAnswer forwards the debugger's command packet and answers it at
// once with a success reply carrying data (a Clear's: none; a Set's: the
// request id); the VM's own reply will be absorbed by absorbLateReply.
func (s *Speculator) forwardAndAnswer(r *Response, h jdwp.Header, packet, data []byte) {
	s.inflight.answeredAhead(h.ID)
	s.stats.AnsweredAhead++
	reply := jdwp.AppendReply(s.scratch.up.buf(jdwp.HeaderSize+len(data)), h.ID, jdwp.ErrNone, data)
	s.scratch.up.keep(reply)
	r.Outcome = AnsweredAhead
	s.forwardUp(r, packet)
	r.Edict.Downstream = append(r.Edict.Downstream, reply)
	r.Journal.Downstream = append(r.Journal.Downstream, reply)
	s.debug("answered ahead", h.ID, h.Cmd())
}

// absorbLateReply absorbs the VM's reply to a command answered ahead, if the
// reply packet with header h is one, and reports whether it was. The VM
// answers one connection's commands in order, so with an id used again the
// first reply is the earlier command's.
func (s *Speculator) absorbLateReply(r *Response, h jdwp.Header, packet []byte) bool {
	if !s.inflight.lateReply(h.ID) {
		return false
	}
	if h.ErrorCode != jdwp.ErrNone {
		s.stats.AheadContradicted++
		s.log.Warn("scache: the VM answered an error to a command answered ahead", "id", h.ID, "error", h.ErrorCode.String())
	}
	r.Outcome = Absorbed
	r.Journal.Downstream = append(r.Journal.Downstream, packet)
	return true
}
