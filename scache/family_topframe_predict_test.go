package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
)

// stopAndInspect stops thread 1 at a breakpoint (suspend policy ALL), lets
// the debugger read its frames and top frame as JDI does, answers
// everything, and resumes. It returns the Speculator's stats before the
// debugger asked anything and the debugger's top-frame replies.
func stopAndInspect(t *testing.T, h *harness) (atEvent scache.Stats, values []byte) {
	return stopThreadAndInspect(t, h, 1, jdwp.SuspendPolicyAll)
}

// stopThreadAndInspect is stopAndInspect for a thread and a suspend policy;
// the debugger resumes with VirtualMachine.Resume.
func stopThreadAndInspect(t *testing.T, h *harness, thread jdwp.ObjectID, policy jdwp.SuspendPolicy) (atEvent scache.Stats, values []byte) {
	ev, ok := h.vm.Stop(thread, policy)
	require.True(t, ok)
	h.event(ev)
	atEvent = h.s.Stats()
	th := h.vm.Thread(thread)
	top := th.Frames[0]
	frame := h.vm.FrameID(th, th.Generation, 0)
	h.send(&jdwp.ThreadFramesCommand{Thread: thread, StartFrame: 0, Length: -1})
	got, want := ask(h, &jdwp.FrameGetValuesCommand{Thread: thread, Frame: frame,
		Slots: scache.VisibleSlots(scachetest.ModelVariableTable(top.Method), top.Index)})
	require.Equal(t, want, got)
	h.send(&jdwp.VMResumeCommand{})
	h.drain()
	return atEvent, got
}

// Once the Speculator has seen how the VM numbers top frames, it asks for
// the top frame's this and locals at the stop event, with the frame id the
// VM will give it: the debugger's GetValues finds its answer already there.
func TestTopFrameIsPredictedAtTheStop(t *testing.T) {
	h := running(t)
	for i := 0; i < 2; i++ {
		stopAndInspect(t, h) // the step is seen in these two
	}
	sentBefore := len(h.toVM)
	atEvent, _ := stopAndInspect(t, h)
	require.Equal(t, int64(1), atEvent.FramesPredicted)
	total, synthetic := 0, 0
	for _, p := range h.toVM[sentBefore:] {
		ph, _ := jdwp.ParseHeader(p)
		if ph.Cmd() == jdwp.CmdStackFrameGetValues {
			total++
			if scache.IsSyntheticID(ph.ID) {
				synthetic++
			}
		}
	}
	require.Equal(t, 1, synthetic, "GetValues of the predicted top frame went up at the event")
	require.Equal(t, 1, total, "the debugger's own GetValues did not")
	require.Zero(t, h.s.Stats().FramesMispredicted)
}

// A VM whose frame ids follow no step gets one wrong prediction, then none.
func TestRandomFrameIDsAreNotPredicted(t *testing.T) {
	vm, _ := scachetest.World(sizes8)
	vm.FrameIDs = scachetest.FrameIDsRandom
	h := newHarness(t, vm)
	h.send(&jdwp.VMIDSizesCommand{})
	h.send(&jdwp.VMResumeCommand{})
	h.drain()
	for i := 0; i < 8; i++ {
		stopAndInspect(t, h)
	}
	st := h.s.Stats()
	require.LessOrEqual(t, st.FramesPredicted, int64(1))
	require.Equal(t, st.FramesPredicted, st.FramesMispredicted)
}

// A VM that changes how it numbers frames mid-session costs one wrong
// prediction: the real top frame is asked for as before, and predictions
// stop until the new step is seen again.
func TestAPatternBrokenMidSessionCostsOneMiss(t *testing.T) {
	h := running(t)
	for i := 0; i < 4; i++ {
		stopAndInspect(t, h) // the third and fourth are predicted
	}
	// From the thread's next resume on (the one after the fifth stop), the VM
	// numbers frames anew.
	h.vm.FrameIDs = scachetest.FrameIDsRandom
	for i := 0; i < 4; i++ {
		stopAndInspect(t, h) // its replies are checked against the VM's
	}
	st := h.s.Stats()
	require.Equal(t, int64(1), st.FramesMispredicted)
	require.Equal(t, int64(4), st.FramesPredicted, "three right before the break, one wrong after, then none")
}

// The VM moves a thread's frame generation only when that thread goes from
// suspended to running: a VirtualMachine.Resume after an EVENT_THREAD stop
// moves the stopped thread's alone. Threads that take turns at their
// breakpoints, under either policy or both, keep their predictions: after
// a round to learn the step, every stop's top frame is predicted, and
// right. A thread seen for the first time gets the first id the two new
// threads before it showed.
func TestThreadsTakingTurnsKeepTheirFramePredictions(t *testing.T) {
	et, all := jdwp.SuspendPolicyEventThread, jdwp.SuspendPolicyAll
	for _, c := range []struct {
		name     string
		policies []jdwp.SuspendPolicy // by round
		// predicted is how many of the 12 stops are predicted: from the
		// second round on, but the first stop of the second round, which
		// learns the step (and under EVENT_THREAD, the third thread's first
		// stop: the two before it started at the same id).
		predicted int64
	}{
		{"event thread", []jdwp.SuspendPolicy{et, et, et, et}, 9},
		{"all", []jdwp.SuspendPolicy{all, all, all, all}, 8},
		{"mixed", []jdwp.SuspendPolicy{et, all, et, all}, 9},
	} {
		t.Run(c.name, func(t *testing.T) {
			vm, classes := scachetest.World(sizes8)
			vm.SetThread(3, []scachetest.ModelFrame{{Class: classes[0].ID, Method: classes[0].Methods[2], Index: 7}})
			h := newHarness(t, vm)
			h.send(&jdwp.VMIDSizesCommand{})
			h.send(&jdwp.VMResumeCommand{})
			h.drain()
			for _, policy := range c.policies {
				for _, thread := range []jdwp.ObjectID{1, 2, 3} {
					stopThreadAndInspect(t, h, thread, policy)
				}
			}
			st := h.s.Stats()
			require.Zero(t, st.FramesMispredicted)
			require.Equal(t, c.predicted, st.FramesPredicted)
		})
	}
}

// A thread the debugger suspends and resumes on its own (ThreadReference
// Suspend and Resume, as a threads view's pause does) moves its own
// generation; the others keep theirs.
func TestAThreadPausedAloneMovesOnlyItsOwnFrames(t *testing.T) {
	h := running(t)
	for i := 0; i < 2; i++ {
		for _, thread := range []jdwp.ObjectID{1, 2} {
			stopThreadAndInspect(t, h, thread, jdwp.SuspendPolicyEventThread)
		}
	}
	before := h.s.Stats()
	h.send(&jdwp.ThreadSuspendCommand{Thread: 2})
	h.send(&jdwp.ThreadResumeCommand{Thread: 2})
	h.drain()
	for _, thread := range []jdwp.ObjectID{1, 2} {
		stopThreadAndInspect(t, h, thread, jdwp.SuspendPolicyEventThread)
	}
	st := h.s.Stats()
	require.Zero(t, st.FramesMispredicted)
	require.Equal(t, before.FramesPredicted+2, st.FramesPredicted)
}
