package scache

import (
	"time"

	"github.com/jdwpscache/scache/jdwp"
)

// This file owns the in-flight table: the commands sent upstream whose
// reply matters, the debugger's commands held on them (belay), and the
// debugger's commands answered ahead. Every write to the table and to its
// records (poisoned, waiters, repeats, answered) is a method here; the
// rest of the package reads it and calls these verbs.

// inflightState holds the commands sent upstream and not answered.
type inflightState struct {
	// pending holds the commands sent upstream whose reply matters: every
	// synthetic command, and the debugger's commands whose reply is cached or
	// triggers something.
	pending map[uint32]*inFlight
	// byKey indexes the keyable commands of pending whose reply may still be
	// cached, for belay and to avoid speculating twice.
	byKey map[Key]*inFlight
	// ahead counts, by id, the debugger's commands answered ahead whose
	// reply from the VM is still to absorb (answer_ahead.go).
	ahead map[uint32]int
	// held lists the belayed debugger commands, in arrival order.
	held      []*heldCommand
	synthetic int // synthetic commands in flight
	// readsOverlap: the debugger sent a read of moving state while another
	// was unanswered (forwarded, or held on a reply in flight), as a
	// parallel client does (sawRead).
	readsOverlap bool
}

// inFlight is a command awaiting its reply.
type inFlight struct {
	id  uint32
	cmd jdwp.Command
	key Key // "" when not keyable
	subject
	epoch     uint64 // the suspension epoch it was sent in
	synthetic bool
	poisoned  bool      // invalidated while in flight: the reply answers waiters but is not cached
	writes    uint64    // the state-changing commands the debugger had sent when it was sent (sequential.go)
	repeat    *inFlight // the next repeat of the same moving command, sent while this one was in flight (sequential.go)
	// behind: a state command sent behind the debugger's Suspend or PopFrames in flight,
	// kept out of the cache until its reply (behind.go).
	behind bool
	sentAt time.Time // when it went to the VM, with a clock (cost.go)
	alone  bool      // nothing else was outstanding at the VM then
	seq    uint64    // a synthetic command's place among those sent (cost_behind.go)
	// expectBytes: a synthetic command's expected reply size when it was
	// sent, counted in the bytes in flight until its reply (cost_bytes.go).
	expectBytes int64
	waiters     []*heldCommand
}

// heldCommand is a debugger command waiting on a reply in flight.
type heldCommand struct {
	id       uint32
	packet   []byte // a copy, sent upstream if the Speculator is disabled meanwhile
	answered bool
	audit    *audit // with WithAudit: the check of its answer (audit.go)
}

// sawRead notes a debugger's read of moving state (sequential.go) as it
// arrives: whether another such read of the debugger's is unanswered.
func (t *inflightState) sawRead() {
	for _, p := range t.pending {
		if !p.moving {
			continue
		}
		if !p.synthetic {
			t.readsOverlap = true
			return
		}
		for _, w := range p.waiters {
			if !w.answered {
				t.readsOverlap = true
				return
			}
		}
	}
}

// closeOut empties the table as the Speculator closes: nothing in flight
// is awaited any more.
func (t *inflightState) closeOut() {
	t.pending = make(map[uint32]*inFlight)
	t.ahead = nil
	t.held = nil
	t.synthetic = 0
}

// unansweredHeld counts the held commands not answered yet.
func (t *inflightState) unansweredHeld() int {
	n := 0
	for _, h := range t.held {
		if !h.answered {
			n++
		}
	}
	return n
}

// roomFor reports whether a debugger's command may be tracked, with at
// most organic of them beside the synthetic ones (a VM that never answers
// must not grow the table without bound).
func (t *inflightState) roomFor(organic int) bool {
	return len(t.pending) < organic+t.synthetic
}

// hasKey reports whether a command with key is in flight.
func (t *inflightState) hasKey(key Key) bool {
	_, ok := t.byKey[key]
	return ok
}

// hasKeyIn reports whether a command with key is in flight, the first or
// a repeat behind it, if moving one sent in epoch: a moving read kept
// across an event, sent in the epoch before (dropEpochStateAt), does not
// keep the new stop from asking it in its own order.
func (t *inflightState) hasKeyIn(key Key, epoch uint64) bool {
	for p := t.byKey[key]; p != nil; p = p.repeat {
		if (!p.moving || p.epoch == epoch) && t.pending[p.id] == p && !p.poisoned {
			return true
		}
	}
	return false
}

// busy reports whether a command with id is in flight.
func (t *inflightState) busy(id uint32) bool {
	_, ok := t.pending[id]
	return ok
}

// add tracks a debugger's command sent upstream; with belay, a keyed one
// is what the next asks of its key wait on.
func (t *inflightState) add(p *inFlight, belay bool) {
	t.pending[p.id] = p
	if p.key != "" && belay {
		t.byKey[p.key] = p
	}
}

// addSynthetic tracks a synthetic command sent (or, at a far half,
// announced by the near half).
func (t *inflightState) addSynthetic(p *inFlight) {
	t.pending[p.id] = p
	t.synthetic++
}

// syntheticAnswered counts a synthetic command's reply absorbed.
func (t *inflightState) syntheticAnswered() { t.synthetic-- }

// belayOn makes p, just sent or adopted, the command in flight the
// debugger's asks of its key wait on; a moving repeat of one already in
// flight goes behind the last repeat, the first's answering the first ask.
func (t *inflightState) belayOn(p *inFlight) {
	first, ok := t.byKey[p.key]
	if !ok {
		t.byKey[p.key] = p
		return
	}
	if !p.moving {
		return
	}
	for first.repeat != nil {
		first = first.repeat
	}
	first.repeat = p
}

// answered takes p, whose reply arrived, out of the table; the asks of its
// key now wait on its next repeat still to be answered, if any.
func (t *inflightState) answered(p *inFlight) {
	delete(t.pending, p.id)
	if t.byKey[p.key] == p {
		delete(t.byKey, p.key)
		if next := t.nextRepeat(p); next != nil {
			t.byKey[p.key] = next
		}
	}
}

// nextRepeat returns the repeat behind p still to be answered, if any,
// for the debugger's asks to wait on once p's reply arrived.
func (t *inflightState) nextRepeat(p *inFlight) *inFlight {
	for q := p.repeat; q != nil; q = q.repeat {
		if !q.poisoned && t.pending[q.id] == q {
			return q
		}
	}
	return nil
}

// hold belays the debugger's command hc on p.
func (t *inflightState) hold(p *inFlight, hc *heldCommand) {
	p.waiters = append(p.waiters, hc)
	t.held = append(t.held, hc)
}

// compactHeld drops answered commands from the held list.
func (t *inflightState) compactHeld() {
	kept := t.held[:0]
	for _, h := range t.held {
		if !h.answered {
			kept = append(kept, h)
		}
	}
	for i := len(kept); i < len(t.held); i++ {
		t.held[i] = nil
	}
	t.held = kept
}

// poisonWhere poisons the commands in flight that match: their replies
// still answer the commands held on them, but are not cached, and no ask
// waits on them any more.
func (t *inflightState) poisonWhere(match func(*inFlight) bool) {
	for _, p := range t.pending {
		if match(p) {
			p.poisoned = true
			if t.byKey[p.key] == p {
				delete(t.byKey, p.key)
			}
		}
	}
}

// keepSyntheticOnly forgets the debugger's commands in flight and every
// hold, as speculation switches off: only the synthetic commands' replies
// are still to absorb.
func (t *inflightState) keepSyntheticOnly() {
	t.held = nil
	for id, p := range t.pending {
		p.waiters = nil
		if !p.synthetic {
			delete(t.pending, id)
		}
	}
	t.byKey = make(map[Key]*inFlight)
}

// answeredAhead notes a debugger's command answered ahead (answer_ahead.go):
// the VM's reply to id is still to absorb.
func (t *inflightState) answeredAhead(id uint32) {
	if t.ahead == nil {
		t.ahead = make(map[uint32]int)
	}
	t.ahead[id]++
}

// lateReply reports whether a reply with id is the VM's to a command
// answered ahead, and counts it absorbed.
func (t *inflightState) lateReply(id uint32) bool {
	n := t.ahead[id]
	switch {
	case n == 0:
		return false
	case n == 1:
		delete(t.ahead, id)
	default:
		t.ahead[id] = n - 1
	}
	return true
}

// poison marks p's reply as one not to cache (it still answers the
// commands held on it).
func (p *inFlight) poison() { p.poisoned = true }

// takeWaiters returns the commands held on p and forgets them.
func (p *inFlight) takeWaiters() []*heldCommand {
	w := p.waiters
	p.waiters = nil
	return w
}

// answer marks a held command answered, and reports whether it was not
// already.
func (h *heldCommand) answer() bool {
	if h.answered {
		return false
	}
	h.answered = true
	return true
}
