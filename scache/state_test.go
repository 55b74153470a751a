package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
)

// stopped returns a harness whose thread 1 has just stopped at a breakpoint
// with the given policy, everything the Speculator asked about the stop
// answered, and the model's top frame.
func stopped(t *testing.T, policy jdwp.SuspendPolicy, opts ...scache.Option) (*harness, scachetest.ModelFrame) {
	h := running(t, opts...)
	stopThread1(t, h, policy)
	return h, h.vm.Thread(1).Frames[0]
}

// stopThread1 stops thread 1 with policy and lets the Speculator see it.
func stopThread1(t *testing.T, h *harness, policy jdwp.SuspendPolicy) {
	ev, ok := h.vm.Stop(1, policy)
	require.True(t, ok)
	h.event(ev)
	h.drain()
}

// resumeAndStop resumes every thread and stops thread 1 again (policy ALL):
// a new suspension epoch.
func resumeAndStop(t *testing.T, h *harness) {
	h.send(&jdwp.VMResumeCommand{})
	h.drain()
	stopThread1(t, h, jdwp.SuspendPolicyAll)
}

// running returns a harness on world's classes and threads, after the
// debugger asked for the id sizes and let the threads run.
func running(t *testing.T, opts ...scache.Option) *harness {
	vm, _ := scachetest.World(sizes8)
	h := newHarness(t, vm, opts...)
	h.send(&jdwp.VMIDSizesCommand{})
	h.send(&jdwp.VMResumeCommand{})
	h.drain()
	return h
}

// ask sends a command and returns the debugger's reply and the model's answer
// at the moment the debugger asked.
func ask(h *harness, cmd jdwp.CommandMessage) (got, want []byte) {
	id := h.nextID
	want = h.vm.Clone().Handle(jdwp.AppendCommandPacket(nil, id, cmd, sizes8))
	h.send(cmd)
	h.drain()
	return h.replyTo(id), want
}

// askAtOnce sends a command and returns the debugger's reply, which must
// come before the VM answers anything more (replyTo fails otherwise), and
// the model's answer at the moment the debugger asked.
func askAtOnce(h *harness, cmd jdwp.CommandMessage) (got, want []byte) {
	want = h.vm.Clone().Handle(jdwp.AppendCommandPacket(nil, h.nextID, cmd, sizes8))
	return h.replyTo(h.send(cmd)), want
}

func topValues(h *harness, top scachetest.ModelFrame) *jdwp.FrameGetValuesCommand {
	th := h.vm.Thread(1)
	return &jdwp.FrameGetValuesCommand{Thread: 1, Frame: h.vm.FrameID(th, th.Generation, 0),
		Slots: scache.VisibleSlots(scachetest.ModelVariableTable(top.Method), top.Index)}
}

func TestStopSpeculatesTheWholeStop(t *testing.T) {
	h, top := stopped(t, jdwp.SuspendPolicyAll)
	before := h.s.Stats()
	require.Positive(t, before.Synthetic)
	sent := len(h.toVM)
	// What a debugger asks at a stop is answered without a round trip.
	th := h.vm.Thread(1)
	frame0 := h.vm.FrameID(th, th.Generation, 0)
	asked := []jdwp.CommandMessage{
		&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1},
		&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: 1},
		&jdwp.ThreadNameCommand{Thread: 1},
		&jdwp.ThreadFrameCountCommand{Thread: 1},
		topValues(h, top),
		&jdwp.VMAllThreadsCommand{},
		&jdwp.ThreadStatusCommand{Thread: 2},
		&jdwp.ThreadNameCommand{Thread: 2},
	}
	if scachetest.ModelModBits(top.Method)&jdwp.ModStatic == 0 {
		// A debugger asks for this only in an instance method.
		asked = append(asked, &jdwp.FrameThisObjectCommand{Thread: 1, Frame: frame0})
	}
	for i, cmd := range asked {
		got, want := ask(h, cmd)
		require.Equal(t, want, got, "%s", cmd.Command())
		require.Equal(t, sent, len(h.toVM), "command %d (%s) went to the VM", i, cmd.Command())
	}
	require.Equal(t, before.Hits+int64(len(asked)), h.s.Stats().Hits)
}

func TestValuesAfterSetValuesAreNotStale(t *testing.T) {
	h, top := stopped(t, jdwp.SuspendPolicyAll)
	values := topValues(h, top)
	got, want := ask(h, values)
	require.Equal(t, want, got)
	require.Equal(t, int64(1), h.s.Stats().Hits, "the top frame's values were speculated")
	slot := values.Slots[0].Slot
	h.sendRaw(jdwp.AppendCommand(nil, 900, jdwp.CmdStackFrameSetValues, jdwp.Marshal(&setValues{values.Thread, values.Frame, slot, 77}, sizes8)))
	h.drain()
	got, want = ask(h, values)
	require.Equal(t, want, got, "the value set, not the cached one")
}

// setValues encodes StackFrame.SetValues of one int.
type setValues struct {
	thread jdwp.ObjectID
	frame  jdwp.FrameID
	slot   int32
	value  int32
}

func (m *setValues) Encode(w *jdwp.Writer) {
	w.ObjectID(m.thread)
	w.FrameID(m.frame)
	w.Int32(1)
	w.Int32(m.slot)
	w.Value(jdwp.IntValue(m.value))
}
func (m *setValues) Decode(r *jdwp.Reader) error { return r.Err() }

func TestResumeEndsTheEpoch(t *testing.T) {
	h, _ := stopped(t, jdwp.SuspendPolicyAll)
	require.Positive(t, h.s.Stats().CacheEntries)
	entries := h.s.Stats().CacheEntries
	h.send(&jdwp.VMResumeCommand{})
	require.Less(t, h.s.Stats().CacheEntries, entries, "suspension entries are dropped at the resume")
	// While running, state is never cached: a Name asked twice goes twice to the VM.
	h.drain()
	h.vm.Tick(5)
	got, want := ask(h, &jdwp.ThreadNameCommand{Thread: 2})
	require.Equal(t, want, got)
	h.vm.Tick(7) // thread 2 may rename itself
	got, want = ask(h, &jdwp.ThreadNameCommand{Thread: 2})
	require.Equal(t, want, got)
}

// TestEventThreadPolicyCachesOnlyTheStoppedThreadAndImmutableFacts: under
// Linearizable, with the stopped thread alone suspended, nothing about the
// running threads is served from speculation.
func TestEventThreadPolicyCachesOnlyTheStoppedThreadAndImmutableFacts(t *testing.T) {
	h, top := stopped(t, jdwp.SuspendPolicyEventThread, scache.WithConsistency(scache.Linearizable))
	// The other threads run: their name and status are asked of the VM every time.
	for i := 0; i < 2; i++ {
		sent := len(h.toVM)
		got, want := ask(h, &jdwp.ThreadStatusCommand{Thread: 2})
		require.Equal(t, want, got)
		require.Equal(t, sent+1, len(h.toVM), "another thread's status goes to the VM")
		h.vm.Tick(uint64(3 + i))
	}
	// The stopped thread's frames and locals are speculated and cached.
	sent := len(h.toVM)
	got, want := ask(h, &jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1})
	require.Equal(t, want, got)
	got, want = ask(h, topValues(h, top))
	require.Equal(t, want, got)
	require.Equal(t, sent, len(h.toVM))
	// Its name is not: another thread could rename it.
	got, want = ask(h, &jdwp.ThreadNameCommand{Thread: 1})
	require.Equal(t, want, got)
	require.Equal(t, sent+1, len(h.toVM))
}

func TestStaticTopFrameGetsNoThisObject(t *testing.T) {
	vm := scachetest.NewModelVM(sizes8)
	c := vm.AddClass("LMain;", 3, false, false)
	var m jdwp.MethodID
	for _, x := range c.Methods {
		if scachetest.ModelModBits(x)&jdwp.ModStatic != 0 {
			m = x
		}
	}
	require.NotZero(t, m, "one of three model methods is static")
	vm.SetThread(1, []scachetest.ModelFrame{{Class: c.ID, Method: m, Index: 3}})
	h := newHarness(t, vm)
	h.send(&jdwp.VMIDSizesCommand{})
	h.send(&jdwp.VMResumeCommand{})
	h.drain()
	ev, _ := vm.Stop(1, jdwp.SuspendPolicyAll)
	h.event(ev)
	h.drain()
	total, synthetic := h.vmCommands(jdwp.CmdStackFrameThisObject)
	require.Zero(t, total+synthetic, "no this in a static method")
	total, synthetic = h.vmCommands(jdwp.CmdStackFrameGetValues)
	require.Equal(t, 1, synthetic, "its variables are asked for")
	require.Equal(t, 1, total)
}

func TestPartOfTheStackFromTheWholeStack(t *testing.T) {
	h, _ := stopped(t, jdwp.SuspendPolicyAll)
	sent := len(h.toVM)
	for _, c := range []struct{ start, length int32 }{{0, 1}, {1, 2}, {2, -1}, {3, 1}} {
		got, want := ask(h, &jdwp.ThreadFramesCommand{Thread: 1, StartFrame: c.start, Length: c.length})
		require.Equal(t, want, got, "frames %d+%d", c.start, c.length)
	}
	require.Equal(t, sent, len(h.toVM))
	// Out of range: the VM's own error.
	got, want := ask(h, &jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 9, Length: 1})
	require.Equal(t, want, got)
	require.Equal(t, sent+1, len(h.toVM))
}

func TestVisibleSlotsFollowJDI(t *testing.T) {
	vt := jdwp.MethodVariableTableReply{Slots: []jdwp.VariableSlot{
		{CodeIndex: 0, Name: "this", Signature: "LMain;", Length: 30, Slot: 0},
		{CodeIndex: 0, Name: "a", Signature: "I", Length: 30, Slot: 1},
		{CodeIndex: 4, Name: "b", Signature: "Ljava/lang/String;", Length: 10, Slot: 2},
		{CodeIndex: 8, Name: "a", Signature: "J", Length: 4, Slot: 3}, // an inner a hides the outer one
		{CodeIndex: 2, Name: "c", Signature: "[I", Length: 20, Slot: 4},
		{CodeIndex: 20, Name: "d", Signature: "Z", Length: 5, Slot: 5}, // not yet in scope
		{CodeIndex: 0, Name: "this$0", Signature: "LOuter;", Length: 30, Slot: 6},
	}}
	require.Equal(t, []jdwp.SlotRequest{{Slot: 4, Tag: '['}, {Slot: 2, Tag: 's'}, {Slot: 3, Tag: 'J'}},
		withStringTag(scache.VisibleSlots(vt, 9)))
	require.Equal(t, []jdwp.SlotRequest{{Slot: 1, Tag: 'I'}}, scache.VisibleSlots(vt, 1))
	// The last index of a scope is inside it (start + length - 1).
	require.Len(t, scache.VisibleSlots(vt, 13), 3)
	require.Len(t, scache.VisibleSlots(vt, 14), 2)
}

// withStringTag maps the 'L' of a String signature to 's' for comparison:
// JDI sends the signature's first byte, which is 'L'.
func withStringTag(s []jdwp.SlotRequest) []jdwp.SlotRequest {
	for i := range s {
		if s[i].Tag == 'L' {
			s[i].Tag = 's'
		}
	}
	return s
}

// Race 1 of the package documentation: a stop event that the VM sent before
// it processed a resume the Speculator had already forwarded proves nothing
// about what is suspended after that resume.
func TestStopEventCrossingAResumeIsNotTrusted(t *testing.T) {
	h := running(t)
	vm := h.vm
	// Thread 1 stops alone; the debugger looks at it, then resumes everything.
	ev, ok := vm.Stop(1, jdwp.SuspendPolicyEventThread)
	require.True(t, ok)
	h.event(ev)
	h.drain()
	h.send(&jdwp.VMResumeCommand{})
	// Before the VM reads that resume, thread 2 hits a breakpoint with
	// suspend policy ALL: its event crosses the resume on the wire.
	ev, ok = vm.Stop(2, jdwp.SuspendPolicyAll)
	require.True(t, ok)
	h.event(ev)
	h.drain() // the resume lets thread 2 run again
	require.Zero(t, vm.Thread(2).Suspends)
	// Thread 2 hits the breakpoint again; its event is still on the wire when
	// the debugger asks for its frames.
	_, ok = vm.Stop(2, jdwp.SuspendPolicyAll)
	require.True(t, ok)
	want := vm.Clone().Handle(jdwp.AppendCommandPacket(nil, h.nextID, &jdwp.ThreadFramesCommand{Thread: 2, StartFrame: 0, Length: -1}, sizes8))
	id := h.send(&jdwp.ThreadFramesCommand{Thread: 2, StartFrame: 0, Length: -1})
	h.drain()
	require.Equal(t, want, h.replyTo(id), "the frames of thread 2, as the VM has them now")
}

// Race 2 of the package documentation: the reply to VirtualMachine.Suspend
// says nothing about what is suspended once a resume sent after it has
// been processed.
func TestSuspendReplyOvertakenByAResumeIsNotTrusted(t *testing.T) {
	h := running(t)
	vm := h.vm
	// Two debugger threads: one suspends, the other resumes, pipelined.
	h.send(&jdwp.VMSuspendCommand{})
	h.send(&jdwp.VMResumeCommand{})
	h.drain()
	first := h.send(&jdwp.ThreadNameCommand{Thread: 2})
	h.drain()
	// Thread 2 runs and renames itself (seed 5 + its id 2 = 7 renames).
	vm.Tick(5)
	want := vm.Clone().Handle(jdwp.AppendCommandPacket(nil, h.nextID, &jdwp.ThreadNameCommand{Thread: 2}, sizes8))
	require.NotEqual(t, jdwp.Data(h.replyTo(first)), jdwp.Data(want), "the thread renamed itself")
	second := h.send(&jdwp.ThreadNameCommand{Thread: 2})
	h.drain()
	require.Equal(t, want, h.replyTo(second), "the new name")
}

// HotSpot often sends the event that ends a step before the reply to the
// resume that started it. The stopped thread was suspended when the resume
// was sent, so it cannot have stopped before the VM processed the resume:
// the stop is trusted and speculated at once.
func TestStopOfAThreadThatWasSuspendedBeforeTheResumeIsTrusted(t *testing.T) {
	for _, policy := range []jdwp.SuspendPolicy{jdwp.SuspendPolicyAll, jdwp.SuspendPolicyEventThread} {
		h, _ := stopped(t, policy)
		ask(h, &jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1}) // used: still speculated at the next stop
		h.send(&jdwp.VMResumeCommand{})
		resume := h.vmQueue[len(h.vmQueue)-1]
		h.vmQueue = h.vmQueue[:len(h.vmQueue)-1]
		reply := h.vm.Handle(resume) // processed; its reply is still on the wire
		ev, ok := h.vm.Stop(1, policy)
		require.True(t, ok)
		synthetic := h.s.Stats().Synthetic
		h.event(ev)
		require.Greater(t, h.s.Stats().Synthetic, synthetic, "the stop is speculated at once (%v)", policy)
		h.apply(h.s.OnDownstream(reply))
		h.drain()
		hits := h.s.Stats().Hits
		got, want := ask(h, &jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1})
		require.Equal(t, want, got)
		require.Equal(t, hits+1, h.s.Stats().Hits, "answered from the speculation (%v)", policy)
	}
}

// A plain command whose WithGeneric form is cached is answered from it,
// byte for byte the model's answer, without reaching the VM; AllClasses only
// within the epoch of its generic form.
func TestPlainFormsFromTheirGenericForms(t *testing.T) {
	// Without FamilyAgain, which would ask AllClassesWithGeneric again at
	// the next stop, as the debugger asked it at this one.
	h, top := stopped(t, jdwp.SuspendPolicyAll, scache.WithFamilies(scache.AllFamilies&^scache.FamilyAgain))
	c, _ := h.vm.Class(top.Class)
	pairs := [][2]jdwp.CommandMessage{
		{&jdwp.RefTypeMethodsWithGenericCommand{RefType: c.ID}, &jdwp.RefTypeMethodsCommand{RefType: c.ID}},
		{&jdwp.RefTypeFieldsWithGenericCommand{RefType: c.ID}, &jdwp.RefTypeFieldsCommand{RefType: c.ID}},
		{&jdwp.RefTypeSignatureWithGenericCommand{RefType: c.ID}, &jdwp.RefTypeSignatureCommand{RefType: c.ID}},
		{&jdwp.MethodVariableTableWithGenericCommand{RefType: c.ID, Method: top.Method},
			&jdwp.MethodVariableTableCommand{RefType: c.ID, Method: top.Method}},
		{&jdwp.VMAllClassesWithGenericCommand{}, &jdwp.VMAllClassesCommand{}},
	}
	for _, p := range pairs {
		ask(h, p[0])
		sent := len(h.toVM)
		got, want := ask(h, p[1])
		require.Equal(t, want, got, "%s", p[1].Command())
		require.Equal(t, sent, len(h.toVM), "%s answered from %s", p[1].Command(), p[0].Command())
	}
	// A new epoch: the classes may have changed, the class metadata not.
	resumeAndStop(t, h)
	sent := len(h.toVM)
	got, want := ask(h, &jdwp.RefTypeMethodsCommand{RefType: c.ID})
	require.Equal(t, want, got)
	require.Equal(t, sent, len(h.toVM), "class metadata outlives the epoch")
	before, _ := h.vmCommands(jdwp.CmdVirtualMachineAllClasses)
	got, want = ask(h, &jdwp.VMAllClassesCommand{})
	require.Equal(t, want, got)
	after, _ := h.vmCommands(jdwp.CmdVirtualMachineAllClasses)
	require.Equal(t, before+1, after, "AllClassesWithGeneric of an ended epoch answers nothing")
}

// Eclipse's JDI asks ThisObject of every frame it shows, static ones too
// (the JDK's answers null itself). Once a Frames reply of the epoch showed
// a frame and its class's methods are cached, ThisObject of a frame of a
// static method is answered with the null object, as the VM answers it,
// without a round trip; of an instance method's frame it goes on as before.
func TestThisOfAStaticFrameIsAnsweredFromTheMethodsModifiers(t *testing.T) {
	h, _ := stopped(t, jdwp.SuspendPolicyAll)
	th := h.vm.Thread(1)
	ask(h, &jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1})
	static, instance := 0, 0
	for i, f := range th.Frames {
		ask(h, &jdwp.RefTypeMethodsWithGenericCommand{RefType: f.Class})
		this := &jdwp.FrameThisObjectCommand{Thread: 1, Frame: h.vm.FrameID(th, th.Generation, i)}
		before := len(h.toVM)
		got, want := ask(h, this)
		require.Equal(t, want, got, "frame %d", i)
		if scachetest.ModelModBits(f.Method)&jdwp.ModStatic != 0 {
			require.Len(t, h.toVM, before, "frame %d is static: answered without the VM", i)
			static++
		} else {
			instance++
		}
	}
	require.Positive(t, static, "the model's stack has static frames")
	require.Positive(t, instance, "and instance ones")

	// In the next epoch the frame ids are new: ThisObject of the last
	// epoch's static frame goes to the VM, which knows the id no more.
	var old jdwp.FrameID
	for i, f := range th.Frames {
		if scachetest.ModelModBits(f.Method)&jdwp.ModStatic != 0 {
			old = h.vm.FrameID(th, th.Generation, i)
			break
		}
	}
	resumeAndStop(t, h)
	before := len(h.toVM)
	got, want := ask(h, &jdwp.FrameThisObjectCommand{Thread: 1, Frame: old})
	require.Equal(t, want, got)
	require.Greater(t, len(h.toVM), before, "a frame of the last epoch goes to the VM")
}
