package scache_test

import (
	"slices"
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
)

// stopAndWalk stops thread 1 at a breakpoint, lets the debugger read its
// frames, then this and the visible values of the frames at depths, as an
// IDE's variables view asks them of each frame the user selects, answers
// everything and resumes. It returns how many of the debugger's commands
// about those frames reached the VM, and checks every reply against the
// model's.
func stopAndWalk(t *testing.T, h *harness, depths ...int) (reached int) {
	t.Helper()
	ev, ok := h.vm.Stop(1, jdwp.SuspendPolicyAll)
	require.True(t, ok)
	h.event(ev)
	reached = walk(t, h, depths...)
	h.send(&jdwp.VMResumeCommand{})
	h.drain()
	return reached
}

// walk is stopAndWalk once the stop's event has arrived, the thread left
// suspended.
func walk(t *testing.T, h *harness, depths ...int) (reached int) {
	t.Helper()
	th := h.vm.Thread(1)
	h.send(&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1})
	h.drain()
	for _, d := range depths {
		f := th.Frames[d]
		frame := h.vm.FrameID(th, th.Generation, d)
		for _, cmd := range []jdwp.CommandMessage{
			&jdwp.FrameThisObjectCommand{Thread: 1, Frame: frame},
			&jdwp.FrameGetValuesCommand{Thread: 1, Frame: frame, Slots: visibleInModel(t, h.vm, f)},
		} {
			id := h.send(cmd)
			reached += h.reachedVM(id)
			h.drain()
			require.Equal(t, h.vm.Handle(jdwp.AppendCommandPacket(nil, id, cmd, h.vm.Sizes)), h.replyTo(id), "%s of depth %d", cmd.Command(), d)
		}
	}
	return reached
}

// visibleInModel returns the slots a debugger asks of frame f: those
// visible at its index in the variable table the model VM gives.
func visibleInModel(t *testing.T, vm *scachetest.ModelVM, f scachetest.ModelFrame) []jdwp.SlotRequest {
	reply := vm.Handle(jdwp.AppendCommandPacket(nil, 1, &jdwp.MethodVariableTableWithGenericCommand{RefType: f.Class, Method: f.Method}, vm.Sizes))
	vt := jdwp.MethodVariableTableReply{Generic: true}
	require.NoError(t, jdwp.Unmarshal(jdwp.Data(reply), vm.Sizes, &vt))
	return scache.VisibleSlots(vt, f.Index)
}

// The frames below the top that the debugger looked at at its last stop
// are asked at the next one, once the frames are known: the debugger's
// own asks find their answers there. Depths it stops asking are
// forgotten, and depths it never asked are not asked.
func TestTheFramesBelowTheTopAreAskedAgain(t *testing.T) {
	h := running(t)
	require.Positive(t, stopAndWalk(t, h, 2, 3), "the first walk goes to the VM")
	require.Zero(t, stopAndWalk(t, h, 2, 3), "the second is answered from speculation")
	require.Positive(t, stopAndWalk(t, h, 1, 2), "depth 1 was never asked before")
	require.Zero(t, stopAndWalk(t, h, 1, 2, 3), "depth 3 was asked two stops ago")

	var idle []int
	for i := 0; i < 3; i++ {
		idle = append(idle, framesBelowTopAsked(h, func() { stopAndWalk(t, h) }))
	}
	require.Equal(t, []int{5, 5, 0}, idle, "this and values of depths 1, 2 and 3 (this of one of them not: its method is static) go out at the stops right after the debugger asked them, and are forgotten after two stops without")
}

// framesBelowTopAsked returns how many of this and values of thread 1's
// frames below its top the Speculator asked while during ran.
func framesBelowTopAsked(h *harness, during func()) int {
	before := len(h.toVM)
	during()
	th := h.vm.Thread(1)
	n := 0
	for _, p := range h.toVM[before:] {
		ph, _ := jdwp.ParseHeader(p)
		if !scache.IsSyntheticID(ph.ID) || ph.IsReply() {
			continue
		}
		var frame jdwp.FrameID
		switch ph.Cmd() {
		case jdwp.CmdStackFrameThisObject:
			var m jdwp.FrameThisObjectCommand
			require.NoError(h.t, jdwp.Unmarshal(jdwp.Data(p), h.vm.Sizes, &m))
			frame = m.Frame
		case jdwp.CmdStackFrameGetValues:
			var m jdwp.FrameGetValuesCommand
			require.NoError(h.t, jdwp.Unmarshal(jdwp.Data(p), h.vm.Sizes, &m))
			frame = m.Frame
		default:
			continue
		}
		if frame != h.vm.FrameID(th, th.Generation-1, 0) {
			n++
		}
	}
	return n
}

// Once the VM's frame numbering is learned, the frames below the top go
// out with the stop event, under the ids the VM will give them, where the
// last stop at the same place had them: before any Frames reply.
func TestTheFramesBelowTheTopGoOutWithTheStop(t *testing.T) {
	h := running(t)
	for i := 0; i < 3; i++ {
		stopAndWalk(t, h, 2, 3)
	}
	ev, ok := h.vm.Stop(1, jdwp.SuspendPolicyAll)
	require.True(t, ok)
	before := len(h.toVM)
	h.event(ev)
	th := h.vm.Thread(1)
	asked := map[jdwp.FrameID]int{}
	for _, p := range h.toVM[before:] {
		ph, _ := jdwp.ParseHeader(p)
		if ph.Cmd() == jdwp.CmdStackFrameGetValues {
			var m jdwp.FrameGetValuesCommand
			require.NoError(t, jdwp.Unmarshal(jdwp.Data(p), h.vm.Sizes, &m))
			asked[m.Frame]++
		}
	}
	for _, d := range []int{2, 3} {
		require.Equal(t, 1, asked[h.vm.FrameID(th, th.Generation, d)], "values of depth %d asked at the event", d)
	}
	require.Zero(t, walk(t, h, 2, 3))
}

// Once the debugger changes a value, the values of the frames below the
// top that it looks at are asked again: what it reads next is the value
// set, served without the VM.
func TestTheFramesBelowTheTopAreAskedAgainOnceValuesChange(t *testing.T) {
	h := running(t)
	for i := 0; i < 2; i++ {
		stopAndWalk(t, h, 2)
	}
	ev, ok := h.vm.Stop(1, jdwp.SuspendPolicyAll)
	require.True(t, ok)
	h.event(ev)
	require.Zero(t, walk(t, h, 2))
	th := h.vm.Thread(1)
	values := &jdwp.FrameGetValuesCommand{Thread: 1, Frame: h.vm.FrameID(th, th.Generation, 2), Slots: visibleInModel(t, h.vm, th.Frames[2])}
	i := slices.IndexFunc(values.Slots, func(s jdwp.SlotRequest) bool { return s.Tag == jdwp.TagInt })
	require.GreaterOrEqual(t, i, 0, "an int among the frame's variables")
	h.sendRaw(jdwp.AppendCommand(nil, 900, jdwp.CmdStackFrameSetValues, jdwp.Marshal(&setValues{values.Thread, values.Frame, values.Slots[i].Slot, 77}, sizes8)))
	h.drain()
	id := h.send(values)
	require.Zero(t, h.reachedVM(id), "asked again after the change")
	h.drain()
	require.Equal(t, h.vm.Handle(jdwp.AppendCommandPacket(nil, id, values, h.vm.Sizes)), h.replyTo(id), "the value set, not the one cached before")
}
