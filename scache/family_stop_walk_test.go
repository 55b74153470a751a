package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

// TestAStopUnlikeTheLastOfItsKindGoesOutOnItsFirstAsk: a conditional
// breakpoint as an IDE evaluates it. At two hits in three the debugger
// reads the top frame's values and resumes, and the learner holds the
// rest of the stop back; at the third it shows the user everything. Its
// first command there (the thread's name) goes to the VM, and the stop's
// speculation goes out behind it: the whole stack, this, the values, the
// thread list and the view each answer the debugger from there, from the
// second such stop on, under either suspend policy.
func TestAStopUnlikeTheLastOfItsKindGoesOutOnItsFirstAsk(t *testing.T) {
	for _, policy := range []jdwp.SuspendPolicy{jdwp.SuspendPolicyAll, jdwp.SuspendPolicyEventThread} {
		h := running(t)
		var resume jdwp.CommandMessage = &jdwp.VMResumeCommand{}
		if policy == jdwp.SuspendPolicyEventThread {
			resume = &jdwp.ThreadResumeCommand{Thread: 1}
		}
		for hit := 1; hit <= 9; hit++ {
			stopThread1(t, h, policy)
			top := h.vm.Thread(1).Frames[0]
			if hit%3 != 0 { // the condition is false: its variable read, resumed
				got, want := ask(h, topValues(h, top))
				require.Equal(t, want, got)
				ask(h, resume)
				continue
			}
			ask(h, &jdwp.ThreadNameCommand{Thread: 1})
			first := len(h.toVM)
			th := h.vm.Thread(1)
			frame := h.vm.FrameID(th, th.Generation, 0)
			shown := []jdwp.CommandMessage{
				&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1},
				&jdwp.FrameThisObjectCommand{Thread: 1, Frame: frame},
				topValues(h, top),
				&jdwp.VMAllThreadsCommand{},
			}
			for _, other := range h.vm.Threads() {
				shown = append(shown, &jdwp.ThreadStatusCommand{Thread: other.ID}, &jdwp.ThreadNameCommand{Thread: other.ID})
			}
			for _, m := range shown {
				got, want := ask(h, m)
				require.Equal(t, want, got, "%s", m.Command())
			}
			if hit > 3 { // hit 3 shows the debugger's ways at such a stop
				require.Empty(t, h.debuggersSince(first), "policy %d, hit %d: the stop answered from speculation", policy, hit)
			}
			ask(h, resume)
		}
	}
}
