package scache_test

import (
	"bytes"
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
)

// readThisAndStatics reads the top frame's this's fields and its class's
// statics, as a variables view does, and returns the commands and what
// the VM answered, by command.
func readThisAndStatics(t *testing.T, h *harness, top scachetest.ModelFrame) (fields, statics jdwp.CommandMessage,
	before map[jdwp.Command][]byte) {
	t.Helper()
	fields = &jdwp.ObjectRefGetValuesCommand{Object: top.This, Fields: []jdwp.FieldID{1, 2}}
	statics = &jdwp.RefTypeGetValuesCommand{RefType: top.Class, Fields: []jdwp.FieldID{1, 2}}
	before = map[jdwp.Command][]byte{}
	for _, m := range []jdwp.CommandMessage{fields, statics} {
		got, want := ask(h, m)
		require.Equal(t, want, got)
		before[m.Command()] = jdwp.Data(got)
	}
	return fields, statics, before
}

// requireChangedFromSpeculation asks each command again and requires what
// the VM holds now, changed since before, answered from speculation.
func requireChangedFromSpeculation(t *testing.T, h *harness, before map[jdwp.Command][]byte, cmds ...jdwp.CommandMessage) {
	t.Helper()
	sent := len(h.toVM)
	for _, m := range cmds {
		got, want := ask(h, m)
		require.Equal(t, want, got, "%s: what the VM holds now", m.Command())
		require.NotEqual(t, before[m.Command()], jdwp.Data(got), "%s: the thread ran and changed it", m.Command())
	}
	require.Equal(t, sent, len(h.toVM), "answered from speculation")
}

// What the debugger asked at a stop and no reply leads to (an expanded
// this's fields, a class's statics) goes out again at its next stop of the
// same kind, with the frames: asked again, it is answered from speculation,
// with what the VM holds after the threads ran. Not asked at two stops in a
// row, it is forgotten.
func TestAskedAgainAtTheNextStop(t *testing.T) {
	h, top := stopped(t, jdwp.SuspendPolicyAll)
	fields, statics, before := readThisAndStatics(t, h, top)
	speculated := func(cmd jdwp.Command) int {
		_, synthetic := h.vmCommands(cmd)
		return synthetic
	}
	require.Zero(t, speculated(jdwp.CmdObjectReferenceGetValues), "nothing leads to them at the first stop")

	h.send(&jdwp.VMResumeCommand{})
	h.drain()
	h.vm.Tick(5) // thread 1 changes its this's fields and its class's statics
	stopThread1(t, h, jdwp.SuspendPolicyAll)
	require.Equal(t, 1, speculated(jdwp.CmdObjectReferenceGetValues), "asked again at the stop")
	require.Equal(t, 1, speculated(jdwp.CmdReferenceTypeGetValues))
	requireChangedFromSpeculation(t, h, before, fields, statics)

	// Not asked at the next two stops: sent at both, then forgotten.
	resumeAndStop(t, h)
	resumeAndStop(t, h)
	require.Equal(t, 3, speculated(jdwp.CmdObjectReferenceGetValues))
	resumeAndStop(t, h)
	require.Equal(t, 3, speculated(jdwp.CmdObjectReferenceGetValues), "forgotten")
	require.Equal(t, 3, speculated(jdwp.CmdReferenceTypeGetValues))
}

// With the stopped thread alone suspended, the others may change any
// object's fields and any static while the debugger looks: a linearizable
// Speculator asks none of that again.
func TestNotAskedAgainWhileOtherThreadsRunWhenLinearizable(t *testing.T) {
	h, top := stopped(t, jdwp.SuspendPolicyEventThread, scache.WithConsistency(scache.Linearizable))
	ask(h, &jdwp.ObjectRefGetValuesCommand{Object: top.This, Fields: []jdwp.FieldID{1, 2}})
	ask(h, &jdwp.RefTypeGetValuesCommand{RefType: top.Class, Fields: []jdwp.FieldID{1}})
	h.send(&jdwp.VMResumeCommand{})
	h.drain()
	stopThread1(t, h, jdwp.SuspendPolicyEventThread)
	for _, cmd := range []jdwp.Command{jdwp.CmdObjectReferenceGetValues, jdwp.CmdReferenceTypeGetValues} {
		_, synthetic := h.vmCommands(cmd)
		require.Zero(t, synthetic, "%s", cmd)
	}
}

// Under Sequential (the default) they are moving entries (sequential.go),
// as a running thread's name is: asked again at the next suspend-thread
// stop (the variables view of Eclipse's and VS Code's default breakpoints)
// and answered from speculation, with what the VM holds after the threads
// ran.
func TestAskedAgainAsMovingWhileOtherThreadsRun(t *testing.T) {
	h, top := stopped(t, jdwp.SuspendPolicyEventThread)
	fields, statics, before := readThisAndStatics(t, h, top)
	h.send(&jdwp.VMResumeCommand{})
	h.drain()
	h.vm.Tick(5) // thread 1 changes its this's fields and its class's statics
	cmds := []jdwp.Command{jdwp.CmdObjectReferenceGetValues, jdwp.CmdReferenceTypeGetValues}
	speculated := map[jdwp.Command]int{}
	for _, cmd := range cmds {
		_, speculated[cmd] = h.vmCommands(cmd)
	}
	stopThread1(t, h, jdwp.SuspendPolicyEventThread)
	for _, cmd := range cmds {
		_, synthetic := h.vmCommands(cmd)
		require.Equal(t, speculated[cmd]+1, synthetic, "%s asked again at the stop", cmd)
	}
	requireChangedFromSpeculation(t, h, before, fields, statics)
}

// The family is one of the defaults, and can be left out.
func TestAskingAgainCanBeTurnedOff(t *testing.T) {
	require.NotZero(t, scache.AllFamilies&scache.FamilyAgain)
	h, top := stopped(t, jdwp.SuspendPolicyAll, scache.WithFamilies(scache.AllFamilies&^scache.FamilyAgain))
	ask(h, &jdwp.ObjectRefGetValuesCommand{Object: top.This, Fields: []jdwp.FieldID{1, 2}})
	resumeAndStop(t, h)
	_, synthetic := h.vmCommands(jdwp.CmdObjectReferenceGetValues)
	require.Zero(t, synthetic)
}

// At a stop in the same class with `this` another object (a method called
// on one object after another), the fields the debugger asked of the last
// stop's this go out for the new one as soon as the top frame's this is
// known: asked, they are answered from speculation.
func TestThisFieldsOfTheNextObjectInTheSameClass(t *testing.T) {
	h, _ := inInstanceMethod(t)
	stopThread1(t, h, jdwp.SuspendPolicyAll)
	top := h.vm.Thread(1).Frames[0]
	th := h.vm.Thread(1)
	// As a debugger: the frames, the top frame's this, its fields.
	ask(h, &jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1})
	frame := h.vm.FrameID(th, th.Generation, 0)
	got, want := ask(h, &jdwp.FrameThisObjectCommand{Thread: 1, Frame: frame})
	require.Equal(t, want, got)
	fields := []jdwp.FieldID{2, 1}
	ask(h, &jdwp.ObjectRefGetValuesCommand{Object: top.This, Fields: fields})
	requireNextThisFieldsSpeculated(t, h, top, fields)
}

// requireNextThisFieldsSpeculated resumes, lets thread 1 go on to the
// method of top on a new object and stop there, and asks the new this's
// fields: the reply is the VM's, and came from speculation.
func requireNextThisFieldsSpeculated(t *testing.T, h *harness, top scachetest.ModelFrame, fields []jdwp.FieldID) {
	resume(h)
	again := h.vm.SetThread(1, []scachetest.ModelFrame{{Class: top.Class, Method: top.Method, Index: top.Index}})
	again.Suspends = 0
	stopThread1(t, h, jdwp.SuspendPolicyAll)
	next := h.vm.Thread(1).Frames[0].This
	require.NotEqual(t, top.This, next)
	sent := len(h.toVM)
	got, want := ask(h, &jdwp.ObjectRefGetValuesCommand{Object: next, Fields: fields})
	require.Equal(t, want, got)
	require.Equal(t, sent, len(h.toVM), "answered from speculation")
}

// An IDE's threads view asks where each other thread is (its top frame)
// while the stopped thread's own frames are on their way: the stopped
// thread's top frame stays the one its this and fields are asked of, so
// the fields asked of this at one stop still go out for the next stop's
// this.
func TestAnotherThreadsFramesLeaveTheStoppedThreadsTopFrame(t *testing.T) {
	h, _ := inInstanceMethod(t)
	top := h.vm.Thread(1).Frames[0]
	stopOn(t, h, top.This)
	// The other thread's top frame is asked before any reply came back.
	h.send(&jdwp.ThreadFramesCommand{Thread: 2, StartFrame: 0, Length: 1})
	h.drain()
	th := h.vm.Thread(1)
	ask(h, &jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1})
	got, want := ask(h, &jdwp.FrameThisObjectCommand{Thread: 1, Frame: h.vm.FrameID(th, th.Generation, 0)})
	require.Equal(t, want, got)
	ask(h, &jdwp.ObjectRefReferenceTypeCommand{Object: top.This})
	fields := []jdwp.FieldID{2, 1}
	ask(h, &jdwp.ObjectRefGetValuesCommand{Object: top.This, Fields: fields})
	requireNextThisFieldsSpeculated(t, h, top, fields)
}

// What the debugger asked of the stopped thread (jdb: its status) is asked,
// at the next stop, of the thread that stopped then, not of the thread
// that stopped last time: stops come from one thread after another.
func TestTheStoppedThreadsCommandsFollowTheStop(t *testing.T) {
	h := running(t)
	stopAndAskStatus := func(thread jdwp.ThreadID) {
		ev, ok := h.vm.Stop(thread, jdwp.SuspendPolicyAll)
		require.True(t, ok)
		h.event(ev)
		h.drain()
		got, want := ask(h, &jdwp.ThreadStatusCommand{Thread: thread})
		require.Equal(t, want, got)
		resume(h)
	}
	stopAndAskStatus(1)
	for _, thread := range []jdwp.ThreadID{2, 1, 2} {
		own, other := queuedFor(h, jdwp.CmdThreadReferenceStatus, jdwp.ObjectID(thread)), queuedFor(h, jdwp.CmdThreadReferenceStatus, jdwp.ObjectID(3-thread))
		ev, ok := h.vm.Stop(thread, jdwp.SuspendPolicyAll)
		require.True(t, ok)
		h.event(ev)
		require.Equal(t, own+1, queuedFor(h, jdwp.CmdThreadReferenceStatus, jdwp.ObjectID(thread)), "thread %d's status goes out with its stop", thread)
		require.Equal(t, other, queuedFor(h, jdwp.CmdThreadReferenceStatus, jdwp.ObjectID(3-thread)), "not the last stopped thread's")
		h.drain()
		sent := len(h.toVM)
		got, want := ask(h, &jdwp.ThreadStatusCommand{Thread: thread})
		require.Equal(t, want, got)
		require.Equal(t, sent, len(h.toVM), "answered from speculation")
		resume(h)
	}
}

// An IDE's threads view shows where each suspended thread is: once the
// debugger asked another thread's top frame, every other thread's goes out
// with the threads view at the next stops and answers it, the thread that
// stopped last time included (never asked as another's before); a
// debugger that never asked gets none (the view's status, depth and name
// only).
func TestThreadsViewTopFramesOnceAsked(t *testing.T) {
	h := running(t)
	threadsView := func(stopped jdwp.ThreadID, topFrames bool) {
		h.send(&jdwp.VMAllThreadsCommand{})
		for _, th := range h.vm.Threads() {
			ask(h, &jdwp.ThreadStatusCommand{Thread: th.ID})
			ask(h, &jdwp.ThreadFrameCountCommand{Thread: th.ID})
			if topFrames && th.ID != stopped {
				got, want := ask(h, &jdwp.ThreadFramesCommand{Thread: th.ID, StartFrame: 0, Length: 1})
				require.Equal(t, want, got)
			}
			ask(h, &jdwp.ThreadNameCommand{Thread: th.ID})
		}
	}
	stopThread1(t, h, jdwp.SuspendPolicyAll)
	threadsView(1, false)
	resumeAndStop(t, h)
	require.Zero(t, queuedFor(h, jdwp.CmdThreadReferenceFrames, 2), "never asked, never sent")
	threadsView(1, true)
	resume(h)
	before := queuedFor(h, jdwp.CmdThreadReferenceFrames, 1)
	ev, ok := h.vm.Stop(2, jdwp.SuspendPolicyAll)
	require.True(t, ok)
	h.event(ev)
	h.drain()
	sent := len(h.toVM)
	require.Equal(t, before+1, queuedFor(h, jdwp.CmdThreadReferenceFrames, 1), "asked of another thread, sent of each with the threads view")
	threadsView(2, true)
	require.Equal(t, sent, len(h.toVM), "and answered from speculation")
}

// jdb's threads walks the thread-group tree at every stop: the top groups,
// each group's children, the groups' names. At the next stop it is asked
// before the debugger asks: each answer is the VM's, and none reaches the
// VM. With the stopped thread alone suspended, threads may start and end:
// under Linearizable the tree is neither cached nor asked again.
func TestThreadGroupTreeAskedAgain(t *testing.T) {
	tree := []jdwp.CommandMessage{
		&jdwp.VMTopLevelThreadGroupsCommand{},
		&jdwp.ThreadGroupChildrenCommand{Group: scachetest.SystemGroup},
		&jdwp.ThreadGroupNameCommand{Group: scachetest.MainGroup},
		&jdwp.ThreadGroupChildrenCommand{Group: scachetest.MainGroup},
		&jdwp.ThreadGroupParentCommand{Group: scachetest.MainGroup},
		&jdwp.ThreadGroupOfCommand{Thread: 1},
	}
	h, _ := stopped(t, jdwp.SuspendPolicyAll)
	for stop := 0; stop < 3; stop++ {
		sent := len(h.toVM)
		for _, m := range tree {
			got, want := ask(h, m)
			require.Equal(t, want, got, "%s", m.Command())
		}
		if stop > 0 {
			require.Equal(t, sent, len(h.toVM), "stop %d: the tree answered from speculation", stop)
		}
		resumeAndStop(t, h)
	}

	h, _ = stopped(t, jdwp.SuspendPolicyEventThread, scache.WithConsistency(scache.Linearizable))
	for stop := 0; stop < 2; stop++ {
		for _, m := range tree[:2] {
			sent := len(h.toVM)
			got, want := ask(h, m)
			require.Equal(t, want, got, "%s", m.Command())
			require.Greater(t, len(h.toVM), sent, "stop %d: %s reaches the VM while threads run", stop, m.Command())
		}
		h.send(&jdwp.VMResumeCommand{})
		h.drain()
		stopThread1(t, h, jdwp.SuspendPolicyEventThread)
	}
}

// At the first stop nothing was learned: the debugger's walk of the
// thread-group tree still goes a level ahead of it. Once the top groups'
// reply is in, each group's children and name are asked; once a group's
// children are in, its threads' names and statuses and its groups' own
// children: every later step of the walk is answered without reaching the
// VM, with the VM's answers.
func TestThreadGroupTreeWalkedALevelAhead(t *testing.T) {
	h, _ := stopped(t, jdwp.SuspendPolicyAll)
	got, want := ask(h, &jdwp.VMTopLevelThreadGroupsCommand{})
	require.Equal(t, want, got)
	sent := len(h.toVM)
	for _, m := range []jdwp.CommandMessage{
		&jdwp.ThreadGroupChildrenCommand{Group: scachetest.SystemGroup},
		&jdwp.ThreadGroupNameCommand{Group: scachetest.SystemGroup},
		&jdwp.ThreadGroupChildrenCommand{Group: scachetest.MainGroup},
		&jdwp.ThreadGroupNameCommand{Group: scachetest.MainGroup},
		&jdwp.ThreadNameCommand{Thread: 1},
		&jdwp.ThreadStatusCommand{Thread: 1},
	} {
		got, want := ask(h, m)
		require.Equal(t, want, got, "%s", m.Command())
	}
	require.Equal(t, sent, len(h.toVM), "the walk answered from speculation")
}

// A variables view that reads the same values twice at a suspend-thread
// stop (this's fields, then the statics, then this's fields again) finds
// the first reply older than the statics it was told since (rule a): behind
// each read that went to the VM, the values read at the stop go out again,
// so the second read of the fields is answered from speculation, with what
// the VM holds.
func TestValuesReadAgainBehindAMiss(t *testing.T) {
	h, top := stopped(t, jdwp.SuspendPolicyEventThread)
	fields, _, _ := readThisAndStatics(t, h, top)
	organic := func() int {
		total, synthetic := h.vmCommands(jdwp.CmdObjectReferenceGetValues)
		return total - synthetic
	}
	before := organic()
	got, want := ask(h, fields)
	require.Equal(t, want, got, "what the VM holds")
	require.Equal(t, before, organic(), "the second read is answered from speculation")
}

// At a suspend-thread stop, a user edits a field of this in the variables
// view, which reads this's fields, then the statics, again: the values the
// edit dropped go out behind it in the order of their keys (the statics
// first), and again in the order the debugger read them, so that the
// statics read after the fields find a reply newer than the fields' (rule
// a) and are answered from speculation too.
func TestValuesAskedAgainAfterAnEditInTheOrderRead(t *testing.T) {
	h, top := stopped(t, jdwp.SuspendPolicyEventThread)
	fields, statics, _ := readThisAndStatics(t, h, top)
	editField(h, top.This, 2, 99)
	sent := len(h.toVM)
	for _, m := range []jdwp.CommandMessage{fields, statics} {
		got, want := ask(h, m)
		require.Equal(t, want, got, "%s: what the VM holds after the edit", m.Command())
	}
	require.Equal(t, sent, len(h.toVM), "both answered from what went out behind the edit")
}

// stopWithThis stops thread 1 under EVENT_THREAD with this as its top
// frame's this, lets the stop's speculation come back and has the debugger
// ask this and its type.
func stopWithThis(t *testing.T, h *harness, this jdwp.ObjectID) {
	h.vm.Thread(1).Frames[0].This = this
	ev, ok := h.vm.Stop(1, jdwp.SuspendPolicyEventThread)
	require.True(t, ok)
	h.event(ev)
	h.drain()
	askThis(t, h)
}

// A loop's next pass stops in the same method with another this. Behind a
// read that missed there, the reads of the last pass's this go out again
// as reads of the new one (the object at the same path from this), so the
// view's read of the new this's fields is answered from speculation.
func TestValuesReadAgainOfTheNewThis(t *testing.T) {
	h, class := inInstanceMethod(t)
	stopWith := func(this jdwp.ObjectID) { stopWithThis(t, h, this) }
	fieldsOf := func(o jdwp.ObjectID) jdwp.CommandMessage {
		return &jdwp.ObjectRefGetValuesCommand{Object: o, Fields: []jdwp.FieldID{1, 2}}
	}
	organic := func() int {
		total, synthetic := h.vmCommands(jdwp.CmdObjectReferenceGetValues)
		return total - synthetic
	}
	first, second, other := h.vm.NewObject(class.ID), h.vm.NewObject(class.ID), h.vm.NewObject(class.ID)
	stopWith(first)
	ask(h, fieldsOf(first))
	resume(h)
	stopWith(second)
	got, want := ask(h, fieldsOf(other))
	require.Equal(t, want, got)
	before := organic()
	got, want = ask(h, fieldsOf(second))
	require.Equal(t, want, got, "what the VM holds")
	require.Equal(t, before, organic(), "answered from the read of the last pass's this, asked again of the new one")
}

// The same, but the next pass's this is of another type: the fields read
// of the last pass's this are not the new one's (a VM reads fields by
// their offsets), and none is asked of it.
func TestValuesNotReadAgainOfANewThisOfAnotherType(t *testing.T) {
	h, class := inInstanceMethod(t)
	stopWith := func(this jdwp.ObjectID) { stopWithThis(t, h, this) }
	var another *scachetest.ModelClass
	for _, c := range h.vm.Classes() {
		if c.ID != class.ID && !c.Interface {
			another = c
		}
	}
	require.NotNil(t, another)
	first, second, other := h.vm.NewObject(class.ID), h.vm.NewObject(another.ID), h.vm.NewObject(class.ID)
	stopWith(first)
	ask(h, &jdwp.ObjectRefGetValuesCommand{Object: first, Fields: []jdwp.FieldID{1, 2}})
	resume(h)
	stopWith(second)
	got, want := ask(h, &jdwp.ObjectRefGetValuesCommand{Object: other, Fields: []jdwp.FieldID{1, 2}}) // a miss
	require.Equal(t, want, got)
	require.Zero(t, queuedFor(h, jdwp.CmdObjectReferenceGetValues, second), "no fields of the last this's type asked of an object of another")
}

// A variables view that reads this's fields and the statics twice at a
// suspend-thread stop, then a stop in the same method where the debugger
// reads nothing (the speculated statics go unused: the learner pauses
// them at such stops), then one where it reads them again: the values of
// its last reads go out again in its order, the statics too, since the
// debugger asked them itself, and every read is answered from speculation.
func TestValuesReadInOrderAfterAStopThatReadNone(t *testing.T) {
	h, top := stopped(t, jdwp.SuspendPolicyEventThread)
	reads := func() {
		fields, statics, _ := readThisAndStatics(t, h, top)
		for _, m := range []jdwp.CommandMessage{fields, statics} {
			got, want := ask(h, m)
			require.Equal(t, want, got, "%s", m.Command())
		}
	}
	reads()
	for range 2 { // a stop that reads none, then one that reads
		resume(h)
		stopThread1(t, h, jdwp.SuspendPolicyEventThread)
	}
	sent := len(h.toVM)
	reads()
	require.Equal(t, sent, len(h.toVM), "every read answered from speculation")
}

// A loop's next pass stops in the same method with another this, and the
// variables view reads the statics, this's fields, then the statics again.
// At the stop the last pass's reads go out in its order, but of the last
// pass's this (the new one is not known yet); once the new this is known
// they go out again, of it, behind its fields, where the debugger reads
// them: from the third pass on every read is answered from speculation.
func TestValuesReadInOrderOnceTheNewThisIsKnown(t *testing.T) {
	h, class := inInstanceMethod(t)
	statics := &jdwp.RefTypeGetValuesCommand{RefType: class.ID, Fields: []jdwp.FieldID{1}}
	for pass := range 4 {
		this := h.vm.NewObject(class.ID)
		stopWithThis(t, h, this)
		viewFromSpeculation(t, h, pass, statics, &jdwp.ObjectRefGetValuesCommand{Object: this, Fields: []jdwp.FieldID{1, 2}}, statics)
		resume(h)
	}
}

// viewFromSpeculation asks reads in order at the stop of pass, each
// answered as the VM answers it; from the third pass on, none reaches the
// VM.
func viewFromSpeculation(t *testing.T, h *harness, pass int, reads ...jdwp.CommandMessage) {
	sent := len(h.toVM)
	for _, m := range reads {
		got, want := ask(h, m)
		require.Equal(t, want, got, "pass %d: %s", pass, m.Command())
	}
	if pass >= 2 {
		require.Equal(t, sent, len(h.toVM), "pass %d: every read answered from speculation", pass)
	}
}

// The same a level deeper: this holds a new array at every pass, and the
// view reads the statics, this's fields, the array's elements, then the
// statics and the elements again. Once the fields' reply shows the new
// array, the reads go out again of it, behind that reply: from the third
// pass on every read is answered from speculation.
func TestValuesReadInOrderOnceTheNewArrayIsKnown(t *testing.T) {
	h, class := inInstanceMethod(t)
	statics := &jdwp.RefTypeGetValuesCommand{RefType: class.ID, Fields: []jdwp.FieldID{1}}
	for pass := range 4 {
		array := h.vm.NewArray(class.ID, jdwp.TagInt, jdwp.IntValue(int32(pass)), jdwp.IntValue(7))
		this := h.vm.NewObject(class.ID)
		holdArray(h, this, array)
		stopWithThis(t, h, this)
		elements := &jdwp.ArrayRefGetValuesCommand{Array: array, First: 0, Length: 2}
		viewFromSpeculation(t, h, pass, statics, &jdwp.ObjectRefGetValuesCommand{Object: this, Fields: []jdwp.FieldID{1, holdsArray}}, elements, statics, elements)
		resume(h)
	}
}

// When the new this, or an array it holds, becomes known, only the reads
// from the first one of an object there go out again: those before it
// went out in order at the stop, and read nothing there. The statics read
// first go to the VM twice a stop (what the debugger asked at its last
// stops, then the reads in order), not again at each object found; and
// every read is still answered from speculation.
func TestOnlyTheReadsFromAnObjectFoundGoOutAgain(t *testing.T) {
	h, class := inInstanceMethod(t)
	first := &jdwp.RefTypeGetValuesCommand{RefType: class.ID, Fields: []jdwp.FieldID{1}}
	second := &jdwp.RefTypeGetValuesCommand{RefType: class.ID, Fields: []jdwp.FieldID{2}}
	firstBody := jdwp.AppendCommandPacket(nil, 0, first, h.vm.Sizes)[jdwp.HeaderSize:]
	for pass := range 4 {
		array := h.vm.NewArray(class.ID, jdwp.TagInt, jdwp.IntValue(int32(pass)), jdwp.IntValue(7))
		this := h.vm.NewObject(class.ID)
		holdArray(h, this, array)
		before := len(h.toVM)
		stopWithThis(t, h, this)
		sent := len(h.toVM)
		elements := &jdwp.ArrayRefGetValuesCommand{Array: array, First: 0, Length: 2}
		for _, m := range []jdwp.CommandMessage{first, &jdwp.ObjectRefGetValuesCommand{Object: this, Fields: []jdwp.FieldID{1, holdsArray}}, elements, second} {
			got, want := ask(h, m)
			require.Equal(t, want, got, "pass %d: %s", pass, m.Command())
		}
		if pass >= 2 {
			require.Equal(t, sent, len(h.toVM), "pass %d: every read answered from speculation", pass)
		}
		firsts := 0
		for _, p := range h.toVM[before:] {
			if bytes.Equal(p[jdwp.HeaderSize:], firstBody) {
				firsts++
			}
		}
		if pass >= 1 {
			require.LessOrEqual(t, firsts, 2, "pass %d: the statics read first went out again at each object found", pass)
		}
		resume(h)
	}
}
