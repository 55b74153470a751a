package replay

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

// A thread's mark stays while others stop and are resumed one at a time,
// and moves with its own event, its own resume and a resume of every
// thread: the stretches in which the simulated VM may answer a synthetic
// command about its own state with another epoch's recording.
func TestAThreadsMarkMovesOnlyWhenItMayHaveRun(t *testing.T) {
	sizes := jdwp.DefaultIDSizes
	const parked, other = jdwp.ThreadID(0xa2), jdwp.ThreadID(0xa0)
	frames := jdwp.AppendCommandPacket(nil, 1, &jdwp.ThreadFramesCommand{Thread: parked, Length: -1}, sizes)
	breakpoint := func(th jdwp.ThreadID) []byte {
		return jdwp.AppendCommandPacket(nil, 2, &jdwp.Composite{SuspendPolicy: jdwp.SuspendPolicyEventThread,
			Events: []jdwp.Event{&jdwp.LocationEvent{EventKind: jdwp.EventBreakpoint, RequestID: 7, Thread: th}}}, sizes)
	}
	resume := func(th jdwp.ThreadID) []byte {
		return jdwp.AppendCommandPacket(nil, 3, &jdwp.ThreadResumeCommand{Thread: th}, sizes)
	}
	var runs threadRuns
	runs.event(breakpoint(parked), sizes)
	at := runs.mark(frames, sizes)
	require.Equal(t, jdwp.ObjectID(parked), at.thread)

	runs.event(breakpoint(other), sizes)
	runs.command(resume(other), sizes)
	runs.command(jdwp.AppendCommandPacket(nil, 4, &jdwp.VMAllThreadsCommand{}, sizes), sizes)
	require.Equal(t, at, runs.mark(frames, sizes), "another thread's stop and resume leave it where it was")

	runs.command(resume(parked), sizes)
	require.NotEqual(t, at, runs.mark(frames, sizes), "its own resume")
	at = runs.mark(frames, sizes)
	runs.event(breakpoint(parked), sizes)
	require.NotEqual(t, at, runs.mark(frames, sizes), "its own event")
	at = runs.mark(frames, sizes)
	runs.command(jdwp.AppendCommandPacket(nil, 5, &jdwp.VMResumeCommand{}, sizes), sizes)
	require.NotEqual(t, at, runs.mark(frames, sizes), "every thread resumed")

	require.Zero(t, runs.mark(jdwp.AppendCommandPacket(nil, 6, &jdwp.VMAllThreadsCommand{}, sizes), sizes).thread, "not about a thread")
}
