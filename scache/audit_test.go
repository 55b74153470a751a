package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
)

// With the audit on, every answer the Speculator gives at a stop (from the
// cache, derived, held) is checked against the VM's reply to a copy; none
// differs, and no copy's reply reaches the debugger.
func TestTheAuditChecksEveryAnswer(t *testing.T) {
	vm, classes := scachetest.World(sizes8)
	h := newHarness(t, vm, scache.WithAudit(true))
	stopSession(t, h, classes[0])
	st := h.s.Stats()
	require.Positive(t, st.Hits)
	require.Equal(t, st.Hits+st.Belayed, st.Audited, "every answer audited")
	require.Zero(t, st.AuditMismatches)

	// Held: asked while the speculation that answers it is in flight.
	ev, ok := h.vm.Stop(1, jdwp.SuspendPolicyAll)
	require.True(t, ok)
	h.event(ev)
	h.send(&jdwp.ThreadFramesCommand{Thread: 1, Length: -1})
	h.drain()
	st = h.s.Stats()
	require.Positive(t, st.Belayed)
	require.Equal(t, st.Hits+st.Belayed, st.Audited, "held answers audited too")
	require.Zero(t, st.AuditMismatches)
	for _, p := range h.toDebugger {
		h, err := jdwp.ParseHeader(p)
		require.NoError(t, err)
		require.False(t, h.IsReply() && scache.IsSyntheticID(h.ID), "a synthetic reply reached the debugger")
	}
}

// An answer that is not what the VM says now is reported: here the VM's
// thread moved without an event the Speculator could see.
func TestTheAuditReportsAStaleAnswer(t *testing.T) {
	h := running(t, scache.WithAudit(true))
	stopThread1(t, h, jdwp.SuspendPolicyAll)
	ask(h, &jdwp.ThreadFramesCommand{Thread: 1, Length: -1})
	h.vm.Thread(1).Frames[0].Index++ // behind the Speculator's back
	h.send(&jdwp.ThreadFramesCommand{Thread: 1, Length: -1})
	h.drain()
	st := h.s.Stats()
	require.Positive(t, st.Hits, "answered from the cache")
	require.Equal(t, int64(1), st.AuditMismatches)

	// Without the audit, nothing is sent for it.
	h = running(t)
	stopThread1(t, h, jdwp.SuspendPolicyAll)
	ask(h, &jdwp.ThreadFramesCommand{Thread: 1, Length: -1})
	sent := len(h.toVM)
	ask(h, &jdwp.ThreadFramesCommand{Thread: 1, Length: -1})
	require.Equal(t, sent, len(h.toVM))
	require.Zero(t, h.s.Stats().Audited)
}

// A thread suspended in a sleep runs on into its suspension once its time
// is up, and the VM reports it running: the audit lets the status served
// (sleeping, as it was read) differ in that, for another thread than the
// stopped one, but still reports a suspension that differs, and any
// difference in the stopped thread's status.
func TestTheAuditComparesTheSuspensionOfAnotherThreadsStatus(t *testing.T) {
	h := running(t, scache.WithAudit(true))
	stopThread1(t, h, jdwp.SuspendPolicyAll)
	other := h.vm.Thread(2)
	other.Status = jdwp.ThreadStatusSleeping
	ask(h, &jdwp.ThreadStatusCommand{Thread: 2})
	other.Status = jdwp.ThreadStatusRunning // its sleep ended
	ask(h, &jdwp.ThreadStatusCommand{Thread: 2})
	st := h.s.Stats()
	require.Positive(t, st.Audited)
	require.Zero(t, st.AuditMismatches, "the thread status of a suspended thread may have moved on")

	other.Suspends = 0 // behind the Speculator's back
	ask(h, &jdwp.ThreadStatusCommand{Thread: 2})
	require.Equal(t, int64(1), h.s.Stats().AuditMismatches, "its suspension may not")

	ask(h, &jdwp.ThreadStatusCommand{Thread: 1})
	h.vm.Thread(1).Status = jdwp.ThreadStatusSleeping // behind the Speculator's back
	ask(h, &jdwp.ThreadStatusCommand{Thread: 1})
	require.Equal(t, int64(2), h.s.Stats().AuditMismatches, "nor the stopped thread's status")
}
