package scache

import (
	"slices"

	"github.com/jdwpscache/scache/jdwp"
)

// FamilyThreads: a debugger's threads view at a stop (the thread list,
// each thread's name, status, depth and, once the debugger asked another
// thread's, top frame), asked while the suspension lets the replies be
// cached; and the thread list as a VM started suspended begins a session.

// threadsView is what FamilyThreads sent at the stop: the threads whose
// view went out at the stop of epoch epoch, so that an AllThreads reply of
// that epoch adds the others only.
type threadsView struct {
	viewed []jdwp.ThreadID
	epoch  uint64
	// listAsks counts the debugger's AllThreads of epoch listEpoch, at a
	// stop of kind listKind; lastAsks, by kind of stop, those of the last
	// epoch it asked one in.
	listAsks  int
	lastAsks  [numStopKinds]int
	listEpoch uint64
	listKind  stopKind
	// quietEpoch is the epoch of the last event that suspended every
	// thread at no location; listWhenQuiet, whether the debugger asked the
	// list in such an epoch.
	quietEpoch    uint64
	listWhenQuiet bool
	// againEpoch is the epoch of the last view asked again behind a
	// moving command the debugger asked itself; againAsks, how many times
	// in it (askViewAgain).
	againEpoch uint64
	againAsks  int
	// reads is the order of the debugger's reads of moving state
	// (family_threads_reads.go).
	reads viewReads
	// walk is what the debugger's asks tell of its walks of the view
	// (family_threads_walk.go).
	walk viewWalk
	// paused is what the debugger asked at its pauses
	// (family_threads_paused.go).
	paused pausedView
	// suspended is what the debugger read of the last thread it suspended
	// (family_threads_suspended.go).
	suspended suspendedView
}

// maxViewAgain bounds the views asked again in one epoch (askViewAgain).
const maxViewAgain = 2

// askViewAgain follows a moving command of the view (a running thread's
// status or name, the thread list) that the debugger asked and nothing
// answered: the VM's reply, once delivered, is newer than every reply of
// the view speculated before it, which rule (a) keeps from answering
// after it (sequential.go). One such miss would send the rest of the view
// to the VM, a round trip each for a client that asks in order, and all of
// it for one that asks in parallel. So the view goes out again right
// behind the miss, where the debugger's next asks find it, newer than what
// the miss tells; at most maxViewAgain times an epoch, and on a slow VM
// only for a debugger whose reads never overlapped (one at a time). Such a
// debugger gets, where it read the same at its last stop of the kind, the
// reads that followed there, in their order (viewReads.restAfter).
func askViewAgain(s *Speculator, m jdwp.CommandMessage, life lifetime) {
	if life != lifetimeSuspension || !viewMoving(m.Command()) || !stateMoves(s) || !s.susp.settled() {
		return
	}
	v := &s.view
	v.reads.miss(s)
	if v.againEpoch != s.susp.epoch {
		v.againEpoch, v.againAsks = s.susp.epoch, 0
	}
	if v.againAsks >= maxViewAgain || len(s.stop.threads) == 0 {
		return
	}
	if s.cost.slow() && s.inflight.readsOverlap {
		// On a slow VM the whole view's service time costs more than the
		// round trips it saves to a parallel client, whose misses overlap
		// (BenchmarkSlowVMClients). A debugger that reads one at a time
		// waits a round trip and a service time for each read the view
		// answers instead.
		return
	}
	v.againAsks++
	if rest, ok := v.reads.restAfter(s.newKey(m)); ok && !s.inflight.readsOverlap {
		// One at a time, the debugger reads the rest of its view in the
		// order it read it at its last stop of the kind: one copy in that
		// order answers each read.
		enqueueReads(s, rest)
		return
	}
	copies := 1
	if s.cost.fast() {
		copies = viewCopies
	}
	for range copies {
		s.enqueueInOrder(&jdwp.VMAllThreadsCommand{})
		enqueueThreadsView(s, s.stop.threads)
	}
}

// viewMoving reports whether cmd reads moving state of the threads view.
func viewMoving(cmd jdwp.Command) bool { return viewStateReads[cmd] }

// viewStateReads are the reads of moving state a threads view makes (each
// a moving entry, keyable.go): a thread's status, name or group, the
// thread list, the group tree. Not values: those of objects move too, but
// no threads view reads them; nor a thread's suspend count, which a
// debugger reads of the thread it shows, not of each thread in its view;
// nor the loaded classes.
var viewStateReads = map[jdwp.Command]bool{
	jdwp.CmdThreadReferenceStatus:              true,
	jdwp.CmdThreadReferenceName:                true,
	jdwp.CmdThreadReferenceThreadGroup:         true,
	jdwp.CmdVirtualMachineAllThreads:           true,
	jdwp.CmdVirtualMachineTopLevelThreadGroups: true,
	jdwp.CmdThreadGroupReferenceChildren:       true,
}

// viewCopies is how many views go out again at once (askViewAgain), on a
// VM known to be fast (one view otherwise). A debugger that reads the view
// in parallel (an IDE's async mode) asks its threads' status and names in
// whatever order its workers run, and each read that comes before one
// already answered, in the order the replies came, needs a newer copy
// under rule (a): each copy behind the first serves one more such read
// of the waves that follow without a round trip of its own.
const viewCopies = 3

// speculateThreads asks, at a stop with every thread suspended, for the
// threads, as a debugger's threads view does, and at once for the view of
// each thread the last AllThreads reply listed: most are this stop's
// threads too, and their view comes back in the same round trip instead of
// one reply behind (a thread gone since costs only its three commands).
// With the stopped thread alone suspended, the others run: under
// Linearizable only its status is true until it runs (its depth follows
// from its frames); under Sequential the list and the others' status and
// name go out too, as moving entries (sequential.go).
func speculateThreads(s *Speculator, stop stopEvent) {
	switch {
	case threadsViewSpeculable(s):
		enqueueListAndView(s)
		askReadsAgain(s, stop)
		if s.view.lastListAsks(stop.kind, s.susp.epoch) >= 2 {
			// The list asked again where the view ends (askListAgain),
			// from the stop on: a far half learns of the first ask a
			// half round trip after the debugger made it.
			s.enqueueInOrder(&jdwp.VMAllThreadsCommand{})
		}
	case s.susp.kind == threadSuspended:
		s.enqueue(&jdwp.ThreadStatusCommand{Thread: stop.thread}, false)
	}
}

// speculateThreadList asks for the thread list at an event that suspends
// every thread at no location (onQuiet): as a VM started suspended begins
// a session, and at a class prepared once the debugger asked the list at
// such an event. Eclipse's JDI (the Eclipse IDE's, VS Code's) asks it
// before every resume, the first one included; the JDK's asks none there.
func speculateThreadList(s *Speculator, start bool) {
	v := &s.view
	v.quietEpoch = s.susp.epoch
	if start || v.listWhenQuiet {
		s.enqueue(&jdwp.VMAllThreadsCommand{}, false)
	}
}

// threadsViewSpeculable reports whether the threads view may be asked now:
// every thread is suspended, or moving entries are served.
func threadsViewSpeculable(s *Speculator) bool {
	return s.susp.kind == allSuspended || stateMoves(s)
}

// onAllThreads asks, while every thread is suspended (or, under
// Sequential, the stopped one), for each thread's status, depth and name,
// as a debugger's threads view does: of every thread the list holds, or,
// when the view of the last list went out with this stop, of the threads
// new since.
func onAllThreads(s *Speculator, p *inFlight, reply *replyData) error {
	if !threadsViewSpeculable(s) {
		return nil
	}
	m, err := reply.typed(s)
	if err != nil {
		return err
	}
	asked := m.(*jdwp.ObjectIDsReply).IDs
	if s.view.epoch == s.susp.epoch {
		asked = slices.DeleteFunc(slices.Clone(asked), func(t jdwp.ThreadID) bool { return slices.Contains(s.view.viewed, t) })
	}
	// The debugger's own list, at a stop where it walks the view the
	// learner held back, goes past the learner (family_threads_walk.go).
	enqueueView(s, asked, !p.synthetic && s.view.walk.sent == s.susp.epoch)
	return nil
}

// enqueueListAndView queues the thread list and, in the same round, the
// view of each thread the last list showed (enqueueThreadsView), noted
// as viewed in the epoch: onAllThreads then asks only of threads new since.
func enqueueListAndView(s *Speculator) {
	s.enqueue(&jdwp.VMAllThreadsCommand{}, false)
	enqueueThreadsView(s, s.stop.threads)
	s.view.viewed, s.view.epoch = append(s.view.viewed[:0], s.stop.threads...), s.susp.epoch
}

// enqueueThreadsView queues each thread's status, depth and name, and,
// once the debugger asked where another thread is (an IDE's threads view
// shows each one's top frame), each other thread's top frame. What the
// debugger does not ask, the learner soon pauses.
func enqueueThreadsView(s *Speculator, threads []jdwp.ThreadID) { enqueueView(s, threads, false) }

// enqueueView is enqueueThreadsView; with walking, past the learner: the
// debugger walks its view now (family_threads_walk.go). Statuses and
// names go out where they stand in the view even if queued or in flight
// (FamilyAgain asks what the debugger read at its last stops first), but
// once on a slow VM for a debugger whose reads overlap: a second copy
// answers only a read in another order, and costs the VM more than the
// round trip it saves (askViewAgain; BenchmarkSlowVMClients).
func enqueueView(s *Speculator, threads []jdwp.ThreadID, walking bool) {
	once := s.cost.slow() && s.inflight.readsOverlap
	eachViewRead(s, threads, func(m jdwp.CommandMessage, inOrder bool) {
		// Status and name where they stand in the view (enqueueInOrder).
		enqueueAs(s, m, walking, false, inOrder && !once)
	})
}

// eachViewRead calls read with each read of the threads view of threads,
// in the view's order (inOrder: a thread's status or name, which stand
// where the view reads them).
func eachViewRead(s *Speculator, threads []jdwp.ThreadID, read func(m jdwp.CommandMessage, inOrder bool)) {
	topFrames := s.learn.wantedOfOthers(jdwp.CmdThreadReferenceFrames)
	for _, t := range threads {
		read(&jdwp.ThreadStatusCommand{Thread: t}, true)
		read(&jdwp.ThreadFrameCountCommand{Thread: t}, false)
		if topFrames && t != s.susp.stopped {
			read(&jdwp.ThreadFramesCommand{Thread: t, StartFrame: 0, Length: 1}, false)
		}
		read(&jdwp.ThreadNameCommand{Thread: t}, true)
	}
}

// onThreadGroups asks, while every thread is suspended, for the children
// and the name of each top-level thread group: a debugger that asks for
// the top groups (jdb's threads) walks the tree down, a level a round trip.
func onThreadGroups(s *Speculator, _ *inFlight, reply *replyData) error {
	if !threadsViewSpeculable(s) {
		return nil
	}
	m, err := reply.typed(s)
	if err != nil {
		return err
	}
	enqueueGroups(s, m.(*jdwp.ObjectIDsReply).IDs)
	return nil
}

// onGroupChildren asks, while every thread is suspended, for the view of
// each thread of a group and for the children and name of each of its
// groups: the next level of the walk.
func onGroupChildren(s *Speculator, _ *inFlight, reply *replyData) error {
	if !threadsViewSpeculable(s) {
		return nil
	}
	m, err := reply.typed(s)
	if err != nil {
		return err
	}
	children := m.(*jdwp.ThreadGroupChildrenReply)
	enqueueThreadsView(s, children.Threads)
	enqueueGroups(s, children.Groups)
	return nil
}

// enqueueGroups queues the children and the name of each group.
func enqueueGroups(s *Speculator, groups []jdwp.ThreadGroupID) {
	for _, g := range groups {
		s.enqueue(&jdwp.ThreadGroupChildrenCommand{Group: g}, false)
		s.enqueue(&jdwp.ThreadGroupNameCommand{Group: g}, false)
	}
}

// askListAgain follows the debugger's asks of the thread list. Eclipse's
// JDI asks it in its threads view and again before every resume. Where
// threads run through the stop (moving entries, sequential.go), the reply
// speculated at the stop cannot answer the second ask: the view read
// since then told newer states. So, when the debugger asked the list twice
// at its last stop of this kind (breakpoint or step) that asked one, the
// list is asked again as soon as it asks it the first time: the new reply
// is newer than the view it reads in between, and ready (or in flight, to
// wait on) when it asks again. At a stop whose view went out with the
// event (v.epoch) the list went out again at its end already
// (speculateThreads).
func askListAgain(s *Speculator, key Key, _ jdwp.CommandMessage) {
	if key.Command() != jdwp.CmdVirtualMachineAllThreads {
		return
	}
	v := &s.view
	if v.quietEpoch != 0 && v.quietEpoch == s.susp.epoch {
		v.listWhenQuiet = true
	}
	if v.listEpoch != s.susp.epoch {
		if v.listAsks > 0 {
			v.lastAsks[v.listKind] = v.listAsks
		}
		v.listEpoch, v.listKind, v.listAsks = s.susp.epoch, s.stop.event.kind, 0
	}
	v.listAsks++
	if v.listAsks == 1 && v.lastAsks[v.listKind] >= 2 && v.epoch != s.susp.epoch {
		s.enqueueInOrder(&jdwp.VMAllThreadsCommand{})
	}
}

// lastListAsks returns how many times the debugger asked the thread list
// at its last stop of the kind that asked one before the epoch.
func (v *threadsView) lastListAsks(kind stopKind, epoch uint64) int {
	if v.listEpoch != epoch && v.listAsks > 0 && v.listKind == kind {
		return v.listAsks
	}
	return v.lastAsks[kind]
}

// resetThreadsView forgets the view sent (onReset).
func resetThreadsView(s *Speculator) { s.view = threadsView{} }
