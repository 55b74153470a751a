package scache_test

import (
	"maps"
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
)

// inACall stops nothing yet: thread 1 runs in an instance method called
// from another frame (the model's frames: the call's, then the caller's at
// index 7), and returns the harness and the call's frame, to push again.
func inACall(t *testing.T) (*harness, scachetest.ModelFrame, jdwp.ReferenceTypeID) {
	h, class := inInstanceMethod(t)
	th := h.vm.Thread(1)
	call := th.Frames[0]
	caller := call
	caller.Index, caller.This, caller.Locals = 7, h.vm.NewObject(class.ID), maps.Clone(call.Locals)
	th.Frames = append(th.Frames, caller)
	return h, call, class.ID
}

// popTop has the debugger read the stop (its frames, this and its type),
// then pop the top frame, as an IDE's Drop Frame does; it checks the
// pop's reply against the VM's.
func popTop(t *testing.T, h *harness) {
	askThis(t, h)
	th := h.vm.Thread(1)
	got, want := ask(h, &jdwp.FramePopFramesCommand{Thread: 1, Frame: h.vm.FrameID(th, th.Generation, 0)})
	require.Equal(t, want, got, "the pop's own reply is the VM's")
}

// TestAPoppedFrameEndsInAKnownState: a Drop Frame (StackFrame.PopFrames)
// lets the thread run to pop, so nothing read before it is served after
// it; but the VM suspends the thread again at the caller before it
// replies, so the thread's frames go out at the reply, and at their reply
// the new top frame's this and values: the debugger's next reads are
// answered from them, each equal to the VM's answer then. The frame
// predictor is not misled by the generations the pop took (the model
// moves two, as HotSpot 17 did): no prediction misses, and the stops after
// a pop are still predicted.
func TestAPoppedFrameEndsInAKnownState(t *testing.T) {
	h, call, class := inACall(t)
	for stop := 0; stop < 4; stop++ {
		th := h.vm.Thread(1)
		th.Frames = append([]scachetest.ModelFrame{call}, th.Frames[len(th.Frames)-1])
		stopOn(t, h, h.vm.NewObject(class))
		h.drain()
		popTop(t, h)
		h.drain()
		sent := len(h.toVM)
		top := th.Frames[0]
		vt := jdwp.MethodVariableTableReply{Generic: true}
		got, _ := ask(h, &jdwp.MethodVariableTableWithGenericCommand{RefType: top.Class, Method: top.Method})
		require.NoError(t, jdwp.Unmarshal(jdwp.Data(got), sizes8, &vt))
		frame := h.vm.FrameID(th, th.Generation, 0)
		for _, m := range []jdwp.CommandMessage{
			&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: 1},
			&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1},
			&jdwp.FrameThisObjectCommand{Thread: 1, Frame: frame},
			&jdwp.FrameGetValuesCommand{Thread: 1, Frame: frame, Slots: scache.VisibleSlots(vt, top.Index)},
		} {
			got, want := ask(h, m)
			require.Equal(t, want, got, "stop %d: %s after the pop", stop, m.Command())
			require.Equal(t, sent, len(h.toVM), "stop %d: %s answered from what went out at the reply", stop, m.Command())
		}
		resume(h)
	}
	st := h.s.Stats()
	require.Zero(t, st.FramesMispredicted, "the pops' generations mislead no prediction")
	require.NotZero(t, st.FramesPredicted, "the stops after a pop are predicted")
}

// TestARefusedPopAsksNothing: the agent refuses to pop a thread's last
// frame (OPAQUE_FRAME); nothing of the thread is speculated at that reply.
func TestARefusedPopAsksNothing(t *testing.T) {
	h, class := inInstanceMethod(t) // one frame: nothing below it to return to
	stopOn(t, h, h.vm.NewObject(class.ID))
	h.drain()
	askThis(t, h)
	th := h.vm.Thread(1)
	before := len(h.syntheticSent())
	got, want := ask(h, &jdwp.FramePopFramesCommand{Thread: 1, Frame: h.vm.FrameID(th, th.Generation, 0)})
	require.Equal(t, want, got)
	hd, err := jdwp.ParseHeader(got)
	require.NoError(t, err)
	require.Equal(t, jdwp.ErrOpaqueFrame, hd.ErrorCode, "the model refuses as the agent does")
	h.drain()
	require.Equal(t, before, len(h.syntheticSent()), "nothing speculated at a refused pop")
}

// TestAPopMisleadsNoPrediction: the pop's generations are not counted, so
// a debugger that pops and resumes without reading the frames (nothing
// speculated at the reply: FamilyInvoke off) finds the next stop's top
// frame not predicted rather than predicted wrong; the stops after that
// are predicted again.
func TestAPopMisleadsNoPrediction(t *testing.T) {
	h, call, class := inACall(t)
	h.s = newSpeculator(t, scache.WithFamilies(scache.AllFamilies&^scache.FamilyInvoke))
	h.send(&jdwp.VMIDSizesCommand{})
	h.drain()
	th := h.vm.Thread(1)
	for stop := 0; stop < 6; stop++ {
		th.Frames = append([]scachetest.ModelFrame{call}, th.Frames[len(th.Frames)-1])
		stopOn(t, h, h.vm.NewObject(class))
		h.drain()
		if stop == 3 {
			popTop(t, h)
			h.drain()
		} else {
			askThis(t, h)
		}
		resume(h)
	}
	st := h.s.Stats()
	require.Zero(t, st.FramesMispredicted)
	require.NotZero(t, st.FramesPredicted)
}

// TestAPopsTopFrameIsPredictedOnceTwoPopsAgreed: after two pops moved the
// top frame's id as far, the new top frame's this goes out with the
// thread's frames at the pop's reply, under the id the VM then gives it,
// instead of behind their reply; no prediction misses.
func TestAPopsTopFrameIsPredictedOnceTwoPopsAgreed(t *testing.T) {
	h, call, class := inACall(t)
	th := h.vm.Thread(1)
	for stop := 0; stop < 4; stop++ {
		th.Frames = append([]scachetest.ModelFrame{call}, th.Frames[len(th.Frames)-1])
		stopOn(t, h, h.vm.NewObject(class))
		h.drain()
		askThis(t, h)
		h.drain()
		h.send(&jdwp.FramePopFramesCommand{Thread: 1, Frame: h.vm.FrameID(th, th.Generation, 0)})
		require.True(t, h.step(), "the VM answers the pop")
		this := &jdwp.FrameThisObjectCommand{Thread: 1, Frame: h.vm.FrameID(th, th.Generation, 0)}
		queued := false
		for _, p := range h.vmQueue {
			if hd, err := jdwp.ParseHeader(p); err == nil && hd.Cmd() == jdwp.CmdStackFrameThisObject &&
				string(jdwp.Data(p)) == string(jdwp.Marshal(this, sizes8)) {
				queued = true
			}
		}
		require.Equal(t, stop >= 2, queued, "stop %d: the new top's this with the frames at the pop's reply", stop)
		h.drain()
		got, want := ask(h, this)
		require.Equal(t, want, got)
		resume(h)
	}
	require.Zero(t, h.s.Stats().FramesMispredicted)
}

// stopAndPop stops thread 1 in call (inACall), has the debugger read the
// stop and send a Drop Frame of the call's frame without waiting for the
// VM, and returns how many packets the VM had received before the pop.
func stopAndPop(t *testing.T, h *harness, call scachetest.ModelFrame, class jdwp.ReferenceTypeID) int {
	th := h.vm.Thread(1)
	th.Frames = append([]scachetest.ModelFrame{call}, th.Frames[len(th.Frames)-1])
	stopOn(t, h, h.vm.NewObject(class))
	h.drain()
	askThis(t, h)
	before := len(h.toVM)
	h.send(&jdwp.FramePopFramesCommand{Thread: 1, Frame: h.vm.FrameID(th, th.Generation, 0)})
	return before
}

// TestAPoppedThreadsFramesGoOutBehindThePop: the thread's frames go out
// right behind the debugger's PopFrames, before the VM answered it, and
// once each: the agent reads them once the frame is popped, and they
// answer the debugger's reads after the pop's reply, each the VM's answer.
func TestAPoppedThreadsFramesGoOutBehindThePop(t *testing.T) {
	h, call, class := inACall(t)
	for stop := 0; stop < 3; stop++ {
		before := stopAndPop(t, h, call, class)
		require.Equal(t, 2, h.sentSince(before)[jdwp.CmdThreadReferenceFrames], "stop %d: the frames went out with the pop", stop)
		h.drain()
		for _, m := range []jdwp.CommandMessage{
			&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: 1},
			&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1},
		} {
			got, want := ask(h, m)
			require.Equal(t, want, got, "stop %d: %s after the pop", stop, m.Command())
		}
		require.Zero(t, organic(h.organicSince(before+1)), "stop %d: the frames were answered from what went out behind the pop", stop)
		require.Equal(t, 2, h.sentSince(before)[jdwp.CmdThreadReferenceFrames], "stop %d: the frames went out once", stop)
		resume(h)
	}
}

// TestWhatIsAskedAfterAPopGoesOutBehindTheNext: a debugger that reads the
// thread list after each Drop Frame (Eclipse's JDI asks it before every
// resume) finds it, from the second pop on, sent right behind the pop and
// answered without a round trip of its own, the VM's answer then.
func TestWhatIsAskedAfterAPopGoesOutBehindTheNext(t *testing.T) {
	h, call, class := inACall(t)
	for stop := 0; stop < 3; stop++ {
		before := stopAndPop(t, h, call, class)
		behind := h.sentSince(before)[jdwp.CmdVirtualMachineAllThreads]
		h.drain()
		got, want := ask(h, &jdwp.VMAllThreadsCommand{})
		require.Equal(t, want, got, "stop %d: the thread list after the pop", stop)
		if stop > 0 {
			require.Equal(t, 1, behind, "stop %d: the list went out with the pop", stop)
			require.Zero(t, organic(h.organicSince(before+1)), "stop %d: the list was answered from what went out behind the pop", stop)
		}
		resume(h)
	}
}
