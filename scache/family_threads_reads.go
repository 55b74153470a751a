package scache

import (
	"github.com/jdwpscache/scache/jdwp"
)

// The order of the debugger's reads of moving state. Under suspend-thread
// breakpoints with others running, a threads view's statuses, names and
// thread list are moving entries (sequential.go), and rule (a) serves one
// only if it arrived after every state already delivered. A debugger that
// reads in one order, stop after stop, finds the view speculated in that
// order. One that reads in parallel (an IDE's async mode: the JDI's reads
// from a pool of workers, a status twice per thread, then the name) asks
// them interleaved, and every read that comes before one it already got,
// in the VM's order, finds only an older reply: a round trip each time,
// several per stop. Its workers keep much the same order from stop to
// stop, so the reads of the last stop of the same kind go out again at the
// next, in their order and as often as they were asked, right behind the
// view: each read then finds a reply no older than the ones before it.

// maxViewReads bounds the reads kept of one stop.
const maxViewReads = 64

// viewReads is what the debugger read of moving state: in the epoch epoch
// (a stop of kind step; missed: a read found no reply it could be served,
// askViewAgain), and, by kind of stop, at the last stop of that kind that
// read any, if a read missed there. A debugger that reads in the order the
// view is speculated (one command at a time) misses none, and its reads
// are not asked again.
type viewReads struct {
	epoch   uint64
	kind    stopKind
	missed  bool
	reading []Key
	last    [numStopKinds][]Key
}

// roll keeps the reads of the epoch that ended, if any missed.
func (r *viewReads) roll(s *Speculator) {
	if r.epoch == s.susp.epoch {
		return
	}
	if len(r.reading) > 0 {
		r.last[r.kind] = nil
		if r.missed {
			r.last[r.kind] = r.reading
		}
	}
	r.epoch, r.kind, r.missed, r.reading = s.susp.epoch, s.stop.event.kind, false, nil
}

// miss notes that a read of the epoch found no reply it could be served.
func (r *viewReads) miss(s *Speculator) {
	r.roll(s)
	r.missed = true
}

// noteViewAsked follows the debugger's asks of the view's state: the
// thread list (askListAgain), and the order of its reads of moving state.
func noteViewAsked(s *Speculator, key Key, m jdwp.CommandMessage) {
	askListAgain(s, key, m)
	noteWalk(s, key, m)
	notePausedAsk(s, key)
	if !viewMoving(key.Command()) || s.susp.kind != threadSuspended || s.cfg.consistency != Sequential {
		return
	}
	r := &s.view.reads
	r.roll(s)
	if len(r.reading) < maxViewReads {
		r.reading = append(r.reading, key)
	}
}

// askReadsAgain asks, at a stop with the stopped thread alone suspended,
// the reads of moving state of the last stop of the same kind, in their
// order, each as often as the debugger read it; only on a VM known to be
// fast: on a slow one their service would cost more than the round trips
// they save, and the debugger's commands would wait behind them.
func askReadsAgain(s *Speculator, stop stopEvent) {
	if s.susp.kind != threadSuspended || s.cfg.consistency != Sequential || !s.cost.fast() {
		return
	}
	r := &s.view.reads
	r.roll(s)
	for _, key := range r.last[stop.kind] {
		if m, err := key.Message(s.sizes); err == nil {
			s.enqueueInOrder(m)
		}
	}
}
