package scache_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
)

// TestAPauseAsksTheViewAndTheStacksOfTheLastPause: a user presses an IDE's
// Pause while the threads run (VirtualMachine.Suspend; no event comes),
// and the IDE refreshes its threads view and shows a thread's stack. From
// the second pause on, the list, every thread's status and name and the
// stack read at the last pause go out at the Suspend's reply: the view is
// answered without a command of the debugger's reaching the VM, each
// reply the VM's own.
func TestAPauseAsksTheViewAndTheStacksOfTheLastPause(t *testing.T) {
	h := threadsWorld(t, 3, true, scache.WithFamilies(scache.FamilyStop|scache.FamilyThreads))
	ask(h, &jdwp.VMIDSizesCommand{})
	ask(h, &jdwp.VMResumeCommand{})
	view := append(threadsView(false), &jdwp.ThreadFramesCommand{Thread: 2, StartFrame: 0, Length: -1})
	for pause := 1; pause <= 3; pause++ {
		h.vm.Tick(3) // the threads run, and rename themselves
		ask(h, &jdwp.VMSuspendCommand{})
		sent := len(h.toVM)
		for _, m := range view {
			got, want := ask(h, m)
			require.Equal(t, want, got, "pause %d: %s", pause, m.Command())
		}
		if pause > 1 {
			require.Zero(t, organic(h.organicSince(sent)), "pause %d: the view and the stack went out at the Suspend's reply", pause)
		}
		ask(h, &jdwp.VMResumeCommand{})
	}
}

// TestAPausesViewGoesOutBehindTheSuspend: from the second pause on, the
// thread list, each thread's view and the stack read at the last pause go
// out right behind the debugger's VirtualMachine.Suspend, before the VM
// answered it, and once each: the VM reads them with every thread
// suspended, and they answer the view after the Suspend's reply.
func TestAPausesViewGoesOutBehindTheSuspend(t *testing.T) {
	h := threadsWorld(t, 3, true, scache.WithFamilies(scache.FamilyStop|scache.FamilyThreads))
	ask(h, &jdwp.VMIDSizesCommand{})
	ask(h, &jdwp.VMResumeCommand{})
	view := append(threadsView(false), &jdwp.ThreadFramesCommand{Thread: 2, StartFrame: 0, Length: -1})
	for pause := 1; pause <= 3; pause++ {
		h.vm.Tick(3)
		before := len(h.toVM)
		h.send(&jdwp.VMSuspendCommand{})
		behind := h.sentSince(before)
		h.drain()
		for _, m := range view {
			got, want := ask(h, m)
			require.Equal(t, want, got, "pause %d: %s", pause, m.Command())
		}
		if pause > 1 {
			require.Equal(t, 1, behind[jdwp.CmdVirtualMachineAllThreads], "pause %d: the list went out with the Suspend", pause)
			require.Equal(t, 3, behind[jdwp.CmdThreadReferenceName], "pause %d: each thread's name went out with the Suspend", pause)
			require.Equal(t, 1, behind[jdwp.CmdThreadReferenceFrames], "pause %d: the last pause's stack went out with the Suspend", pause)
			require.Zero(t, organic(h.organicSince(before+1)), "pause %d: the view was answered from what went out behind the Suspend", pause)
			sent := h.sentSince(before)
			require.Equal(t, 1, sent[jdwp.CmdVirtualMachineAllThreads], "pause %d: the list went out once", pause)
			require.Equal(t, 3, sent[jdwp.CmdThreadReferenceName], "pause %d: each name went out once", pause)
		}
		ask(h, &jdwp.VMResumeCommand{})
	}
}
