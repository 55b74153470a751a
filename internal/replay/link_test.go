package replay_test

import (
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/latency"
	"github.com/jdwpscache/scache/internal/replay"
	"github.com/stretchr/testify/require"
)

// A link profile shapes the replay's link: one that only delays gives what
// the plain link gives, bandwidth and a sleeping radio make every mode
// wait longer, and the same profile gives the same result every time.
func TestTheReplaysLinkFollowsItsProfile(t *testing.T) {
	traces, err := replay.Embedded()
	require.NoError(t, err)
	tr := traces[0]
	const rtt = 20 * time.Millisecond
	slow := latency.Profile{Name: "slow", Bandwidth: 20 << 10}
	for _, mode := range []replay.Mode{replay.ModeOff, replay.ModeScache, replay.ModeSplit} {
		plain, err := replay.Run(tr, mode, replay.Config{RTT: rtt})
		require.NoError(t, err)
		delayOnly, err := replay.Run(tr, mode, replay.Config{RTT: rtt, Link: &latency.Profile{Name: "delay", Delay: time.Hour}})
		require.NoError(t, err)
		require.Equal(t, plain.Wait, delayOnly.Wait, "%s: a profile that only delays (its delay is the RTT's)", mode)

		narrow, err := replay.Run(tr, mode, replay.Config{RTT: rtt, Link: &slow})
		require.NoError(t, err)
		require.Greater(t, narrow.Wait[rtt], plain.Wait[rtt], "%s: 20 KB/s", mode)

		ps := latency.Profiles["wifi-powersave"]
		asleep, err := replay.Run(tr, mode, replay.Config{RTT: rtt, Link: &ps})
		require.NoError(t, err)
		require.Greater(t, asleep.Wait[rtt], plain.Wait[rtt], "%s: power save", mode)
		again, err := replay.Run(tr, mode, replay.Config{RTT: rtt, Link: &ps})
		require.NoError(t, err)
		require.Equal(t, asleep.Wait, again.Wait, "%s: the same draws every run", mode)
	}
}
