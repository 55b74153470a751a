package replay_test

import (
	"testing"

	"github.com/jdwpscache/scache/internal/replay"
	"github.com/stretchr/testify/require"
)

// Every stop of the embedded traces is named in source terms, as a live
// proxy's -v and -stats name them: Class.method:line and the thread, the
// breakpoint stops of a session at one place.
func TestReplayedStopsAreNamedInSourceTerms(t *testing.T) {
	traces, err := replay.Embedded()
	require.NoError(t, err)
	for _, tr := range traces {
		res, err := replay.Run(tr, replay.ModeScache, replay.Config{RTT: 20e6})
		require.NoError(t, err, tr.Name)
		require.Len(t, res.Stops, len(res.StopRoundTrips), tr.Name)
		require.NotEmpty(t, res.Stops, tr.Name)
		breakpoints := map[string]bool{}
		for i, st := range res.Stops {
			require.Regexp(t, `^[\w.$]+\.[\w<>$]+:\d+$`, st.Where, "%s stop %d", tr.Name, i)
			require.NotEmpty(t, st.Thread, "%s stop %d: the debugger asked the thread's name", tr.Name, i)
			require.Equal(t, res.StopRoundTrips[i], st.RoundTrips)
			if !st.Step {
				breakpoints[st.Where] = true
			}
		}
		require.Len(t, breakpoints, 1, "%s: one breakpoint: %v", tr.Name, breakpoints)
		t.Logf("%s: %d stops, the first %+v", tr.Name, len(res.Stops), res.Stops[0])
	}
}
