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
