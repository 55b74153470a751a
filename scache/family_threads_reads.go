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

// maxViewReads bounds the reads kept of one stop, maxViewWrites the
// debugger's writes whose place among them is kept.
const (
	maxViewReads  = 64
	maxViewWrites = 4
)

// viewReads is what the debugger read of moving state: in the epoch epoch
// (a stop of kind step; missed: a read found no reply it could be served,
// askViewAgain), and, by kind of stop, at the last stop of that kind that
// read any, if a read missed there or came after a write. A debugger that
// reads in the order the view is speculated (one command at a time) misses
// none, and its reads are not asked again.
type viewReads struct {
	epoch   uint64
	kind    stopKind
	missed  bool
	reading viewReadLog
	last    [numStopKinds]viewReadLog
	// askedAgain: the last stop's reads went out again at the stop of
	// the epoch (askReadsAgain). Its reads are kept as if one missed: a
	// stop they answered whole must not forget them for the next.
	askedAgain bool
}

// viewReadLog is a stop's reads of moving state, in order, and where the
// debugger's writes (SetValues and the like) came among them: writes[k] is
// how many reads came before its write k (counted from 0). Rule (b) serves
// no reply from before a write after it, so what the debugger reads after
// a write goes out behind it. thread is the thread of the stop the last
// read was made at (0: none): an epoch may begin at one thread's event and
// go on with another's stop taken up (takeup.go).
type viewReadLog struct {
	reads  []Key
	writes []int
	thread jdwp.ThreadID
}

// segment returns the reads between the k-th write (-1: the stop) and the
// next one, or the end.
func (l *viewReadLog) segment(k int) []Key {
	from, to := 0, len(l.reads)
	if k >= 0 {
		if k >= len(l.writes) {
			return nil
		}
		from = l.writes[k]
	}
	if k+1 < len(l.writes) {
		to = l.writes[k+1]
	}
	return l.reads[from:to]
}

// readAfterWrite reports whether the debugger read anything after a write.
func (l *viewReadLog) readAfterWrite() bool {
	return len(l.writes) > 0 && len(l.reads) > l.writes[0]
}

// roll keeps the reads of the epoch that ended, if any missed or came
// after a write.
func (r *viewReads) roll(s *Speculator) {
	if r.epoch == s.susp.epoch {
		return
	}
	if n := len(r.reading.reads); n > 0 && n >= len(r.last[r.kind].reads)/2 {
		// An epoch that an event ended a few reads into the stop (another
		// thread's, while the debugger reads this one) keeps the last
		// whole stop's reads.
		r.last[r.kind] = viewReadLog{}
		if r.missed || r.askedAgain || r.reading.readAfterWrite() {
			r.last[r.kind] = r.reading
		}
	}
	r.epoch, r.kind, r.missed, r.askedAgain, r.reading = s.susp.epoch, s.stop.event.kind, false, false, viewReadLog{}
}

// restAfter returns the reads that followed key at the last stop of the
// kind, up to its next write, where key is the epoch's last read and was
// read there as often before (ok false: it was not). A debugger that reads
// one at a time reads them next, in that order.
func (r *viewReads) restAfter(key Key) ([]Key, bool) {
	n := len(r.reading.reads)
	if n == 0 || r.reading.reads[n-1] != key {
		return nil, false
	}
	nth := 0
	for _, k := range r.reading.reads {
		if k == key {
			nth++
		}
	}
	last := &r.last[r.kind]
	for i, k := range last.reads {
		if k != key {
			continue
		}
		if nth--; nth > 0 {
			continue
		}
		end := len(last.reads)
		for _, w := range last.writes {
			if w > i {
				end = w
				break
			}
		}
		return last.reads[i+1 : end], true
	}
	return nil, false
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
	noteSuspendedAsk(s, key, m)
	if !readLogged(key.Command()) || !stateMoves(s) {
		return
	}
	r := &s.view.reads
	r.roll(s)
	if len(r.reading.reads) < maxViewReads {
		r.reading.reads = append(r.reading.reads, key)
		r.reading.thread = s.stop.event.thread
	}
}

// askReadsAgain asks, at a stop with the stopped thread alone suspended,
// the reads of moving state of the last stop of the same kind before its
// first write, in their order, each as often as the debugger read it; only
// on a VM known to be fast: on a slow one their service would cost more
// than the round trips they save, and the debugger's commands would wait
// behind them.
func askReadsAgain(s *Speculator, stop stopEvent) {
	if !stateMoves(s) || !s.cost.fast() {
		return
	}
	r := &s.view.reads
	r.roll(s)
	reads := r.last[stop.kind].segment(-1)
	r.askedAgain = len(reads) > 0
	enqueueReads(s, reads)
}

// askReadsAfterWrite is FamilyThreads' onValuesChanged: the debugger wrote,
// and what it read after the same write at the last stop of the kind goes
// out again right behind it, in its order (askReadsAgain's rules). A read
// of that stop's thread goes out of this stop's thread too, right after
// it: a debugger reads the stopped thread's name and suspend count after
// its edits, and the last stop was most often another thread's (workers
// taking turns). Only behind a write: at the stop, the view's reads of
// each thread by name stand where they stood, and copies between them
// would put off the ones after.
func askReadsAfterWrite(s *Speculator, _ []Key) {
	if !stateMoves(s) {
		return
	}
	r := &s.view.reads
	r.roll(s)
	k := len(r.reading.writes)
	if k >= maxViewWrites {
		return
	}
	r.reading.writes = append(r.reading.writes, len(r.reading.reads))
	if s.table.on(FamilyThreads) && s.cost.fast() && s.susp.settled() {
		last := &r.last[r.kind]
		enqueueReadsOf(s, last.segment(k), last.thread, s.stop.event.thread)
	}
}

// enqueueReadsOf is enqueueReads with, right after each read of thread was,
// the same read of thread now (none if either is 0 or they are the same).
func enqueueReadsOf(s *Speculator, reads []Key, was, now jdwp.ThreadID) {
	enqueue := func(key Key) {
		if m, err := key.Message(s.sizes); err == nil {
			s.enqueueInOrder(m)
		}
	}
	mapped := was != 0 && now != 0 && now != was
	for _, key := range reads {
		enqueue(key)
		if !mapped {
			continue
		}
		if t, ok := key.thread(s.sizes); ok && t == was {
			enqueue(key.withThread(now, s.sizes))
		}
	}
}

// readLogged reports whether cmd is a read of moving state whose order
// the log keeps: the threads view's (viewMoving), and a thread's suspend
// count, which a debugger reads of the stopped thread after its edits.
func readLogged(cmd jdwp.Command) bool {
	return viewMoving(cmd) || cmd == jdwp.CmdThreadReferenceSuspendCount
}

// enqueueReads queues reads in their order, each where it stands.
func enqueueReads(s *Speculator, reads []Key) { enqueueReadsOf(s, reads, 0, 0) }
