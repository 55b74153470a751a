package scache

import (
	"fmt"

	"github.com/jdwpscache/scache/jdwp"
)

// State that moves while the debugger looks. Under suspend policy
// EVENT_THREAD the other threads run through a stop: their status, their
// names, the thread list and the thread-group tree may change between two
// commands of the debugger's threads view, and so may the fields of any
// object, an array's elements and a type's statics between two commands of
// its variables view. No reply about them is true for
// a whole epoch, so a linearizable proxy (Linearizable) forwards every such
// command, a round trip each. Under Sequential (the default) the
// Speculator asks them at the stop, caches the replies as moving entries,
// and serves one only if the debugger could not tell it from the VM's own
// threads having been scheduled a little later:
//
//   - (a) it arrived from the VM after every VM packet already delivered
//     to the debugger: the states behind what the debugger receives, in
//     the order it receives them, never go back in time;
//   - (b) no debugger command that changes state (a resume or suspend, an
//     invocation, SetValues, Interrupt, Stop, …) is unanswered, and the
//     last one's reply arrived before it: the debugger's own writes are
//     visible in every answer it gets after them.
//
// Positions are counted in the order packets arrive from the VM (at a far
// half, from the near half, which keeps the VM's order). The VM answers
// commands in the order it reads them, so a reply that arrived after a
// write's reply was produced after the write. Otherwise the command is
// forwarded, as under Linearizable.

// Consistency is the promise a Speculator keeps about state that may
// change while the debugger looks at it (WithConsistency).
type Consistency int

const (
	// Sequential: every reply equals the VM's answer in some real state;
	// the states behind what the debugger receives never go back in time
	// and come after every state-changing command it sent before asking.
	// Replies about running threads (status, name, group, the thread list
	// and group tree) and about values running code may change (fields,
	// array elements, statics) may be served from speculation. The default.
	Sequential Consistency = iota
	// Linearizable: every reply equals the VM's answer at some moment
	// between the debugger's command and the reply: only state that cannot
	// change while the debugger looks (suspended threads, class metadata,
	// objects' types) is served from speculation.
	Linearizable
)

// String returns the consistency's name.
func (c Consistency) String() string {
	switch c {
	case Sequential:
		return "sequential"
	case Linearizable:
		return "linearizable"
	}
	return fmt.Sprintf("Consistency(%d)", int(c))
}

// pins reports whether a reply to the command p, delivered to the
// debugger now, tells it a state of the VM at its position (PinsState).
// A reply cached as true for its whole epoch (a suspended thread's frames
// or values, asked in the epoch that goes on) is the VM's answer in every
// state of the epoch: it pins none, and what was speculated about the
// running threads earlier in the epoch may still follow it.
func (s *Speculator) pins(p *inFlight) bool {
	stable := (s.susp.current(p) || s.susp.parkedReply(p)) && !p.moving
	return PinsState(p.cmd) && !stable
}

// Consistency returns the promise the Speculator keeps (WithConsistency).
func (s *Speculator) Consistency() Consistency { return s.cfg.consistency }

// stateMoves reports whether state that running threads may change is
// served as moving entries now: under Sequential, with the stopped thread
// alone suspended.
func stateMoves(s *Speculator) bool {
	return s.cfg.consistency == Sequential && s.susp.kind == threadSuspended
}

// enqueueInOrder queues a command of a threads view where it stands in the
// view. A moving command already queued or in flight (the stopped thread's
// name, asked with the stop) goes out again: the debugger asks it again in
// its view, and a reply from before the ones around it there could not be
// served after them (rule a).
func (s *Speculator) enqueueInOrder(m jdwp.CommandMessage) { enqueueAs(s, m, false, false, true) }

// enqueueReadInOrder is enqueueInOrder for a read the debugger made itself
// at a recent stop: the learner does not pause it (admit's asked).
func enqueueReadInOrder(s *Speculator, m jdwp.CommandMessage) { enqueueAs(s, m, true, false, true) }

// maxRepeats bounds the older replies kept of a moving command.
const maxRepeats = 2
