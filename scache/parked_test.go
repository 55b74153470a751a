package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
)

// organicSince counts the debugger's commands the VM received from the
// before-th packet on, by command.
func (h *harness) organicSince(before int) map[jdwp.Command]int {
	n := map[jdwp.Command]int{}
	for _, p := range h.toVM[before:] {
		ph, err := jdwp.ParseHeader(p)
		require.NoError(h.t, err)
		if !scache.IsSyntheticID(ph.ID) {
			n[ph.Cmd()]++
		}
	}
	return n
}

// workersView is an IDE's view of thread t's stop while the threads of
// suspended are suspended at their own breakpoints: t's frames and top
// frame's this, the thread list, every thread's status and name, each
// other suspended thread's depth and top frame; each reply is checked
// against the VM's. It returns what went to the VM of the debugger's own.
func workersView(h *harness, t jdwp.ThreadID, threads int, suspended []jdwp.ThreadID) map[jdwp.Command]int {
	before := len(h.toVM)
	check := func(m jdwp.CommandMessage) {
		got, want := ask(h, m)
		require.Equal(h.t, want, got, "%s", m.Command())
	}
	check(&jdwp.ThreadFramesCommand{Thread: t, StartFrame: 0, Length: -1})
	th := h.vm.Thread(t)
	check(&jdwp.FrameThisObjectCommand{Thread: t, Frame: h.vm.FrameID(th, th.Generation, 0)})
	check(&jdwp.VMAllThreadsCommand{})
	for id := jdwp.ThreadID(1); id <= jdwp.ThreadID(threads); id++ {
		check(&jdwp.ThreadStatusCommand{Thread: id})
		check(&jdwp.ThreadNameCommand{Thread: id})
	}
	for _, other := range suspended {
		if other != t {
			check(&jdwp.ThreadFrameCountCommand{Thread: other})
			check(&jdwp.ThreadFramesCommand{Thread: other, StartFrame: 0, Length: 1})
		}
	}
	return h.organicSince(before)
}

// TestWorkersStoppedTogetherAreServedInTurn: under suspend-thread
// breakpoints, four workers stop at once, each at its own breakpoint, and
// the debugger shows each stop in turn, resuming its thread alone (an
// IDE's threads view). The later stops' events arrived while it looked at
// the first: each thread stays parked where its event left it, so its
// frames, this and status, read at its own stop, still answer the
// debugger at its turn, and so do the others' depths and top frames.
// After the first round only what moves (the list, names, the running
// threads' status) is asked again, and that is speculated too.
func TestWorkersStoppedTogetherAreServedInTurn(t *testing.T) {
	const threads = 6 // four workers and two threads that keep running
	h := threadsWorld(t, threads, true)
	ask(h, &jdwp.VMIDSizesCommand{})
	ask(h, &jdwp.VMResumeCommand{})
	workers := []jdwp.ThreadID{1, 2, 3, 4}
	for round := 0; round < 3; round++ {
		for _, w := range workers {
			ev, ok := h.vm.Stop(w, jdwp.SuspendPolicyEventThread)
			require.True(t, ok)
			h.event(ev)
		}
		for i, w := range workers {
			forwarded := workersView(h, w, threads, workers[i:])
			if round > 0 { // the first round teaches what the debugger reads
				require.Empty(t, forwarded, "round %d, thread %d's stop: every reply from speculation", round, w)
			}
			ask(h, &jdwp.ThreadResumeCommand{Thread: w})
		}
		h.vm.Tick(uint64(round))
	}
}

// TestAnInvocationUnparksTheThreadsItLetsRun: threads 1 and 2 are parked
// at their own stops. A single-threaded invocation in thread 2 lets only
// thread 2 run: thread 1's frames are still answered here. One that
// resumes every thread for its run lets thread 1 run too: its frames are
// asked of the VM again (their frame ids changed), and the answer is the
// VM's.
func TestAnInvocationUnparksTheThreadsItLetsRun(t *testing.T) {
	for _, single := range []bool{true, false} {
		h := threadsWorld(t, 3, true)
		ask(h, &jdwp.VMIDSizesCommand{})
		ask(h, &jdwp.VMResumeCommand{})
		for _, w := range []jdwp.ThreadID{1, 2} {
			ev, ok := h.vm.Stop(w, jdwp.SuspendPolicyEventThread)
			require.True(t, ok)
			h.event(ev)
		}
		frames := &jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1}
		got, want := ask(h, frames)
		require.Equal(t, want, got)
		class := h.vm.Classes()[0]
		options := int32(0)
		if single {
			options = jdwp.InvokeSingleThreaded
		}
		ask(h, &jdwp.ClassTypeInvokeMethodCommand{StaticCall: jdwp.StaticCall{Class: class.ID,
			MethodCall: jdwp.MethodCall{Thread: 2, Method: class.Methods[0], Options: options}}})
		sent := len(h.toVM)
		got, want = ask(h, frames)
		require.Equal(t, want, got, "single-threaded %v", single)
		if single {
			require.Zero(t, organic(h.organicSince(sent)), "thread 1 stayed parked: its frames answered here")
		} else {
			require.Equal(t, 1, organic(h.organicSince(sent)), "thread 1 ran: its frames asked of the VM")
		}
	}
}

// TestAParkedThreadStaysParkedThroughAPause: thread 1 is parked at its own
// breakpoint, and the debugger pauses the VM (VirtualMachine.Suspend) and
// resumes every thread (VirtualMachine.Resume): thread 1's suspend count
// drops back to its event's, and its stack, read before the pause, still
// answers here. A thread resumed alone during the pause and stopped again
// by its event has no pause left in its count: the VirtualMachine.Resume
// lets it run, and what the debugger asks of it next is the VM's answer.
func TestAParkedThreadStaysParkedThroughAPause(t *testing.T) {
	h := threadsWorld(t, 3, false)
	ask(h, &jdwp.VMIDSizesCommand{})
	ask(h, &jdwp.VMResumeCommand{})
	h.stopEvent(1, jdwp.SuspendPolicyEventThread)
	h.drain()
	frames := &jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1}
	ask(h, frames)
	ask(h, &jdwp.VMSuspendCommand{})
	ask(h, &jdwp.VMResumeCommand{})
	sent := len(h.toVM)
	got, want := ask(h, frames)
	require.Equal(t, want, got)
	require.Zero(t, organic(h.organicSince(sent)), "thread 1 stayed parked: its stack answered here")

	ask(h, &jdwp.VMSuspendCommand{})
	ask(h, &jdwp.ThreadResumeCommand{Thread: 1}) // from its event and the pause, to the pause's alone
	ask(h, &jdwp.ThreadResumeCommand{Thread: 1}) // it runs
	h.stopEvent(1, jdwp.SuspendPolicyEventThread)
	h.drain()
	ask(h, frames)
	ask(h, &jdwp.VMResumeCommand{})
	require.Zero(t, h.vm.Thread(1).Suspends, "the resume of every thread let thread 1 run")
	got, want = ask(h, frames)
	require.Equal(t, want, got, "thread 1's stack, once it runs, is the VM's answer")
}
