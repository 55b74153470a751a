package scache_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
)

// suspendedView is what an IDE reads of a thread the user suspended from
// its threads view: its stack, status, suspend count and depth, each
// checked against the VM's answer.
func suspendedView(h *harness, t jdwp.ThreadID) {
	for _, m := range []jdwp.CommandMessage{
		&jdwp.ThreadFramesCommand{Thread: t, StartFrame: 0, Length: -1},
		&jdwp.ThreadStatusCommand{Thread: t},
		&jdwp.ThreadSuspendCountCommand{Thread: t},
		&jdwp.ThreadFrameCountCommand{Thread: t},
	} {
		got, want := ask(h, m)
		require.Equal(h.t, want, got, "%s", m.Command())
	}
}

// TestAThreadTheUserSuspendsIsReadBehindTheSuspend: at a suspend-thread
// stop, the user suspends a running thread from the threads view
// (ThreadReference.Suspend), the IDE reads its stack, status, suspend
// count and depth, and the user resumes it. Its status and depth, and
// from the second time on the stack and suspend count read the last
// time, go out right behind the Suspend, before
// the VM answered it; its reply parks the thread, and they answer the
// debugger, each the VM's own answer. Once the thread is resumed, its
// status is the VM's again (running).
func TestAThreadTheUserSuspendsIsReadBehindTheSuspend(t *testing.T) {
	h := threadsWorld(t, 3, true, scache.WithFamilies(scache.FamilyStop|scache.FamilyThreads))
	ask(h, &jdwp.VMIDSizesCommand{})
	ask(h, &jdwp.VMResumeCommand{})
	for round := 1; round <= 3; round++ {
		h.vm.Tick(3) // the threads run
		h.stopEvent(1, jdwp.SuspendPolicyEventThread)
		h.drain()
		ask(h, &jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: 1}) // the stopped thread's top frame
		before := len(h.toVM)
		h.send(&jdwp.ThreadSuspendCommand{Thread: 2})
		behind := h.sentSince(before)
		h.drain()
		suspendedView(h, 2)
		require.Equal(t, 1, behind[jdwp.CmdThreadReferenceStatus], "round %d: the status went out with the Suspend", round)
		require.Equal(t, 1, behind[jdwp.CmdThreadReferenceFrameCount], "round %d: the depth went out with the Suspend", round)
		if round > 1 {
			require.Equal(t, 1, behind[jdwp.CmdThreadReferenceFrames], "round %d: the stack read the last time went out with the Suspend", round)
			require.Equal(t, map[jdwp.Command]int{jdwp.CmdThreadReferenceSuspend: 1}, h.organicSince(before),
				"round %d: the view was answered from what went out behind the Suspend", round)
		}
		ask(h, &jdwp.ThreadResumeCommand{Thread: 2})
		got, want := ask(h, &jdwp.ThreadStatusCommand{Thread: 2})
		require.Equal(t, want, got, "round %d: the resumed thread's status", round)
		ask(h, &jdwp.ThreadResumeCommand{Thread: 1})
	}
}

// stoppedWhileOthersRun returns a harness whose thread 1 is stopped by a
// suspend-thread breakpoint while threads 2 and 3 run (threadsWorld's
// deep says how deep their stacks are).
func stoppedWhileOthersRun(t *testing.T, deep bool) *harness {
	h := threadsWorld(t, 3, deep, scache.WithFamilies(scache.FamilyStop|scache.FamilyThreads))
	ask(h, &jdwp.VMIDSizesCommand{})
	ask(h, &jdwp.VMResumeCommand{})
	h.stopEvent(1, jdwp.SuspendPolicyEventThread)
	h.drain()
	return h
}

// TestASuspendThatFailsParksNothing: the Suspend of a thread the VM does
// not know fails: nothing read behind it answers the debugger, whose
// reads of that thread go to the VM and get its errors.
func TestASuspendThatFailsParksNothing(t *testing.T) {
	h := stoppedWhileOthersRun(t, true)
	const gone = jdwp.ThreadID(9)
	ask(h, &jdwp.ThreadSuspendCommand{Thread: gone})
	before := len(h.toVM)
	got, want := ask(h, &jdwp.ThreadFrameCountCommand{Thread: gone})
	require.Equal(t, want, got)
	require.Equal(t, 1, h.organicSince(before)[jdwp.CmdThreadReferenceFrameCount], "asked of the VM")
}

// TestAResumeBehindTheSuspendParksNothing: the debugger resumes every
// thread right behind its Suspend of one, before the Suspend's reply: the
// VM lets that thread run again, so its Suspend's reply parks nothing. The
// thread's status, read then, is not kept: once the thread runs on, the
// debugger reads its new status.
func TestAResumeBehindTheSuspendParksNothing(t *testing.T) {
	h := stoppedWhileOthersRun(t, true)
	suspend := h.send(&jdwp.ThreadSuspendCommand{Thread: 2})
	h.send(&jdwp.VMResumeCommand{})
	h.drain()
	require.NotEmpty(t, h.replyTo(suspend))
	for seed := range uint64(3) {
		got, want := ask(h, &jdwp.ThreadStatusCommand{Thread: 2})
		require.Equal(t, want, got, "the running thread's status as it is now")
		h.vm.Tick(seed) // thread 2, resumed, runs on: sleeping, waiting, running
	}
}

// TestAParkedThreadsSuspendCountIsNotKeptPastAnEvent: thread 2 is parked
// at its own breakpoint and the debugger read its suspend count (1). An
// event of thread 1 that suspends every thread adds one to each thread's
// count: thread 2's stack is still what it was (parked), but the count
// the debugger gets is the VM's (2), not the one read before.
func TestAParkedThreadsSuspendCountIsNotKeptPastAnEvent(t *testing.T) {
	h := threadsWorld(t, 3, false, scache.WithFamilies(scache.FamilyStop|scache.FamilyThreads))
	ask(h, &jdwp.VMIDSizesCommand{})
	ask(h, &jdwp.VMResumeCommand{})
	h.stopEvent(2, jdwp.SuspendPolicyEventThread)
	h.drain()
	count := &jdwp.ThreadSuspendCountCommand{Thread: 2}
	got, want := ask(h, count)
	require.Equal(t, want, got)
	h.stopEvent(1, jdwp.SuspendPolicyAll)
	h.drain()
	require.Equal(t, 2, h.vm.Thread(2).Suspends)
	got, want = ask(h, count)
	require.Equal(t, want, got, "thread 2's count, once every thread was suspended again")
}
