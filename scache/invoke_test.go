package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
)

// invokeToString has the debugger call this's toString in thread 1 (the
// model's every instance method counts its calls in field 1 and returns a
// new string), and returns the reply.
func invokeToString(t *testing.T, h *harness, this jdwp.ObjectID) jdwp.InvokeMethodReply {
	th := h.vm.Thread(1)
	got, want := ask(h, &jdwp.ObjectRefInvokeMethodCommand{Object: this, Class: th.Frames[0].Class,
		MethodCall: jdwp.MethodCall{Thread: 1, Method: th.Frames[0].Method}})
	require.Equal(t, want[jdwp.HeaderSize:], got[jdwp.HeaderSize:], "the invocation's own reply is the VM's")
	var m jdwp.InvokeMethodReply
	require.NoError(t, jdwp.Unmarshal(jdwp.Data(got), sizes8, &m))
	return m
}

// TestAnInvocationEndsInAKnownState: a renderer's toString in the stopped
// thread lets the thread run, so nothing read before it is served after
// it (toString changed this's field); but the VM suspends the thread again
// where it stood before it replies, so the thread's top frame, its this
// and values, and the returned string's value go out at the reply and
// answer the debugger's next commands, each equal to the VM's answer then.
func TestAnInvocationEndsInAKnownState(t *testing.T) {
	h, class := inInstanceMethod(t)
	this := h.vm.NewObject(class.ID)
	for stop := 0; stop < 3; stop++ {
		stopOn(t, h, this)
		h.drain()
		askThis(t, h)
		get := &jdwp.ObjectRefGetValuesCommand{Object: this, Fields: []jdwp.FieldID{1, 2}}
		got, want := ask(h, get)
		require.Equal(t, want, got)

		top := h.vm.Thread(1).Frames[0]
		vt := jdwp.MethodVariableTableReply{Generic: true}
		got, _ = ask(h, &jdwp.MethodVariableTableWithGenericCommand{RefType: top.Class, Method: top.Method})
		require.NoError(t, jdwp.Unmarshal(jdwp.Data(got), sizes8, &vt))

		rendered := invokeToString(t, h, this)
		require.Equal(t, jdwp.TagString, rendered.Return.Tag)
		sent := len(h.toVM)
		th := h.vm.Thread(1)
		for _, m := range []jdwp.CommandMessage{
			&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: 1},
			&jdwp.StringRefValueCommand{Object: rendered.Return.ObjectID()},
			&jdwp.FrameThisObjectCommand{Thread: 1, Frame: h.vm.FrameID(th, th.Generation, 0)},
			&jdwp.FrameGetValuesCommand{Thread: 1, Frame: h.vm.FrameID(th, th.Generation, 0), Slots: scache.VisibleSlots(vt, top.Index)},
		} {
			got, want := ask(h, m)
			require.Equal(t, want, got, "%s after the invocation", m.Command())
			if stop > 0 { // the frame predictor has seen an invocation's new frame id
				require.Equal(t, sent, len(h.toVM), "%s answered from what went out at the reply", m.Command())
			}
		}
		got, want = ask(h, get)
		require.Equal(t, want, got, "this's fields as toString left them")
		resume(h)
	}
}

// TestAnEventDuringAnInvocationTrustsNothing: an event that suspended
// threads while an invocation ran (another thread hit a breakpoint, a
// thread started under a request that suspends) may come from any state:
// at the invocation's reply nothing is speculated about the thread (only
// what is true of the returned string whatever the state), and its frames
// are the VM's.
func TestAnEventDuringAnInvocationTrustsNothing(t *testing.T) {
	for _, event := range []*jdwp.Composite{
		{SuspendPolicy: jdwp.SuspendPolicyEventThread, Events: []jdwp.Event{&jdwp.LocationEvent{EventKind: jdwp.EventBreakpoint,
			RequestID: 3, Thread: 2, Location: jdwp.Location{TypeTag: jdwp.TypeTagClass, Class: 9, Method: 9}}}},
		{SuspendPolicy: jdwp.SuspendPolicyAll, Events: []jdwp.Event{&jdwp.ThreadEvent{EventKind: jdwp.EventThreadStart, RequestID: 3, Thread: 2}}},
	} {
		h := invokeWithEvent(t, event)
		before := h.syntheticSent()
		h.drain()
		for _, cmd := range h.syntheticSent()[len(before):] {
			require.False(t, scache.StateCommand(cmd), "%s speculated at the reply", cmd)
		}
		sent := len(h.toVM)
		got, want := ask(h, &jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: 1})
		require.Equal(t, want, got)
		require.Equal(t, sent+1, len(h.toVM), "asked of the VM")
	}
}

// TestAnEventThatSuspendsNothingKeepsTheInvocationsState: the code an
// invocation runs loads classes, and the ClassPrepare events of a
// debugger's requests of suspend policy NONE (jdb's) arrive before its
// reply. They suspend nothing, so the invocation still ends in a known
// state: the thread's top frame goes out at the reply and answers the
// debugger, equal to the VM's.
func TestAnEventThatSuspendsNothingKeepsTheInvocationsState(t *testing.T) {
	h := invokeWithEvent(t, &jdwp.Composite{SuspendPolicy: jdwp.SuspendPolicyNone, Events: []jdwp.Event{
		&jdwp.ClassPrepareEvent{RequestID: 3, Thread: 1, TypeTag: jdwp.TypeTagClass, TypeID: 0x77,
			Signature: "Ljava/lang/Loaded;", Status: 7}}})
	h.drain()
	require.Contains(t, h.syntheticSent(), jdwp.CmdThreadReferenceFrames, "the top frame asked at the reply")
	sent := len(h.toVM)
	got, want := ask(h, &jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: 1})
	require.Equal(t, want, got)
	require.Equal(t, sent, len(h.toVM), "answered from what went out at the reply")
}

// invokeWithEvent stops thread 1 in an instance method, has the debugger
// invoke this's toString there, and has event reach the Speculator before
// the invocation's reply (which h.drain delivers).
func invokeWithEvent(t *testing.T, event *jdwp.Composite) *harness {
	h, class := inInstanceMethod(t)
	this := h.vm.NewObject(class.ID)
	stopOn(t, h, this)
	h.drain()
	askThis(t, h)
	th := h.vm.Thread(1)
	h.send(&jdwp.ObjectRefInvokeMethodCommand{Object: this, Class: th.Frames[0].Class,
		MethodCall: jdwp.MethodCall{Thread: 1, Method: th.Frames[0].Method}})
	h.event(jdwp.AppendCommandPacket(nil, 77, event, sizes8))
	return h
}

// A family's view of an invocation: with FamilyInvoke off, nothing goes
// out at the reply.
func TestFamilyInvokeIsWhatSpeculatesAtTheReply(t *testing.T) {
	h, class := inInstanceMethod(t)
	h2 := newHarness(t, h.vm, scache.WithFamilies(scache.AllFamilies&^scache.FamilyInvoke))
	h2.send(&jdwp.VMIDSizesCommand{})
	h2.send(&jdwp.VMResumeCommand{})
	h2.drain()
	this := h.vm.NewObject(class.ID)
	stopOn(t, h2, this)
	h2.drain()
	askThis(t, h2)
	before := len(h2.syntheticSent())
	invokeToString(t, h2, this)
	require.Equal(t, before, len(h2.syntheticSent()))
}

// TestWhatFollowsAnInvocationIsAskedAgain: what the debugger asked after
// invoking a method at a stop (this's fields as the toString left them, the
// thread list of its threads view) goes out at the reply to the same
// invocation at its next stops of that kind, on whichever object this is
// then, and answers the debugger as the VM would.
func TestWhatFollowsAnInvocationIsAskedAgain(t *testing.T) {
	h, class := inInstanceMethod(t)
	for stop := 0; stop < 3; stop++ {
		this := h.vm.NewObject(class.ID)
		stopOn(t, h, this)
		h.drain()
		askThis(t, h)
		invokeToString(t, h, this)
		sent := len(h.toVM)
		for _, m := range []jdwp.CommandMessage{
			&jdwp.ObjectRefGetValuesCommand{Object: this, Fields: []jdwp.FieldID{1}},
			&jdwp.VMAllThreadsCommand{},
		} {
			got, want := ask(h, m)
			require.Equal(t, want, got, "%s after the invocation", m.Command())
		}
		asked := 0 // the debugger's own commands that reached the VM
		for _, p := range h.toVM[sent:] {
			if !scache.IsSyntheticID(jdwp.PacketID(p)) {
				asked++
			}
		}
		if stop == 0 {
			require.Equal(t, 2, asked, "first stop: both asked of the VM")
		} else {
			require.Zero(t, asked, "answered from what went out at the invocation's reply")
		}
		resume(h)
	}
}

// Eclipse's JDI asks the thread list after its renderers, before it
// resumes, and reads no thread's status or name there. The list's reply
// would send the threads view behind it at every stop: once the view went
// unused after an invocation, it no longer goes out there, while the list,
// which the debugger reads after the invocation, does (from the second
// stop, the list is answered from speculation). What is learned after an
// invocation is learned apart from what is learned before it.
func TestWhatADebuggerLeavesUnreadAfterAnInvocationStopsGoingOut(t *testing.T) {
	h, class := inInstanceMethod(t)
	for stop := 0; stop < 5; stop++ {
		this := h.vm.NewObject(class.ID)
		stopOn(t, h, this)
		h.drain()
		askThis(t, h)
		before := len(h.toVM)
		invokeToString(t, h, this)
		sent := len(h.toVM)
		got, want := ask(h, &jdwp.VMAllThreadsCommand{})
		require.Equal(t, want, got)
		view := h.sentSince(before)[jdwp.CmdThreadReferenceStatus]
		switch {
		case stop == 0:
			require.Positive(t, view, "the view, behind the list's reply: not yet learned")
		case stop >= 2:
			require.Zero(t, view, "stop %d: the view went unused after the invocation", stop)
			require.Equal(t, sent, len(h.toVM), "stop %d: the list answered from speculation", stop)
		}
		resume(h)
	}
}
