package scache

import (
	"maps"
	"slices"

	"github.com/jdwpscache/scache/jdwp"
)

// The stop: what the Speculator knows of the current stop of a thread at a
// location. stopState owns it: the stop event (thread, location, kind),
// whether its epoch goes on, the count of stops of each kind, the stopped
// thread's top frame, the last thread list and the invocation whose thread
// is back where it stood. Only its methods below change the stop itself:
// begin at a trusted stop (state.go: onStopEvents), end at the end of
// its epoch (state.go: endEpoch), reset when the Speculator forgets all
// (clearAll). FamilyTopFrame advances the top frame it holds; the learner
// and FamilyAgain read the rest, and keep no copy of it.
type stopState struct {
	// event is the last trusted stop. Its thread and kind stay the stop's
	// through the invocations the debugger makes in the stopped thread,
	// which return it where it stood.
	event stopEvent
	// on: the epoch of a trusted stop event goes on.
	on bool
	// count counts the stops of each kind.
	count [numStopKinds]int
	top   topFrame
	// threads are the last AllThreads reply's, whenever it came: the next
	// stop's guess of the threads its view shows (facts.go).
	threads []jdwp.ThreadID
	// invoked is the invocation whose thread is back where it stood, while
	// the suspension it was invoked in goes on (state.go: onSettle).
	invoked invocation
	// frames holds where each frame a Frames reply of the epoch showed
	// stands, and its depth, by thread and frame id: a frame's method says
	// what some replies about the frame are (derived.go), its depth which
	// frame the debugger looked at (family_topframe_deeper.go).
	frames map[threadFrame]shownFrame
	// parked holds the stop of each parked thread that a later one
	// superseded (parked.go): its top frame, for FamilyTopFrame to go on
	// with as its frames and its method's metadata arrive, its event and
	// its place among the stops (takeup.go). seq is the current stop's
	// place, began the number of stops begun.
	parked map[jdwp.ObjectID]parkedStop
	seq    uint64
	began  uint64
	// takenUp: the current stop is a parked one taken up again
	// (takeup.go), not a new event's.
	takenUp bool
	// after is the thread whose resume took the current stop up: its
	// next stop queues behind it (takeup.go).
	after jdwp.ObjectID
}

// parkedStop is a parked thread's stop a later one superseded: its top
// frame as far as known, its event and its place among the stops.
type parkedStop struct {
	top   topFrame
	event stopEvent
	seq   uint64
}

// threadFrame names a frame: frame ids are a thread's.
type threadFrame struct {
	thread jdwp.ThreadID
	frame  jdwp.FrameID
}

// shownFrame is a frame a Frames reply showed: where it stands, and its
// depth (0: the top).
type shownFrame struct {
	loc   jdwp.Location
	depth int
}

// maxFramesShown bounds the frames kept of an epoch.
const maxFramesShown = 4096

// A stopEvent is a trusted stop of a thread at a location.
type stopEvent struct {
	thread jdwp.ThreadID
	loc    jdwp.Location // 0: unknown (after an invocation whose thread's top frame was not asked)
	kind   stopKind      // what made the stop: a breakpoint, the end of a step, ...
	// shown are the values the event names, which a debugger shows with
	// the stop (shownBy); zero where none.
	shown [2]jdwp.Value
	// caught is where an exception thrown is caught (0: not an exception,
	// or uncaught), which a debugger shows with the stop.
	caught jdwp.Location
}

// begin starts a trusted stop.
func (st *stopState) begin(ev stopEvent) {
	st.event, st.on, st.takenUp, st.after = ev, true, false, 0
	st.count[ev.kind]++
	st.began++
	st.seq = st.began
}

// takeUp makes the parked stop of thread t the current one again, its
// top frame where it was known, taken up behind a resume of thread after,
// and returns its event (ok false: t has no parked stop). It counts no
// new stop.
func (st *stopState) takeUp(t, after jdwp.ObjectID) (stopEvent, bool) {
	p, ok := st.parked[t]
	if !ok {
		return stopEvent{}, false
	}
	delete(st.parked, t)
	st.event, st.seq, st.on, st.takenUp, st.after = p.event, p.seq, true, true, after
	st.top = topFrame{}
	if p.top.set {
		st.top = p.top
	}
	return p.event, true
}

// takenUpStop is a taken-up stop that goes on: its thread, and the
// thread whose resume took it up.
type takenUpStop struct {
	thread, after jdwp.ObjectID
}

// takenUpNow returns the taken-up stop that goes on (zero: none).
func (st *stopState) takenUpNow() takenUpStop {
	if !st.on || !st.takenUp {
		return takenUpStop{}
	}
	return takenUpStop{st.event.thread, st.after}
}

// oldestParked returns the thread of the parked stop that began first,
// but except's (ok false: none).
func (st *stopState) oldestParked(except jdwp.ObjectID) (jdwp.ObjectID, bool) {
	var oldest jdwp.ObjectID
	var seq uint64
	found := false
	for t, p := range st.parked {
		if t != except && (!found || p.seq < seq) {
			oldest, seq, found = t, p.seq, true
		}
	}
	return oldest, found
}

// park keeps the top frame of the stop that ends, as far as it is known,
// if its thread stays parked (isParked): it stays where it is.
func (st *stopState) park(isParked func(jdwp.ObjectID) bool) {
	t := st.event.thread
	if !st.on || !isParked(t) {
		return
	}
	if st.parked == nil {
		st.parked = make(map[jdwp.ObjectID]parkedStop)
	}
	top := st.top
	if !top.set || top.thread != t {
		top = topFrame{thread: t}
	}
	st.parked[t] = parkedStop{top: top, event: st.event, seq: st.seq}
}

// parkedTop returns the top frame of thread t's parked stop (ok false:
// it has none).
func (st *stopState) parkedTop(t jdwp.ObjectID) (topFrame, bool) {
	p, ok := st.parked[t]
	return p.top, ok
}

// setParkedTop sets the top frame of thread t's parked stop, which it has.
func (st *stopState) setParkedTop(t jdwp.ObjectID, top topFrame) {
	p := st.parked[t]
	p.top = top
	st.parked[t] = p
}

// hasParkedStop reports whether thread t is parked at a stop a later one
// superseded: what is asked about it is asked at its own stop.
func (st *stopState) hasParkedStop(t jdwp.ObjectID) bool {
	_, ok := st.parked[t]
	return ok
}

// forgetParked drops the parked top frame of thread t, and what Frames
// replies showed of it: it may run.
func (st *stopState) forgetParked(t jdwp.ObjectID) {
	delete(st.parked, t)
	st.keepFramesOf(func(th jdwp.ObjectID) bool { return th != t })
}

// atLocation reports whether the debugger is reading a stop at a code
// location: its epoch goes on, or an invocation in its thread returned it
// where it stood (an IDE's renderers invoke one method after another).
func (st *stopState) atLocation() bool {
	return st.on && st.event.loc.Class != 0 || st.returned()
}

// returned reports whether an invocation at the stop returned its thread
// where it stood: the epoch the invocation ended is over, and the
// debugger goes on reading the stop.
func (st *stopState) returned() bool { return !st.on && st.invoked.back.thread != 0 }

// end closes the stop's epoch: what was read of its top frame is gone
// (the frame ids of threads that are not parked go with the epoch's
// state: Speculator.dropEpochState).
func (st *stopState) end() {
	st.on = false
	st.top = topFrame{}
}

// framesShown keeps where the frames of a Frames reply of the epoch about
// thread stand, the first of them at depth start.
func (st *stopState) framesShown(thread jdwp.ThreadID, start int, frames []jdwp.Frame) {
	if st.frames == nil {
		st.frames = make(map[threadFrame]shownFrame)
	}
	for i, f := range frames {
		if len(st.frames) >= maxFramesShown {
			return
		}
		st.frames[threadFrame{thread, f.Frame}] = shownFrame{loc: f.Location, depth: start + i}
	}
}

// keepFramesOf drops what the epoch's Frames replies showed of the
// threads that keep does not keep.
func (st *stopState) keepFramesOf(keep func(jdwp.ObjectID) bool) {
	maps.DeleteFunc(st.frames, func(f threadFrame, _ shownFrame) bool { return !keep(f.thread) })
	if st.top.set && !keep(st.top.thread) {
		st.top = topFrame{}
	}
}

// frameAt returns where the frame of thread stands, if a Frames reply of
// the epoch showed it.
func (st *stopState) frameAt(thread jdwp.ThreadID, frame jdwp.FrameID) (jdwp.Location, bool) {
	f, ok := st.frames[threadFrame{thread, frame}]
	return f.loc, ok
}

// depthOf returns the depth of the frame of thread, if a Frames reply of
// the epoch showed it.
func (st *stopState) depthOf(thread jdwp.ThreadID, frame jdwp.FrameID) (int, bool) {
	f, ok := st.frames[threadFrame{thread, frame}]
	return f.depth, ok
}

// methodsShownIn returns the methods of class in which a Frames reply of
// the epoch showed a frame, each once.
func (st *stopState) methodsShownIn(class jdwp.ReferenceTypeID) []jdwp.MethodID {
	var methods []jdwp.MethodID
	for _, f := range st.frames {
		if f.loc.Class == class && f.loc.Method != 0 && !slices.Contains(methods, f.loc.Method) {
			methods = append(methods, f.loc.Method)
		}
	}
	slices.Sort(methods) // the map's order is random: the queue's must not be
	return methods
}

// stops returns how many stops began, of both kinds.
func (st *stopState) stops() int {
	n := 0
	for _, c := range st.count {
		n += c
	}
	return n
}

// setThreads keeps the thread list of an AllThreads reply.
func (st *stopState) setThreads(ids []jdwp.ThreadID) {
	st.threads = append(st.threads[:0], ids...)
}

// invokedAt takes note of the invocation whose reply came while its
// suspension goes on (or none: call is zero).
func (st *stopState) invokedAt(call invocation) { st.invoked = call }

// forgetTopIn drops the top frame if its method is of one of the classes.
func (st *stopState) forgetTopIn(classes map[jdwp.ReferenceTypeID]bool) {
	if st.top.set && classes[st.top.loc.Class] {
		st.top = topFrame{}
	}
}

// reset forgets the top frame and the thread list: the ids in them may
// mean nothing any more. The counts go on.
func (st *stopState) reset() {
	st.top = topFrame{}
	clear(st.parked)
	st.threads = nil
	clear(st.frames)
}

// topFrame is the top frame of the stopped thread in the current epoch,
// once a Frames reply has told it.
type topFrame struct {
	set        bool
	thread     jdwp.ObjectID
	frame      jdwp.FrameID
	loc        jdwp.Location
	thisDone   bool // ThisObject sent, or known to be useless (static method)
	valuesDone bool // GetValues sent, or known to be impossible (no variable table)
	predicted  bool // frame is predicted at the stop event, not yet seen in a Frames reply
	asked      bool // a frame below the top the debugger asked at its recent stops: not the learner's to pause
}

// stopKind is the kind of a stop, by the event that made it. A debugger
// looks at a stop of one kind as it did at the last of that kind, and
// differently at another: an IDE shows its whole view at a breakpoint and
// the top frame after a step, a tool that traces method exits or logs
// where exceptions are thrown reads a value and goes on. So what is
// learned of its asks (learn.go, the families) is kept by kind.
type stopKind uint8

const (
	stopBreakpoint stopKind = iota // a breakpoint (or an event of no other kind here)
	stopStep                       // the end of a single step
	stopException                  // an exception thrown (an exception breakpoint)
	stopWatch                      // a field accessed or modified (a watchpoint)
	stopMethod                     // a method entered or exited
	stopMonitor                    // a monitor contended for or waited on
	numStopKinds
)

// shownBy returns the values an event names that a debugger shows with
// its stop: the exception thrown, the object and the value a watchpoint
// names, the value a method returns, a monitor's object.
func shownBy(e jdwp.Event) (v [2]jdwp.Value) {
	switch e := e.(type) {
	case *jdwp.ExceptionEvent:
		v[0] = jdwp.ObjectValue(e.Exception.Tag, e.Exception.ID)
	case *jdwp.FieldAccessEvent:
		v[0] = jdwp.ObjectValue(e.Object.Tag, e.Object.ID)
	case *jdwp.FieldModificationEvent:
		v[0], v[1] = jdwp.ObjectValue(e.Object.Tag, e.Object.ID), e.ValueToBe
	case *jdwp.MethodExitWithReturnValueEvent:
		v[0] = e.Value
	case *jdwp.MonitorContendedEvent:
		v[0] = jdwp.ObjectValue(e.Object.Tag, e.Object.ID)
	case *jdwp.MonitorWaitEvent:
		v[0] = jdwp.ObjectValue(e.Object.Tag, e.Object.ID)
	case *jdwp.MonitorWaitedEvent:
		v[0] = jdwp.ObjectValue(e.Object.Tag, e.Object.ID)
	}
	return v
}

// kindOf returns the kind of a stop made by an event of kind k.
func kindOf(k jdwp.EventKind) stopKind {
	switch k {
	case jdwp.EventSingleStep:
		return stopStep
	case jdwp.EventException:
		return stopException
	case jdwp.EventFieldAccess, jdwp.EventFieldModification:
		return stopWatch
	case jdwp.EventMethodEntry, jdwp.EventMethodExit, jdwp.EventMethodExitWithReturnValue:
		return stopMethod
	case jdwp.EventMonitorContendedEnter, jdwp.EventMonitorContendedEntered, jdwp.EventMonitorWait, jdwp.EventMonitorWaited:
		return stopMonitor
	}
	return stopBreakpoint
}

// kin returns the kind of stop whose learning a kind never seen yet
// follows: a breakpoint's and a step's each other's (jdb, which asks no
// other thread at a breakpoint, asks none at a step either), any other's
// a breakpoint's (an IDE shows its view at every stop of a user's).
func (k stopKind) kin() stopKind {
	if k == stopBreakpoint {
		return stopStep
	}
	return stopBreakpoint
}
