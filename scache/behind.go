package scache

import "github.com/jdwpscache/scache/jdwp"

// Reads behind a command the VM finishes before it reads the next. The VM
// reads its commands one at a time, in the order they arrive, and three of
// the debugger's commands that change what state replies say are done
// before the agent reads on: VirtualMachine.Suspend (every thread is
// suspended before it replies), ThreadReference.Suspend (its thread is)
// and StackFrame.PopFrames (the agent pops the frames, resuming the
// thread alone to step out of each, and suspends it again before it
// replies: family_popframes.go). A command sent right behind any of them
// is read in the state it leaves, and its reply comes back right behind
// its reply. So what the debugger reads once it is answered (an IDE's
// threads view, at a Pause; the stack of a thread the user suspended; the
// thread's frames, after a Drop Frame) goes out with it (the table's
// onBehind, enqueueBehind) and is back in its own round trip, instead of
// one round trip later. Invocations are not such commands: the agent
// reads on while the method runs.
//
// A ThreadReference.Suspend's reply parks its thread (parked.go): it stays
// where it is until a command lets it run, so its own state is cached
// until then, as that of a thread suspended by its own event. Only where
// nothing ended the epoch since the Suspend went out: a command that lets
// threads run, sent behind it, may have let the thread run again. One
// thing of such a thread may still change: suspended in a sleep or a wait,
// it runs on into its suspension once its time is up, and the VM reports
// it running from then on. Its status as read is served (audit.go says why
// that is the sequential promise).
//
// Such a reply is of the epoch the command's reply begins, not of the one
// it is sent in. So every state command sent while the command is
// unanswered (the near half's, or announced to a far half by a near half
// that had seen the command) is held behind it: kept out of the cache and
// not waited on until the command's reply. The reply adopts them into its
// epoch, each as the suspension it proves lets it be cached (moving or
// not), if nothing else ended the epoch since the command went out: no
// event, no other command that lets threads run or ends the epoch (the
// debugger's own such command gives them up at once). Otherwise they are
// poisoned.

// behindCommand is the debugger's command in flight that state commands
// are read behind: a VirtualMachine.Suspend or a StackFrame.PopFrames.
type behindCommand struct {
	on    bool
	id    uint32 // the command's id
	epoch uint64 // the epoch it began as it went out (both end one)
	// sent lists the state commands sent, or adopted from a near half, since
	// it went out, in that order: the reply adopts them in it.
	sent []*inFlight
	// queued holds the keys enqueueBehind queued since it went out.
	queued map[Key]bool
	// suspends is the thread a ThreadReference.Suspend suspends (0: the
	// command is another).
	suspends jdwp.ThreadID
}

// readBehind takes note of the debugger's command cmd with id, a Suspend or
// a PopFrames (back: the thread whose frames it pops and where it will
// stand), going out (the epoch it ends has ended), and has the families
// queue behind it what they will read at its reply.
func readBehind(s *Speculator, id uint32, cmd jdwp.Command, back stopEvent) {
	giveUpBehind(s)
	s.behind = behindCommand{on: true, id: id, epoch: s.susp.epoch}
	if cmd == jdwp.CmdThreadReferenceSuspend {
		s.behind.suspends = back.thread
	}
	s.table.behind(s, cmd, back)
}

// parkBehind takes the reply, with code, to the debugger's
// ThreadReference.Suspend id: if it succeeded and nothing ended the epoch
// since it went out, its thread is parked, and the commands read behind
// it are adopted as its state; else they are given up.
func parkBehind(s *Speculator, id uint32, code jdwp.ErrorCode) {
	b := s.behind
	intact := b.on && b.id == id && s.susp.epoch == b.epoch && b.suspends != 0
	held := heldBehind(s, id)
	if code != jdwp.ErrNone || !intact || !s.susp.settled() {
		return
	}
	s.susp.park(b.suspends)
	adoptBehind(s, held)
}

// enqueueBehind queues the state command m to go out behind the debugger's
// command in flight (readBehind), read in the state it leaves: it passes
// the policy and the cost model as the debugger's own reads do (asked: the
// families queue what the debugger read at such a reply), and goes out even
// if its key is cached or in flight in the epoch that ends.
func enqueueBehind(s *Speculator, m jdwp.CommandMessage) {
	if !s.behind.on || s.queue.closed() {
		return
	}
	spec, ok := s.keySpecOf(m.Command())
	if !ok || spec.life != lifetimeSuspension {
		return
	}
	if !pays(s, m, spec, true) {
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
// that may change what it reads), is held behind the command in flight,
// and if so notes it: a state command sent after it.
func holdBehind(s *Speculator, p *inFlight) bool {
	if !s.behind.on || p.key == "" || p.life != lifetimeSuspension {
		return false
	}
	p.behind, p.moving, p.thread = true, false, 0
	s.behind.sent = append(s.behind.sent, p)
	return true
}

// heldBehind returns, at the reply to the debugger's command id, before
// the epoch ends, the commands held behind it that its reply may adopt:
// still in flight and not invalidated, if nothing ended the epoch since it
// went out. It gives up the rest, and the adoption with them until
// adoptBehind.
func heldBehind(s *Speculator, id uint32) []*inFlight {
	var held []*inFlight
	if b := s.behind; b.on && b.id == id && s.susp.epoch == b.epoch {
		for _, q := range b.sent {
			if s.inflight.pending[q.id] == q && !q.poisoned {
				held = append(held, q)
			}
		}
	}
	giveUpBehind(s)
	return held
}

// adoptBehind adopts the commands held behind a command (heldBehind) into
// the epoch its reply began, each as the suspension now lets it be cached
// (the rest stay poisoned).
func adoptBehind(s *Speculator, held []*inFlight) {
	for _, q := range held {
		spec, ok := s.keySpecOf(q.cmd)
		if !ok {
			continue
		}
		m, err := q.key.Message(s.sizes)
		if err != nil {
			continue
		}
		cacheable, moving, parked := s.susp.cacheable(spec, m, s.cfg.consistency)
		if !cacheable {
			continue
		}
		q.poisoned, q.epoch, q.moving, q.thread = false, s.susp.epoch, moving, parked
		if s.cfg.belay {
			s.inflight.belayOn(q)
		}
	}
}

// giveUpBehind poisons the commands held behind the command in flight and
// drops those still queued: a debugger command that may let threads run,
// or ends the epoch, went out behind them, or its reply is about to say
// what it proves (heldBehind, adoptBehind).
func giveUpBehind(s *Speculator) {
	if !s.behind.on {
		return
	}
	for _, p := range s.behind.sent {
		p.behind = false
		p.poison()
	}
	s.queue.dropWhere(func(q queued) bool { return q.behind })
	s.behind = behindCommand{}
}
