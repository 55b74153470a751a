package scache

import "fmt"

// This file owns the positions: the Speculator's counts of the VM's
// stream, which decide when a moving entry (state of running threads,
// cached under the sequential promise) may answer the debugger. Rules (a)
// and (b) of sequential.go are its methods noEarlier and afterWrites; only
// its methods change it.

// positions are the Speculator's counts of the VM's stream, for moving
// entries.
type positions struct {
	arrived   uint64 // packets from the VM so far
	delivered uint64 // the position of the newest state delivered to the debugger
	// writes holds the ids of the debugger's state-changing commands not
	// yet answered; writeAnswered, the position of the last one's reply.
	writes        map[uint32]struct{}
	writeAnswered uint64
	writesSent    uint64 // state-changing commands sent, ever
}

// arrive counts a packet from the VM.
func (p *positions) arrive() { p.arrived++ }

// delivered notes that the debugger received state of the VM's position at.
func (p *positions) deliver(at uint64) { p.delivered = max(p.delivered, at) }

// noEarlier is rule (a): a reply that arrived at position arrived tells no
// state older than one the debugger already received.
func (p *positions) noEarlier(arrived uint64) bool { return arrived >= p.delivered }

// afterWrites is rule (b): a reply that arrived at position arrived came
// after the VM processed every state-changing command the debugger sent,
// and none is unanswered.
func (p *positions) afterWrites(arrived uint64) bool {
	return len(p.writes) == 0 && arrived > p.writeAnswered
}

// servable reports whether a moving entry that arrived at position arrived
// may answer the debugger now: rules (a) and (b).
func (p *positions) servable(arrived uint64) bool {
	return p.noEarlier(arrived) && p.afterWrites(arrived)
}

// write notes a debugger command that changes state, sent with id; at
// most limit are unanswered at once.
func (p *positions) write(id uint32, limit int) error {
	if len(p.writes) >= limit {
		return fmt.Errorf("%d commands that change state are unanswered", len(p.writes))
	}
	if p.writes == nil {
		p.writes = make(map[uint32]struct{})
	}
	p.writes[id] = struct{}{}
	p.writesSent++
	return nil
}

// answered notes the reply with id, if it answers a write.
func (p *positions) answered(id uint32) {
	if _, ok := p.writes[id]; ok {
		delete(p.writes, id)
		p.writeAnswered = p.arrived
	}
}
