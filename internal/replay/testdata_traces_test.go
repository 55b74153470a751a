package replay_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/replay"
	"github.com/stretchr/testify/require"
)

// requireReplaysExactly replays the recording testdata/name, a session
// that once failed to replay, in every mode at RTTs 0, 1 ms and 20 ms, and
// requires every reply the debugger receives to be one the recording
// allows.
func requireReplaysExactly(t *testing.T, name string) {
	t.Helper()
	traces, err := replay.LoadFile(filepath.Join("testdata", name))
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
