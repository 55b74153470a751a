package scache

import "github.com/jdwpscache/scache/jdwp"

// A view held back, walked after all. The learner pauses the threads view
// at the stops of a kind where the debugger did not read it (learn.go).
// But a debugger's stops of one kind can differ: an IDE evaluating a
// conditional breakpoint reads the top frame and resumes at most hits, and
// at the hit where the condition holds shows the user everything, the
// threads view included; a user who opens the threads panel now and then
// does the same. There the debugger walks the whole view, every thread's
// status, depth and name, a round trip each. So once it shows that it
// walks the view at this stop, the view of the threads of the last list
// goes out at once, past the learner, and its reads wait for replies in
// flight instead:
//
//   - at its first ask of the thread list in the epoch, if at its last
//     stop of this kind that asked the list it read some thread's view
//     after it (Eclipse's JDI asks the list before every resume too, and
//     reads nothing behind that one);
//   - else at its first read of a thread's view that nothing answered.
//
// The view of threads new since the last list follows the list's reply
// (onAllThreads). Each goes out behind the debugger's command that set it
// off, so under Sequential its replies are newer than that one's
// (sequential.go: rule a).
//
// A walk the debugger did not read (no other thread's status, depth or
// name asked behind it) was set off by a read of the stop's own: jdb
// reads the stopped thread's name and depth at every stop, and a far half
// forwards them when the pushes come late, so that the near half misses
// them at stop after stop, and each walk took its VM the view's service
// time. After walkIdle such walks at stops of a kind, the next ones there
// go out only at the learner's probes (learn.go: probeEvery).

// viewWalk is what the family keeps of the debugger's walks of the view.
type viewWalk struct {
	// sent is the last epoch whose view went out on a walk; packet, the
	// debugger's packet that set it off (Stats.PacketsUp).
	sent   uint64
	packet int64
	// walks, by kind of stop, whether at the last stop of the kind whose
	// debugger asked the thread list it read a thread's view after it.
	walks [numStopKinds]bool
	// The current epoch's: whether the list was asked, and a thread's
	// view read after it; seen: another thread's view read after the
	// epoch's walk went out.
	epoch            uint64
	kind             stopKind
	list, read, seen bool
	// idle counts, by kind of stop, the last walks in a row after which
	// the debugger read no other thread's view (walkIdle).
	idle [numStopKinds]int
}

// walkIdle is how many walks in a row may go unread at stops of a kind
// before the next ones wait for the learner's probes: a debugger whose
// read that set a walk off was the stop's own (jdb reads the stopped
// thread's name and depth at every stop) walks nothing.
const walkIdle = 1

// roll starts the epoch's account, closing the last one's: whether its
// walk, if one went out, was read.
func (w *viewWalk) roll(s *Speculator) {
	if w.epoch == s.susp.epoch {
		return
	}
	if w.list {
		w.walks[w.kind] = w.read
	}
	switch {
	case w.sent != w.epoch || w.epoch == 0: // no walk in that epoch
	case w.seen:
		w.idle[w.kind] = 0
	default:
		w.idle[w.kind]++
	}
	w.epoch, w.kind, w.list, w.read, w.seen = s.susp.epoch, s.stop.event.kind, false, false, false
}

// noteWalk follows the debugger's asks of the view (noteViewAsked): it
// learns whether its list asks lead to reads of the view, and sends the
// view at a list ask that will (viewOnAsk's first case).
func noteWalk(s *Speculator, key Key, m jdwp.CommandMessage) {
	w := &s.view.walk
	w.roll(s)
	switch key.Command() {
	case jdwp.CmdVirtualMachineAllThreads:
		first := !w.list
		w.list = true
		if first && w.walks[w.kind] {
			walkView(s, false) // the debugger's own list is on its way
		}
	case jdwp.CmdThreadReferenceStatus, jdwp.CmdThreadReferenceName, jdwp.CmdThreadReferenceFrameCount:
		w.read = w.read || w.list
		if t, ok := threadOf(m); ok && t != s.stop.event.thread && w.sent == s.susp.epoch {
			w.seen = true
		}
	}
}

// onViewMissed follows a command of the family nothing answered: the view
// at the first read of it in an epoch where the learner held it back, and
// else the view again behind a moving one (askViewAgain): behind the miss
// that set a walk off, the view went out whole already.
func onViewMissed(s *Speculator, m jdwp.CommandMessage, life lifetime) {
	switch m.Command() {
	case jdwp.CmdThreadReferenceStatus, jdwp.CmdThreadReferenceName, jdwp.CmdThreadReferenceFrameCount:
		walkView(s, false)
	}
	if w := &s.view.walk; w.packet == s.stats.PacketsUp && w.sent == s.susp.epoch {
		s.view.reads.miss(s)
		return
	}
	askViewAgain(s, m, life)
}

// walkView sends the view of the threads of the last list past the
// learner, with list the list first, once an epoch, if the learner held
// it back at this stop.
func walkView(s *Speculator, list bool) {
	w := &s.view.walk
	w.roll(s)
	if !s.stop.on || !threadsViewSpeculable(s) || w.sent == s.susp.epoch || !s.learn.viewHeldBack() {
		return
	}
	if kind := s.stop.event.kind; w.idle[kind] >= walkIdle && s.stop.count[kind]%probeEvery != 0 {
		return // the last walks went unread: only the learner's probes walk
	}
	w.sent, w.packet = s.susp.epoch, s.stats.PacketsUp
	if list {
		enqueueAs(s, &jdwp.VMAllThreadsCommand{}, true, false, true) // in order: it leads the view
	}
	enqueueView(s, s.stop.threads, true)
	s.view.viewed, s.view.epoch = append(s.view.viewed[:0], s.stop.threads...), s.susp.epoch
}
