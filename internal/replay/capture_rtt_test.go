package replay_test

import (
	"sort"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/journal"
	"github.com/jdwpscache/scache/internal/latency"
	"github.com/jdwpscache/scache/internal/replay"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A trace captured at the debugger's end of a slow link (as a proxy's
// journal over the user's own link is) predicts what the same session
// captured next to the VM predicts: the link's round trip is estimated from
// the trace and taken out of the VM's service times. Such a capture is made
// here by the replay itself: the session, replayed without speculation over
// a 20 ms link, journaled where the proxy sits, next to the debugger.
func TestCaptureOverALinkPredictsLikeOneNextToTheVM(t *testing.T) {
	traces, err := replay.Embedded()
	require.NoError(t, err)
	const link = 20 * time.Millisecond
	for _, tr := range traces {
		t.Run(tr.Name, func(t *testing.T) {
			var far []journal.Record
			_, err := replay.Run(tr, replay.ModeOff, replay.Config{RTT: link, Journal: func(r journal.Record) { far = append(far, r) }})
			require.NoError(t, err)
			overLink := replay.Trace{Name: tr.Name + " over a link", Records: far}
			for _, mode := range replay.Modes {
				near, err := replay.Run(tr, mode, replay.Config{RTT: link})
				require.NoError(t, err)
				got, err := replay.Run(overLink, mode, replay.Config{RTT: link})
				require.NoError(t, err, "%s", mode)
				require.InDelta(t, link.Seconds(), got.CaptureRTT.Seconds(), 0.001, "estimated round trip (%s)", mode)
				ratio := float64(got.Wait[link]) / float64(near.Wait[link])
				require.InDelta(t, 1, ratio, 0.10, "%s: predicted %v from the far capture, %v from the near one", mode, got.Wait[link], near.Wait[link])
				naive, err := replay.Run(overLink, mode, replay.Config{RTT: link, CaptureRTT: -1})
				require.NoError(t, err)
				require.Greater(t, float64(naive.Wait[link]), 1.3*float64(near.Wait[link]),
					"without taking the link out, the prediction is far off (%s)", mode)
				t.Logf("%s: far/near prediction %.3f (without estimation %.3f), estimated round trip %v",
					mode, ratio, float64(naive.Wait[link])/float64(near.Wait[link]), got.CaptureRTT)
				require.Zero(t, got.DebuggerRTT, "captured next to the debugger")

				// The same session captured next to the VM: commands half a
				// round trip later, packets from the VM half a round trip earlier.
				var atVM []journal.Record
				for _, r := range far {
					if r.Direction == scache.Upstream {
						r.Time = r.Time.Add(link / 2)
					} else {
						r.Time = r.Time.Add(-link / 2)
					}
					atVM = append(atVM, r)
				}
				sort.SliceStable(atVM, func(i, j int) bool { return atVM[i].Time.Before(atVM[j].Time) })
				nearVM, err := replay.Run(replay.Trace{Name: tr.Name + " at the VM", Records: atVM}, mode, replay.Config{RTT: link})
				require.NoError(t, err, "%s", mode)
				require.InDelta(t, link.Seconds(), nearVM.DebuggerRTT.Seconds(), 0.001, "the debugger's round trip (%s)", mode)
				require.InDelta(t, 1, float64(nearVM.Wait[link])/float64(near.Wait[link]), 0.10, "%s from the capture at the VM", mode)
			}
		})
	}
}

// A capture made at the debugger's end of a jittery link (Wi-Fi) predicts
// what one made next to the VM predicts: the link's variation is not taken
// for the VM's work. Left in, each speculated command would cost the
// simulated VM a jitter's worth of time, and the profile's own jitter would
// come on top of the organic commands' (before takeOutTheLinksVariation,
// from such captures the predictions were 1.19 to 1.23 times the near
// ones' without speculation, 1.9 to 2.3 through scache and 2.4 to 3.9
// split; live on Wi-Fi, 1.7 to 3.3 times the live wait through scache and
// split). Now they are within 10% without speculation and 35% through
// scache. Split stays within 45%: from a far capture of threads running
// under EVENT_THREAD, the events of a burst come later after the resume
// than they left the VM (each waits behind the one before on a link that
// keeps their order), and split, which waits least, feels that most.
// scache feels it too on four threads taking turns (1.31; 1.12 to 1.23
// on the others): since the frames of each new thread's first breakpoint
// are predicted, that stop's reads of the other threads' status and name
// are what is left of it near the VM (1.5 round trips), and from the far
// capture the later events pin them out (5 round trips).
func TestACaptureOverAJitteryLinkPredictsLikeOneNextToTheVM(t *testing.T) {
	traces, err := replay.Embedded()
	require.NoError(t, err)
	wifi := latency.Profiles["wifi"]
	rtt := 2 * wifi.Delay
	for _, tr := range traces {
		t.Run(tr.Name, func(t *testing.T) {
			var far []journal.Record
			_, err := replay.Run(tr, replay.ModeOff, replay.Config{RTT: rtt, Link: &wifi, Journal: func(r journal.Record) { far = append(far, r) }})
			require.NoError(t, err)
			overLink := replay.Trace{Name: tr.Name + " over wifi", Records: far}
			for _, mode := range replay.Modes {
				near, err := replay.Run(tr, mode, replay.Config{RTT: rtt, Link: &wifi})
				require.NoError(t, err)
				got, err := replay.Run(overLink, mode, replay.Config{RTT: rtt, Link: &wifi})
				require.NoError(t, err, "%s", mode)
				require.Positive(t, got.CaptureRTT, "a link is seen in the capture")
				ratio := float64(got.Wait[rtt]) / float64(near.Wait[rtt])
				t.Logf("%s: far/near prediction %.3f", mode, ratio)
				tolerance := map[replay.Mode]float64{replay.ModeScache: 0.35, replay.ModeSplit: 0.45}[mode]
				if tolerance == 0 {
					tolerance = 0.10
				}
				assert.InDelta(t, 1, ratio, tolerance, "%s: predicted %v from the far capture, %v from the near one", mode, got.Wait[rtt], near.Wait[rtt])
			}
		})
	}
}
