package replay_test

import "testing"

// TestAListSpeculatedAtAnEpochsEdgeIsAnsweredAsTheVMWould replays a
// recorded threads-view session (TestAThreadsViewSessionReplaysExactly's
// workload) in which the near half of a split proxy sends a thread list
// in an epoch that, in the simulation's count, holds no list of the
// recording: the epoch begins a packet earlier at a near half than in the
// recording. The simulated VM answered it with its placeholder, and the
// debugger's list, held on it, received the placeholder (one recording in
// about thirty failed so). The VM answers with the list it has, which the
// recording holds in the next epoch.
func TestAListSpeculatedAtAnEpochsEdgeIsAnsweredAsTheVMWould(t *testing.T) {
	requireReplaysExactly(t, "threadsview-list-at-an-epochs-edge.sctrace")
}

// TestAListSpeculatedEpochsBeforeAnyRecordedIsAnsweredAsTheVMWould
// replays a recorded threads-view session in which four workers stop one
// after another, each stop beginning an epoch, before the debugger asks
// the thread list: the Speculator asks it at the first stops, in epochs
// that hold no list of the recording, nor do the epochs next to them. The
// simulated VM answered with its placeholder, an error the debugger then
// received for its own list (about one recording in a hundred failed
// so). The VM answers with the next list recorded, the one it ran to.
func TestAListSpeculatedEpochsBeforeAnyRecordedIsAnsweredAsTheVMWould(t *testing.T) {
	requireReplaysExactly(t, "threadsview-list-asked-epochs-after-its-speculation.sctrace")
}
