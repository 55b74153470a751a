package scache

import (
	"bytes"
	"encoding/binary"

	"github.com/jdwpscache/scache/jdwp"
)

// The audit (WithAudit). For each debugger command the Speculator answers
// itself (from the cache, derived from a cached reply, or held on a command
// in flight), it also sends the VM a copy of the command, with a synthetic
// id, where the debugger's command would have gone. The VM answers
// commands in order, so its reply to the copy is what plain forwarding
// would have given the debugger. The Speculator compares the two, absorbs
// the copy's reply, and counts the outcome (Stats.Audited,
// Stats.AuditMismatches), logging each mismatch. A held command's answer is
// known when the reply it waits on arrives, before the copy's (it was sent
// first); one sent to the VM after all (its wait released) is not audited.
//
// Moving entries are not audited: the sequential promise lets them differ
// from the VM's state now. Nor is the thread status in the Status of a
// thread other than the one an event stopped (its suspension is): a
// thread suspended in a sleep or a wait (by the debugger, or with every
// thread) runs on into its suspension once its time is up, and HotSpot
// reports it running from then on, though nothing else of it changes. A
// Status served is the one the thread had when it was read, which the
// debugger sees as it would have had it asked then. Nothing else of the
// Speculator sees the copies: they are not in flight for the cost model,
// the learner or the families.

// An audit is the check of one answer.
type audit struct {
	cmd    jdwp.Command
	served []byte // the answer's error code and data; nil: not known yet
	gone   bool   // the debugger got the VM's own answer after all
	// suspensionOnly: a Status of another thread than the one an event
	// stopped: its thread status is not compared.
	suspensionOnly bool
}

// audits holds the audits whose copy's reply is awaited, by the copy's id.
type audits map[uint32]*audit

// auditAnswer sends the VM a copy of the debugger's command c, which the
// Speculator answers with answer (a reply packet; nil: held, known later),
// and returns its audit. It does nothing without WithAudit, for a moving
// entry, or at a far half.
func (s *Speculator) auditAnswer(r *Response, c *upCommand, answer []byte) *audit {
	if !s.cfg.audit || s.cfg.follower || c.moving {
		return nil
	}
	if s.audits == nil {
		s.audits = make(audits)
	}
	a := &audit{cmd: c.cmd}
	if t, ok := threadOf(c.params); ok && c.cmd == jdwp.CmdThreadReferenceStatus {
		a.suspensionOnly = !s.stop.on || t != s.stop.event.thread
	}
	if answer != nil {
		a.served = auditedPart(answer)
	}
	id := s.queue.syntheticID(s.idBusy)
	s.audits[id] = a
	cp := s.retag(&s.scratch.up, c.packet, id)
	r.Edict.Upstream = append(r.Edict.Upstream, cp)
	r.Journal.Upstream = append(r.Journal.Upstream, cp)
	return a
}

// auditedPart is what an audit compares of a reply packet, copied: its
// error code and data (its id is the command's).
func auditedPart(reply []byte) []byte { return bytes.Clone(reply[jdwp.HeaderSize-2:]) }

// auditReply takes the VM's reply to an audit's copy, if the reply in d is
// one: it compares it with the answer the debugger got and absorbs it.
func (s *Speculator) auditReply(r *Response, d *downPacket) bool {
	if !d.h.IsReply() || len(s.audits) == 0 {
		return false
	}
	a, ok := s.audits[d.h.ID]
	if !ok {
		return false
	}
	delete(s.audits, d.h.ID)
	r.Outcome = Absorbed
	r.Journal.Downstream = append(r.Journal.Downstream, d.packet)
	if a.served == nil || a.gone {
		return true
	}
	s.stats.Audited++
	vm := auditedPart(d.packet)
	if a.suspensionOnly {
		vm = withoutThreadStatus(vm)
		a.served = withoutThreadStatus(a.served)
	}
	if !bytes.Equal(a.served, vm) {
		s.stats.AuditMismatches++
		s.log.Warn("scache: audit: the debugger's answer differs from the VM's", "command", a.cmd.String(),
			"answer", jdwp.ErrorCode(binary.BigEndian.Uint16(a.served)).String(), "answer_bytes", len(a.served)-2,
			"vm", d.h.ErrorCode.String(), "vm_bytes", len(vm)-2)
	}
	return true
}

// withoutThreadStatus returns the audited part of a Status reply (its
// error code, then the thread status and the suspend status) with the
// thread status zeroed.
func withoutThreadStatus(part []byte) []byte {
	if len(part) == 2+8 {
		part = bytes.Clone(part)
		clear(part[2:6])
	}
	return part
}

// idBusy reports whether a synthetic id is in use: a command in flight or
// an audit's copy.
func (s *Speculator) idBusy(id uint32) bool {
	_, auditing := s.audits[id]
	return auditing || s.inflight.busy(id)
}
