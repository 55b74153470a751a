package replay_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/replay"
	"github.com/stretchr/testify/require"
)

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
	traces, err := replay.LoadFile(filepath.Join("testdata", "threadsview-list-at-an-epochs-edge.sctrace"))
	require.NoError(t, err)
	require.Len(t, traces, 1)
	for _, mode := range replay.Modes {
		res, err := replay.Run(traces[0], mode, replay.Config{RTT: 20 * time.Millisecond})
		require.NoError(t, err, "%s", mode)
		require.Empty(t, res.Mismatches, "%s", mode)
	}
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
	traces, err := replay.LoadFile(filepath.Join("testdata", "threadsview-list-asked-epochs-after-its-speculation.sctrace"))
	require.NoError(t, err)
	require.Len(t, traces, 1)
	for _, mode := range replay.Modes {
		for _, rtt := range []time.Duration{0, time.Millisecond, 20 * time.Millisecond} {
			res, err := replay.Run(traces[0], mode, replay.Config{RTT: rtt})
			require.NoError(t, err, "%s at RTT %v", mode, rtt)
			require.Empty(t, res.Mismatches, "%s at RTT %v", mode, rtt)
		}
	}
}
