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
