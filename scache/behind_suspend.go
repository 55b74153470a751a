package scache

import "github.com/jdwpscache/scache/jdwp"

// Speculation behind a Suspend. The VM reads its commands one at a time, in
// the order they arrive: a command sent right behind the debugger's
// VirtualMachine.Suspend is processed once every thread is suspended, and
// its reply comes back right behind the Suspend's. So what the debugger
// reads once its Suspend is answered (an IDE's threads view, at a Pause)
// goes out with the Suspend (the table's onPausing, enqueueBehind) and is
// back in the Suspend's own round trip, instead of one round trip later.
//
// Such a reply is of the epoch the Suspend's reply begins, not of the one
// it is sent in, which may have running threads. So every state command
// sent while the Suspend is unanswered (the near half's, or announced to a
// far half by a near half that had seen the Suspend) is held behind it:
// kept out of the cache and not waited on until the Suspend's reply. The
// reply adopts them into its epoch if it proved every thread suspended and
// nothing ended the epoch since the Suspend went out (nothing that let a
// thread run, no event, no other Suspend). Otherwise they are
// poisoned. A debugger command sent meanwhile that may let threads run, or
// ends the epoch, gives them up at once.

// behindSuspend is the debugger's VirtualMachine.Suspend in flight that
// state commands are held behind.
type behindSuspend struct {
	on    bool
	id    uint32 // the Suspend's id
	epoch uint64 // the epoch it began as it went out (state.go: a Suspend ends one)
	// sent lists the state commands sent, or adopted from a near half, since
	// it went out, in that order: the reply adopts them in it.
	sent []*inFlight
	// queued holds the keys enqueueBehind queued since it went out.
	queued map[Key]bool
}

// suspendSent takes note of the debugger's VirtualMachine.Suspend with id
// going out (the epoch it ends has ended), and, unless a command that may
// let threads run is unanswered, has the families queue behind it what
// they will read at its reply.
func suspendSent(s *Speculator, id uint32) {
	giveUpBehind(s)
	if !s.susp.settled() {
		return
	}
	s.behind = behindSuspend{on: true, id: id, epoch: s.susp.epoch}
	s.table.pausing(s)
}

// enqueueBehind queues the state command m to go out behind the debugger's
// Suspend in flight, read as every thread is suspended: it passes the
// policy and the cost model as the debugger's own reads do (asked: the
// families queue what the debugger read at its last such reply), and goes
// out even if its key is cached or in flight in the epoch that ends.
func enqueueBehind(s *Speculator, m jdwp.CommandMessage) {
	if !s.behind.on || s.queue.closed() {
		return
	}
	spec, ok := s.keySpecOf(m.Command())
	if !ok || spec.life != lifetimeSuspension {
		return
	}
	if cost := s.cost.costOf(m.Command()); cost > 0 && !s.cost.pays(s.learn.oddsOf(m, spec, true), cost) {
		return
	}
	key := s.newKey(m)
	if s.behind.queued[key] {
		return
	}
	if s.behind.queued == nil {
		s.behind.queued = make(map[Key]bool)
	}
	s.behind.queued[key] = true
	s.queue.push(queued{key: key, msg: m, subject: subjectOf(spec, m), behind: true}, true)
}

// holdBehind reports whether p, a synthetic command being sent (or, at a
// far half, adopted from a near half that had seen every debugger command
// that may change what it reads), is held behind the Suspend in flight,
// and if so notes it: a state command sent after the Suspend.
func holdBehind(s *Speculator, p *inFlight) bool {
	if !s.behind.on || p.key == "" || p.life != lifetimeSuspension {
		return false
	}
	p.behind, p.moving, p.thread = true, false, 0
	s.behind.sent = append(s.behind.sent, p)
	return true
}

// suspendAnswered ends the epoch at the successful reply to the debugger's
// Suspend p, and takes note of what the reply proves; the commands held
// behind it are adopted into the new epoch if it proves every thread
// suspended since it was processed, and poisoned otherwise.
func suspendAnswered(s *Speculator, p *inFlight) {
	var adopt []*inFlight
	if b := s.behind; b.on && b.id == p.id && s.susp.epoch == b.epoch {
		for _, q := range b.sent {
			if s.inflight.pending[q.id] == q && !q.poisoned {
				adopt = append(adopt, q)
			}
		}
	}
	giveUpBehind(s)
	s.endEpoch()
	s.susp.suspendAnswered()
	if s.susp.kind != allSuspended {
		return
	}
	for _, q := range adopt {
		q.poisoned, q.epoch = false, s.susp.epoch
		if s.cfg.belay {
			s.inflight.belayOn(q)
		}
	}
}

// giveUpBehind poisons the commands held behind a Suspend in flight and
// drops those still queued: a debugger command that may let threads run,
// or ends the epoch, went out behind them, or the Suspend's reply is
// about to prove what it proves (suspendAnswered adopts them again).
func giveUpBehind(s *Speculator) {
	if !s.behind.on {
		return
	}
	for _, p := range s.behind.sent {
		p.behind = false
		p.poison()
	}
	s.queue.dropWhere(func(q queued) bool { return q.behind })
	s.behind = behindSuspend{}
}
