package scache_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// raceSession is a random session in which the VM acts concurrently, as a
// real one does: the debugger pipelines commands; each direction of the
// connection is a wire that holds packets in order; between any two
// packets the VM may answer the next command, let running threads move,
// rename themselves and change fields, or have one hit a breakpoint with
// any suspend policy. So events cross commands on the wire, and replies
// arrive after the VM has already moved on.
//
// The oracle: a reply the VM produced for the debugger's own command is
// right by definition (it must arrive unchanged); a reply the Speculator
// made (from its cache or a synthetic twin) must equal what the VM would
// have answered in some state it was in between the moment the command
// reached the Speculator and the moment the reply left it (linearizable).
// Under Sequential, a reply about state that moves while threads run
// (scache.MovingState) the Speculator made is held to the sequential
// promise instead: the states behind the events and the replies that tell
// a state (scache.PinsState), in the order the debugger receives them,
// never go back; each comes after the VM processed every state-changing
// command the debugger sent before asking; and the reply equals the VM's
// answer in its state (sequential, below).
type raceSession struct {
	*script
	t  *rapid.T
	m  middle
	vm *scachetest.ModelVM
	up [][]byte // Speculator → VM, not yet read by the VM
	dn [][]byte // VM → Speculator, not yet presented

	states   []*scachetest.ModelVM // every state the VM went through, in order
	asked    map[uint32]*askedCommand
	answered map[uint32][]byte // the VM's replies to the debugger's own commands
	events   int               // events the VM sent
	received int               // events the debugger received
	// reactions are the commands the debugger sends, as soon as it gets
	// around to it, about the last stop event it received.
	reactions []func()
	sequential
}

// sequential is what the oracle of the sequential promise keeps: the
// state each event and each reply of the VM came from, the state after
// each of the debugger's writes, and the last state assigned.
type sequential struct {
	on        bool
	nameFirst bool // the threads view asks a thread's name before its status
	// eventThread: a session of running threads, in which every stop of
	// the VM's own suspends only its thread and the debugger shows its
	// threads view at each, as an IDE does.
	eventThread bool
	// rulesOnly: at each stop the debugger does only what rules (a) and
	// (b) decide (TestTheSequentialRulesUnderRaces).
	rulesOnly bool
	// renamesOnly: at each stop the debugger renames a thread whose name
	// it has just asked, and looks again (TestRenamesUnderRaces).
	renamesOnly bool
	// pauses: the debugger presses Pause now and then (pause); the reads
	// sent behind its Suspend must give way to what it sends meanwhile
	// (TestPausesUnderRaces).
	pauses bool
	// workers: the debugger reads the stops in the order their events
	// came, each in its turn, and resumes each stop's thread alone; the
	// threads stop while it reads (TestParkedWorkersUnderRaces). waiting
	// holds the threads whose stop it received and did not resume.
	workers    bool
	waiting    []jdwp.ObjectID
	eventState map[uint32]int // by event packet id
	replyState map[uint32]int // by the debugger's command id: the VM's state once it answered
	writes     []uint32       // the debugger's state-changing commands, in order sent
	floor      int            // the latest state behind what the debugger received
}

type askedCommand struct {
	packet  []byte
	state   int // index in states when the Speculator got it
	replies int
	writes  int // the debugger's writes sent before it
}

func newRaceSession(t *rapid.T, opts []scache.Option) *raceSession {
	return newRaceSessionThrough(t, func(s *raceSession) middle { return &oneSpeculator{s: newSpeculator(t, opts...), sess: s} })
}

// newRaceSessionThrough starts a race session through the middle that
// newMiddle makes.
func newRaceSessionThrough(t *rapid.T, newMiddle func(*raceSession) middle) *raceSession {
	vm, d := newWorld(t)
	s := &raceSession{script: d, t: t, vm: vm,
		asked: map[uint32]*askedCommand{}, answered: map[uint32][]byte{},
		sequential: sequential{eventState: map[uint32]int{}, replyState: map[uint32]int{}}}
	s.m = newMiddle(s)
	s.view = vm
	s.states = []*scachetest.ModelVM{vm.Clone()}
	s.emit = s.command
	// A debugger starts with the id sizes, then lets the VM run.
	s.send(&jdwp.VMIDSizesCommand{})
	s.send(&jdwp.VMResumeCommand{})
	s.drain()
	return s
}

// drain lets everything on the wires arrive.
func (s *raceSession) drain() {
	for s.vmAnswers() || s.deliver() || s.m.tunnelStep() {
	}
}

// middle is what stands between the debugger and the VM in a race session:
// one Speculator, or the two halves of a split proxy and their tunnel.
type middle interface {
	fromDebugger(p []byte)
	fromVM(p []byte)
	// tunnelStep lets one frame cross the tunnel; false when none waits.
	tunnelStep() bool
	// idle reports whether nothing is on the middle's own wires (the tunnel).
	idle() bool
	// stats returns the counters of each Speculator, and why any disabled itself.
	stats() ([]scache.Stats, []error)
}

// oneSpeculator is a middle of one Speculator.
type oneSpeculator struct {
	s    *scache.Speculator
	sess *raceSession
}

func (m *oneSpeculator) fromDebugger(p []byte) { m.sess.apply(m.s.OnUpstream(p)) }
func (m *oneSpeculator) fromVM(p []byte)       { m.sess.apply(m.s.OnDownstream(p)) }
func (m *oneSpeculator) tunnelStep() bool      { return false }
func (m *oneSpeculator) idle() bool            { return true }
func (m *oneSpeculator) stats() ([]scache.Stats, []error) {
	return []scache.Stats{m.s.Stats()}, []error{m.s.DisabledReason()}
}

// command presents a debugger command to the Speculator.
func (s *raceSession) command(p []byte) {
	s.asked[jdwp.PacketID(p)] = &askedCommand{packet: p, state: len(s.states) - 1, writes: len(s.writes)}
	if h, err := jdwp.ParseHeader(p); err == nil && (scache.EndsEpoch(h.Cmd()) || scache.ChangesValues(h.Cmd())) {
		s.writes = append(s.writes, h.ID)
	}
	s.m.fromDebugger(p)
}

func (s *raceSession) apply(r scache.Response) {
	for _, p := range r.Edict.Upstream {
		s.up = append(s.up, clone(p))
	}
	for _, p := range r.Edict.Downstream {
		s.toDebugger(clone(p))
	}
}

// toDebugger checks a packet as the debugger receives it.
func (s *raceSession) toDebugger(p []byte) {
	h, err := jdwp.ParseHeader(p)
	require.NoError(s.t, err)
	require.False(s.t, scache.IsSyntheticID(h.ID), "a synthetic id reached the debugger: %v", h)
	if !h.IsReply() {
		s.received++
		if st, ok := s.eventState[h.ID]; ok {
			s.advance(st, "event %d", h.ID)
		}
		s.react(p)
		return
	}
	a, ok := s.asked[h.ID]
	require.True(s.t, ok, "a reply to id %d, which the debugger never sent", h.ID)
	a.replies++
	require.Equal(s.t, 1, a.replies, "replies to id %d", h.ID)
	cmd := jdwp.Header{}
	_ = cmd.Parse(a.packet)
	if vm, ok := s.answered[h.ID]; ok {
		require.Equal(s.t, vm, p, "the VM's reply to id %d reaches the debugger unchanged", h.ID)
		switch {
		case !scache.PinsState(cmd.Cmd()):
		case scache.Keyable(cmd.Cmd()):
			// The VM's answer in its state, and in any other that answers
			// alike: the earliest such state the promise allows is assigned.
			s.assign(a, cmd.Cmd(), p, s.replyState[h.ID])
		default: // it may change the VM: only its state
			s.advance(s.replyState[h.ID], "the VM's reply to %s (id %d)", cmd.Cmd(), h.ID)
		}
		return
	}
	// Only keyable commands are answered before the VM's reply, and Clear
	// and Set (answered ahead: they reach the VM after; a Set's id is the
	// one the VM gives in a state since it was sent, below).
	require.True(s.t, scache.Keyable(cmd.Cmd()) || cmd.Cmd() == jdwp.CmdEventRequestClear || cmd.Cmd() == jdwp.CmdEventRequestSet,
		"%s (id %d) was answered without reaching the VM", cmd.Cmd(), h.ID)
	// A state from when the command was sent, or later; and once the VM
	// processed the debugger's last write sent before it, no state before
	// that write: JDWP's commands are processed in the order sent.
	from := a.state
	if a.writes > 0 {
		if st, answered := s.replyState[s.writes[a.writes-1]]; answered {
			from = max(from, st)
		}
	}
	for _, st := range s.states[from:] {
		if string(st.Handle(a.packet)) == string(p) {
			return // linearizable
		}
	}
	if s.on && scache.MovingState(cmd.Cmd()) {
		s.sequentialReply(a, cmd.Cmd(), p)
		return
	}
	s.t.Fatalf("stale reply to %s (id %d): %x is not what the VM answered in any of its %d states since the command arrived (now %x)",
		cmd.Cmd(), h.ID, p, len(s.states)-a.state, s.vm.Handle(a.packet))
}

// advance assigns state st to what the debugger just received: the states
// behind what it receives never go back.
func (s *raceSession) advance(st int, what string, args ...any) {
	require.GreaterOrEqual(s.t, st, s.floor, "%s comes from a state before one the debugger already saw", fmt.Sprintf(what, args...))
	s.floor = st
}

// sequentialReply checks a reply the Speculator made about moving state:
// it equals the VM's answer in a state no earlier than the latest the
// debugger saw, and after the VM processed the debugger's writes sent
// before the command.
func (s *raceSession) sequentialReply(a *askedCommand, cmd jdwp.Command, p []byte) {
	s.assign(a, cmd, p, len(s.states)-1)
}

// assign assigns to a reply to a the earliest state, up to upper, in which
// the VM answers alike, no earlier than the latest state behind what the
// debugger received nor than the VM's answer to the last write the
// debugger sent before a (the earliest leaves the most room to what
// follows: the assignment exists if this finds one).
func (s *raceSession) assign(a *askedCommand, cmd jdwp.Command, p []byte, upper int) {
	lower := s.floor
	if a.writes > 0 {
		last := s.writes[a.writes-1]
		st, answered := s.replyState[last]
		require.True(s.t, answered, "%s answered before the VM processed the debugger's write %d (%x)", cmd, last, s.asked[last].packet)
		lower = max(lower, st)
	}
	for i := lower; i <= upper; i++ {
		if string(s.states[i].Handle(a.packet)) == string(p) {
			s.floor = i
			return
		}
	}
	s.t.Fatalf("reply to %s (id %d): %x is not what the VM answered in any state since the latest the debugger saw (%d of %d; now %x)",
		cmd, jdwp.PacketID(p), p, lower, len(s.states), s.vm.Handle(a.packet))
}

// react queues what a debugger does at a stop event: it reads the stopped
// thread's frames, depth, top frame's this and visible variables, and later
// resumes.
func (s *raceSession) react(event []byte) {
	var c jdwp.Composite
	require.NoError(s.t, jdwp.Unmarshal(jdwp.Data(event), s.vm.Sizes, &c))
	for _, e := range c.Events {
		if _, ok := jdwp.EventLocation(e); !ok {
			continue
		}
		t, _ := jdwp.EventThread(e)
		s.stopped = t
		if s.workers && c.SuspendPolicy == jdwp.SuspendPolicyEventThread {
			s.reactions = append(s.reactions, s.workerView(t)...)
			return
		}
		if s.renamesOnly {
			s.reactions = append(s.reactions[:0],
				func() { s.send(&jdwp.ThreadFramesCommand{Thread: t, StartFrame: 0, Length: -1}) },
				s.renameAndLook, s.renameAndLook,
				func() { s.send(&jdwp.VMResumeCommand{}) })
			return
		}
		if s.rulesOnly {
			s.reactions = append(s.reactions[:0],
				func() { s.send(&jdwp.ThreadFramesCommand{Thread: t, StartFrame: 0, Length: -1}) },
				s.threadsView, s.setAndLook,
				func() { s.sendRaw(jdwp.CmdThreadReferenceResume, func(w *jdwp.Writer) { w.ObjectID(t) }) })
			return
		}
		s.reactions = append(s.reactions[:0],
			func() { s.send(&jdwp.ThreadFramesCommand{Thread: t, StartFrame: 0, Length: -1}) },
			s.watchShared,
			s.threadsView,
			func() { s.send(&jdwp.ThreadFrameCountCommand{Thread: t}) },
			func() { s.send(&jdwp.FrameThisObjectCommand{Thread: t, Frame: s.frame(t)}) },
			s.watch,
			s.renameAndLook,
			s.suspendAndLook,
			s.setAndLook,
			s.stateCommand,
			func() {
				if c.SuspendPolicy == jdwp.SuspendPolicyAll || !s.eventThread && rapid.Bool().Draw(s.t, "resumeAll") {
					s.send(&jdwp.VMResumeCommand{})
				} else {
					s.sendRaw(jdwp.CmdThreadReferenceResume, func(w *jdwp.Writer) { w.ObjectID(t) })
				}
			})
		return
	}
}

// changed records the VM's new state.
func (s *raceSession) changed() { s.states = append(s.states, s.vm.Clone()) }

// vmAnswers lets the VM read and answer the next command; false when none waits.
func (s *raceSession) vmAnswers() bool {
	if len(s.up) == 0 {
		return false
	}
	p := s.up[0]
	s.up = s.up[1:]
	reply := s.vm.Handle(p)
	if h, _ := jdwp.ParseHeader(p); !scache.Keyable(h.Cmd()) {
		s.changed() // it may have changed the VM
	}
	if !scache.IsSyntheticID(jdwp.PacketID(p)) {
		s.answered[jdwp.PacketID(p)] = reply
		s.replyState[jdwp.PacketID(p)] = len(s.states) - 1
	}
	s.dn = append(s.dn, reply)
	return true
}

// deliver presents the next packet from the VM to the Speculator; false when none waits.
func (s *raceSession) deliver() bool {
	if len(s.dn) == 0 {
		return false
	}
	p := s.dn[0]
	s.dn = s.dn[1:]
	s.m.fromVM(p)
	return true
}

// vmEvent puts an event on the wire to the Speculator.
func (s *raceSession) vmEvent(p []byte) {
	s.changed()
	s.eventState[jdwp.PacketID(p)] = len(s.states) - 1
	s.events++
	s.dn = append(s.dn, p)
}

// vmActs lets the VM do something of its own: threads run a little, a
// running thread hits a breakpoint, a class is prepared or unloaded (see
// below), now and then it changes how it numbers frames.
func (s *raceSession) vmActs() {
	switch rapid.IntRange(0, 6).Draw(s.t, "vmAct") {
	case 6:
		// The VM breaks its own frame numbering (a frame id predictor must cope).
		s.vm.FrameIDs = 1 - s.vm.FrameIDs
		s.changed()
	case 0, 1:
		s.vm.Tick(rapid.Uint64().Draw(s.t, "tick"))
		s.changed()
	case 2, 3, 4:
		if s.eventThread && !s.workers && len(s.reactions) > 0 && rapid.IntRange(0, 3).Draw(s.t, "stopMidView") > 0 {
			// An IDE's session of workers: most stops find the debugger done
			// with the last one. The workers run on, and now and then one
			// takes a task and renames itself, as a pool's threads do.
			if rapid.Bool().Draw(s.t, "renamesItself") {
				s.renamesItself(s.runningThread(s.vm, s.thread()))
			} else {
				s.vm.Tick(rapid.Uint64().Draw(s.t, "tick"))
			}
			s.changed()
			return
		}
		t := s.runningThread(s.vm, s.thread())
		policy := jdwp.SuspendPolicyEventThread
		if !s.eventThread {
			policy = jdwp.SuspendPolicy(rapid.IntRange(0, 2).Draw(s.t, "policy"))
		}
		if ev, ok := s.vm.Stop(t, policy); ok {
			s.stopped = t
			s.vmEvent(ev)
		}
	default:
		// A class unload is known to a debugger, and so to the Speculator, only
		// from its event: cached metadata of a class unloaded while its event
		// is on the wire is what a debugger's own cache would say too. So
		// classes load and unload only while nothing is on the wire (the
		// tunnel of a split proxy included).
		if len(s.up) > 0 || len(s.dn) > 0 || !s.m.idle() {
			return
		}
		if rapid.Bool().Draw(s.t, "prepare") {
			c, ev := s.vm.Prepare(s.newSignature(), rapid.IntRange(1, 3).Draw(s.t, "methods"))
			s.classes = append(s.classes, c)
			s.vmEvent(ev)
		} else {
			s.vmEvent(s.vm.Unload(rapid.SampledFrom(s.classes).Draw(s.t, "unloaded").Signature))
		}
	}
}

// renamesItself has running thread t take a task: it names itself after
// it (Thread.setName) and its status changes, with no event; what a
// debugger was told of t before is older than what it is told after.
func (s *raceSession) renamesItself(t jdwp.ObjectID) {
	th := s.vm.Thread(t)
	if th == nil || th.Suspends > 0 {
		return
	}
	th.Name = fmt.Sprintf("pool-%d-task-%d", t, len(s.states))
	th.Status = []jdwp.ThreadStatus{jdwp.ThreadStatusRunning, jdwp.ThreadStatusSleeping, jdwp.ThreadStatusWait}[(int(th.Status)+1)%3]
}

// run plays the session. How often the debugger, the VM, the wire and the
// running threads act is drawn per session: some debuggers are slow to
// react, some VMs busy, some links slow.
func (s *raceSession) run() {
	threadsPace, steps := rapid.IntRange(0, 8), rapid.IntRange(10, 300)
	if s.rulesOnly { // the threads always run, over several stops
		threadsPace, steps = rapid.IntRange(2, 8), rapid.IntRange(190, 600)
	}
	weights := []int{
		rapid.IntRange(1, 8).Draw(s.t, "debuggerPace"),
		rapid.IntRange(1, 8).Draw(s.t, "vmPace"),
		rapid.IntRange(1, 8).Draw(s.t, "wirePace"),
		threadsPace.Draw(s.t, "threadsPace"),
		rapid.IntRange(1, 8).Draw(s.t, "tunnelPace"),
	}
	total := 0
	for _, w := range weights {
		total += w
	}
	for i := steps.Draw(s.t, "steps"); i > 0; i-- {
		who := rapid.IntRange(0, total-1).Draw(s.t, "who")
		switch {
		case who < weights[0]:
			s.debuggerActs()
		case who < weights[0]+weights[1]:
			s.vmAnswers()
		case who < weights[0]+weights[1]+weights[2]:
			s.deliver()
		case who < weights[0]+weights[1]+weights[2]+weights[3]:
			s.vmActs()
		default:
			s.m.tunnelStep()
		}
	}
	s.drain()
}

// debuggerActs sends the next command of the debugger's reaction to the
// last stop, or another command.
func (s *raceSession) debuggerActs() {
	if s.pauses && rapid.IntRange(0, 5).Draw(s.t, "pause") == 0 {
		s.pause()
		return
	}
	if len(s.reactions) > 0 && rapid.IntRange(0, 3).Draw(s.t, "react") > 0 {
		next := s.reactions[0]
		s.reactions = s.reactions[1:]
		next()
		return
	}
	if s.eventThread && len(s.reactions) > 0 {
		// An IDE showing a stop looks around (a watch, another thread's
		// frames) but lets nothing run before it is done.
		s.stateCommand()
		return
	}
	switch rapid.IntRange(0, 5).Draw(s.t, "debuggerCmd") {
	case 0, 1, 2:
		s.stateCommand()
	case 3:
		if !s.controlCommand() {
			s.stateCommand()
		}
	case 4:
		if rapid.Bool().Draw(s.t, "resumeAll") {
			s.send(&jdwp.VMResumeCommand{})
		} else {
			t := s.thread()
			s.sendRaw(jdwp.CmdThreadReferenceResume, func(w *jdwp.Writer) { w.ObjectID(t) })
		}
	default:
		s.metadataCommand()
	}
}

// pause is an IDE's Pause: VirtualMachine.Suspend, or, at a stop, a Drop
// Frame of the stopped thread's top frame (its frames read, then
// StackFrame.PopFrames as the debugger next acts); now and then, right
// behind it before the VM answered, a command that lets threads run,
// suspends one, changes a value, or reads; then, as the debugger gets
// around to it, the threads view with each thread's depth, top frame and
// stack, and a resume of every thread.
func (s *raceSession) pause() {
	t := s.stopped
	if th := s.vm.Thread(t); th != nil && th.Suspends > 0 && len(th.Frames) > 1 && rapid.Bool().Draw(s.t, "dropFrame") {
		frames := s.nextID
		s.send(&jdwp.ThreadFramesCommand{Thread: t, StartFrame: 0, Length: -1})
		var drop func()
		drop = func() { // once the frames are shown
			if s.asked[frames].replies == 0 {
				s.reactions = append([]func(){drop}, s.reactions...)
				return
			}
			s.readBehind(&jdwp.FramePopFramesCommand{Thread: t, Frame: s.vm.FrameID(th, th.Generation, 0)})
		}
		s.reactions = append([]func(){drop}, s.reactions...)
		return
	}
	s.readBehind(&jdwp.VMSuspendCommand{})
}

// readBehind sends m, a Suspend or a PopFrames, and what pause does behind
// it.
func (s *raceSession) readBehind(m jdwp.CommandMessage) {
	s.send(m)
	switch rapid.IntRange(0, 4).Draw(s.t, "behindPause") {
	case 0:
		if !s.controlCommand() {
			s.stateCommand()
		}
	case 1:
		s.stateCommand()
	case 2:
		s.renameAndLook()
	}
	view := []func(){func() { s.send(&jdwp.VMAllThreadsCommand{}) }}
	for _, t := range s.threads {
		view = append(view,
			func() { s.send(&jdwp.ThreadStatusCommand{Thread: t}) },
			func() { s.send(&jdwp.ThreadFrameCountCommand{Thread: t}) },
			func() { s.send(&jdwp.ThreadFramesCommand{Thread: t, StartFrame: 0, Length: 1}) },
			func() { s.send(&jdwp.ThreadNameCommand{Thread: t}) },
			func() { s.send(&jdwp.ThreadFramesCommand{Thread: t, StartFrame: 0, Length: -1}) })
	}
	view = append(view, func() { s.send(&jdwp.VMResumeCommand{}) })
	s.reactions = append(view, s.reactions...)
}

// suspendAndLook is an IDE's "suspend" on another thread in its threads
// view: ThreadReference.Suspend of a thread that runs, and right behind
// it, before the VM answered, the thread's status and frame count, which
// must tell the thread suspended (the debugger's own write is visible).
func (s *raceSession) suspendAndLook() {
	if rapid.IntRange(0, 2).Draw(s.t, "suspendAndLook") > 0 {
		return
	}
	t := s.runningThread(s.vm, s.thread())
	s.sendRaw(jdwp.CmdThreadReferenceSuspend, func(w *jdwp.Writer) { w.ObjectID(t) })
	s.send(&jdwp.ThreadStatusCommand{Thread: t})
	s.send(&jdwp.ThreadFrameCountCommand{Thread: t})
}

// watchShared is a watch on an object a running thread works on (met at
// an earlier stop of that thread: threads take turns): its field, asked of
// the VM, tells the debugger the state the threads have run to, which
// what was speculated at the stop may be older than (rule (a)).
func (s *raceSession) watchShared() {
	if !s.eventThread || !s.rulesOnly && rapid.Bool().Draw(s.t, "watchShared") {
		return
	}
	th := s.vm.Thread(s.runningThread(s.vm, s.thread()))
	if th == nil || th.Suspends > 0 || len(th.Frames) == 0 || th.Frames[0].This == 0 {
		return
	}
	s.send(&jdwp.ObjectRefGetValuesCommand{Object: th.Frames[0].This, Fields: []jdwp.FieldID{1}})
}

// setAndLook is a watch's "set value" on a local of the stopped thread
// (a write that ends no epoch and changes no thread's status or name) and,
// right behind it, before the VM answered, the status and name of a thread
// that runs: they must tell a state after the VM processed the write
// (rule (b)), though what was speculated at the stop is still cached.
func (s *raceSession) setAndLook() {
	if !s.eventThread || !s.rulesOnly && rapid.IntRange(0, 2).Draw(s.t, "setAndLook") > 0 {
		return
	}
	t, f := s.stopped, s.frame(s.stopped)
	s.sendRaw(jdwp.CmdStackFrameSetValues, func(w *jdwp.Writer) {
		w.ObjectID(t)
		w.FrameID(f)
		w.Int32(1)
		w.Int32(0)
		w.Value(jdwp.IntValue(int32(rapid.IntRange(-5, 5).Draw(s.t, "setLocal"))))
	})
	other := s.runningThread(s.vm, s.thread())
	s.send(&jdwp.ThreadStatusCommand{Thread: other})
	s.send(&jdwp.ThreadNameCommand{Thread: other})
}

// renameAndLook sets a thread's name field (jdb's "set t.name = ...";
// the string made as VirtualMachine.CreateString would, earlier) and,
// right behind it, before the VM answered, asks the thread's name: a value
// change that ends no epoch, and must be visible in the name (rule (b)).
// The thread is a running one or the stopped one, and now and then the
// debugger asked its name just before the write, and looks again right
// behind it or at its next step: the ask before is in flight across the
// write, and its reply must answer nothing after it (with belay off too:
// the held-out property found it there).
func (s *raceSession) renameAndLook() {
	if !s.renamesOnly && rapid.IntRange(0, 2).Draw(s.t, "renameAndLook") > 0 {
		return
	}
	t := s.runningThread(s.vm, s.thread())
	if s.stopped != 0 && (s.renamesOnly || rapid.Bool().Draw(s.t, "renameStopped")) {
		t = s.stopped
	}
	if s.renamesOnly || rapid.Bool().Draw(s.t, "nameBeforeRename") {
		s.send(&jdwp.ThreadNameCommand{Thread: t})
	}
	name := s.vm.NewString(fmt.Sprintf("renamed-%d", len(s.asked)))
	s.changed()
	s.sendRaw(jdwp.CmdObjectReferenceSetValues, func(w *jdwp.Writer) {
		w.ObjectID(t)
		w.Int32(1)
		w.FieldID(scachetest.ThreadNameField)
		w.ObjectID(name)
	})
	look := func() { s.send(&jdwp.ThreadNameCommand{Thread: t}) }
	if s.renamesOnly || rapid.Bool().Draw(s.t, "lookLater") {
		// At the debugger's next step, as the VM and the wire go on: the
		// ask before the write may have been answered by then.
		later := []func(){look}
		if s.renamesOnly { // and lets the VM and the wire go on a while first
			for range rapid.IntRange(1, 6).Draw(s.t, "pause") {
				later = append([]func(){func() {}}, later...)
			}
		}
		s.reactions = append(later, s.reactions...)
		return
	}
	look()
}

// threadsView asks what an IDE's threads view shows: the thread list, then
// each thread's status and name (the order drawn once a session, as each
// debugger has its own), one command at a time, as the debugger gets
// around to each: the VM and the wire act between them.
func (s *raceSession) threadsView() {
	if !s.eventThread && !rapid.Bool().Draw(s.t, "threadsView") {
		return
	}
	nameFirst := s.nameFirst
	if rapid.IntRange(0, 3).Draw(s.t, "otherView") == 0 || s.rulesOnly && rapid.Bool().Draw(s.t, "otherViewToo") {
		// A second view of the same debugger (jdb's threads beside its
		// where all; an IDE's frames view's thread list beside its threads
		// view) asks in the other order: not the order speculation learned,
		// where rule (a) decides.
		nameFirst = !nameFirst
	}
	view := []func(){func() { s.send(&jdwp.VMAllThreadsCommand{}) }}
	for _, t := range s.threads {
		status := func() { s.send(&jdwp.ThreadStatusCommand{Thread: t}) }
		name := func() { s.send(&jdwp.ThreadNameCommand{Thread: t}) }
		if nameFirst {
			status, name = name, status
		}
		view = append(view, status, name)
		if s.rulesOnly {
			// The watch refreshed while the view fills in: its reply, from
			// the VM, comes from after what was speculated for the rest.
			view = append(view, s.watchShared)
		}
	}
	s.reactions = append(view, s.reactions...)
}

// workerView is what a debugger of workers does in the turn of thread t's
// stop: t's frames and its top frame's this; each other thread whose stop
// it received and did not resume, its depth, top frame and status; the
// threads view; then it resumes t alone.
func (s *raceSession) workerView(t jdwp.ObjectID) []func() {
	s.waiting = append(s.waiting, t)
	view := []func(){
		func() { s.send(&jdwp.ThreadFramesCommand{Thread: t, StartFrame: 0, Length: -1}) },
		func() { s.send(&jdwp.FrameThisObjectCommand{Thread: t, Frame: s.frame(t)}) },
		func() {
			for _, other := range s.waiting {
				if other != t {
					s.send(&jdwp.ThreadFrameCountCommand{Thread: other})
					s.send(&jdwp.ThreadFramesCommand{Thread: other, StartFrame: 0, Length: 1})
					s.send(&jdwp.ThreadStatusCommand{Thread: other})
				}
			}
		},
		s.threadsView,
		func() {
			s.waiting = slices.DeleteFunc(s.waiting, func(w jdwp.ObjectID) bool { return w == t })
			s.sendRaw(jdwp.CmdThreadReferenceResume, func(w *jdwp.Writer) { w.ObjectID(t) })
		},
	}
	return view
}

func (s *raceSession) check() {
	for id, a := range s.asked {
		require.Equal(s.t, 1, a.replies, "replies to id %d", id)
	}
	require.Equal(s.t, s.events, s.received, "every event reaches the debugger once")
	stats, why := s.m.stats()
	for i, st := range stats {
		require.True(s.t, st.Enabled, "valid traffic never disables: %v", why[i])
		require.Zero(s.t, st.Held)
		require.Zero(s.t, st.InFlight)
		require.LessOrEqual(s.t, st.SyntheticUsed+st.Wasted, st.Synthetic, "used and wasted are apart")
		require.Zero(s.t, st.AheadContradicted, "the VM agreed with what was answered ahead")
	}
}

// TestNeverStaleUnderRaces holds the Speculator to the transparency promise
// against a VM that acts concurrently with the debugger (see raceSession),
// in every propertyModes configuration.
func TestNeverStaleUnderRaces(t *testing.T) {
	for name, opts := range propertyModes {
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				s := newRaceSession(t, opts)
				s.on = sequentialMode(opts)
				s.nameFirst = rapid.Bool().Draw(t, "nameFirst")
				s.eventThread = rapid.Bool().Draw(t, "eventThread")
				s.run()
				s.check()
			})
		})
	}
}

// TestRunningThreadsUnderRaces is TestNeverStaleUnderRaces for sessions of
// running threads: at least three threads, every stop suspends only its
// thread, and the debugger shows its threads view at each stop while the
// others run, rename themselves and stop in turn. It is where the
// sequential promise's rules (a) and (b) decide what the debugger gets:
// the debugger watches an object a running thread works on before its
// view, asks the view in the other order now and then, and sets a local
// with a running thread's status and name asked right behind. With either
// rule taken out of positions.servable it fails, though only after some
// hundreds of sessions: run it with -rapid.checks=2000 to see it
// (2026-11-25, three runs each: without (a) 2 or 3 of the 4 sequential
// modes failed in every run, after 839 to 1808 sessions; without (b) 2 or
// 3, after 238 to 1687).
func TestRunningThreadsUnderRaces(t *testing.T) {
	for _, name := range []string{"default", "no belay", "no belay, metadata only", "one at once", "unbounded", "linearizable"} {
		opts := propertyModes[name]
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				s := newRunningThreadsSession(t, opts)
				s.run()
				s.check()
			})
		})
	}
}

// newRunningThreadsSession starts a race session of running threads: at
// least three, every stop suspends only its thread, and the debugger,
// an IDE, has shown the threads as it attached.
func newRunningThreadsSession(t *rapid.T, opts []scache.Option) *raceSession {
	return runningThreadsIn(t, newRaceSession(t, opts), opts)
}

// runningThreadsIn makes the race session s, through a middle made with
// opts, one of running threads (newRunningThreadsSession).
func runningThreadsIn(t *rapid.T, s *raceSession, opts []scache.Option) *raceSession {
	for len(s.threads) < 3 {
		thread := jdwp.ObjectID(len(s.threads) + 1)
		s.threads = append(s.threads, thread)
		s.vm.SetThread(thread, s.stack())
	}
	s.changed()
	s.send(&jdwp.VMAllThreadsCommand{})
	s.drain()
	s.on = sequentialMode(opts)
	s.nameFirst = rapid.Bool().Draw(t, "nameFirst")
	s.eventThread = true
	return s
}

// TestTheSequentialRulesUnderRaces is TestRunningThreadsUnderRaces with a
// debugger that, at each stop, does only what rules (a) and (b) decide: it
// shows its threads view (in either order) with a watch on an object a
// running thread works on refreshed between each thread's lines, sets a
// local with a running thread's status and name asked right behind, and
// resumes its thread; the threads always run, over several stops. With
// either rule taken out of positions.servable it fails within the
// package's 500 sessions per mode (2026-11-25, seven runs each: every run
// failed, without (a) after 51 to 481 sessions in 1 to 3 of the 4 modes,
// without (b) after 8 to 369 sessions in 3 or 4).
func TestTheSequentialRulesUnderRaces(t *testing.T) {
	for _, name := range []string{"default", "no belay", "one at once", "unbounded"} {
		opts := propertyModes[name]
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				s := newRunningThreadsSession(t, opts)
				s.rulesOnly = true
				// The session starts with a worker's stop.
				if ev, ok := s.vm.Stop(s.threads[0], jdwp.SuspendPolicyEventThread); ok {
					s.stopped = s.threads[0]
					s.vmEvent(ev)
				}
				s.run()
				s.check()
			})
		})
	}
}

// sequentialMode reports whether a Speculator made with opts keeps the
// sequential promise.
func sequentialMode(opts []scache.Option) bool {
	s, err := scache.New(opts...)
	return err == nil && s.Consistency() == scache.Sequential
}

// TestPausesUnderRaces is TestRunningThreadsUnderRaces with a debugger
// that presses Pause and drops frames often (pause), now and then with
// another command right behind its Suspend or PopFrames: the reads the
// Speculator sends behind those (behind.go) answer the debugger only as
// the reply's suspension lets them, and only if nothing ended the epoch
// since they were read.
func TestPausesUnderRaces(t *testing.T) {
	for _, name := range []string{"default", "no belay", "one at once", "unbounded", "linearizable", "slow VM"} {
		opts := propertyModes[name]
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				s := newRunningThreadsSession(t, opts)
				s.pauses = true
				s.eventThread = rapid.Bool().Draw(t, "eventThread")
				s.run()
				s.check()
			})
		})
	}
}

// TestRenamesUnderRaces is TestNeverStaleUnderRaces with a debugger that,
// at each stop, asks the stopped thread's name, renames it right behind
// (ObjectReference.SetValues of its name field) and asks the name again at
// its next step, twice, then resumes: the first ask is in flight across
// the write, and its reply must answer nothing after it. It runs the
// modes without belay beside the default, since belay indexes the
// commands in flight that invalidation once looked up alone. Without the
// fix in Speculator.onThreadFieldsSet it fails within the package's 500
// sessions per mode (2026-11-26, five runs: every run failed, in 1 to 3 of
// the three modes without belay, after 22 to 472 sessions).
func TestRenamesUnderRaces(t *testing.T) {
	modes := map[string][]scache.Option{
		"default":                 nil,
		"no belay":                propertyModes["no belay"],
		"no belay, metadata only": propertyModes["no belay, metadata only"],
		"no belay, linearizable":  {scache.WithBelay(false), scache.WithConsistency(scache.Linearizable)},
	}
	for name, opts := range modes {
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				s := newRaceSession(t, opts)
				s.on = sequentialMode(opts)
				s.renamesOnly = true
				s.eventThread = rapid.Bool().Draw(t, "eventThread")
				s.run()
				s.check()
			})
		})
	}
}

// TestParkedWorkersUnderRaces is TestRunningThreadsUnderRaces with a
// debugger of workers: the threads stop while it reads an earlier stop,
// it reads each stop in its turn with the depth, top frame and status of
// every other thread it holds stopped, and it resumes each stop's thread
// alone. It is where parked threads' state outlives the epochs
// (parked.go): with the unpark of a resumed thread taken out of
// Speculator.unparkFor it fails within the package's sessions per mode.
func TestParkedWorkersUnderRaces(t *testing.T) {
	for _, name := range []string{"default", "no belay", "one at once", "unbounded", "linearizable"} {
		opts := propertyModes[name]
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				s := newRunningThreadsSession(t, opts)
				s.workers = true
				s.run()
				s.check()
			})
		})
	}
}
