package transport_test

import (
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/internal/latency"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/transport"
	"github.com/stretchr/testify/require"
)

// startSplit runs a near half in front of vmAddr and a far half in front of
// it, with a latency link of the given one-way delay between them (none
// when 0), until the test ends. It returns the far half's address and each
// half's session stats.
func startSplit(t testing.TB, vmAddr, mode string, delay time.Duration) (addr string, near, far <-chan scache.Stats) {
	nearAddr, nearStats := startHalf(t, transport.NearHalf, vmAddr, mode)
	if delay > 0 {
		link, err := latency.Listen(nearAddr, delay)
		require.NoError(t, err)
		t.Cleanup(func() { link.Close() })
		nearAddr = link.Addr
	}
	farAddr, farStats := startHalf(t, transport.FarHalf, nearAddr, mode)
	return farAddr, nearStats, farStats
}

// startHalf runs one half of a split proxy that dials target, until the
// test ends.
func startHalf(t testing.TB, half transport.Half, target, mode string) (string, <-chan scache.Stats) {
	opts := append(append([]scache.Option(nil), modeOptions[mode]...), transport.WithSplit(half))
	return serveProxyFor(t, target, "the "+half.String()+" half ("+mode+")", opts...)
}

// TestTranscriptThroughSplitEqualsDirect debugs real HotSpot VMs with a real
// JDI debugger directly and through a far and a near half with a latency
// link between them, and compares the transcripts.
func TestTranscriptThroughSplitEqualsDirect(t *testing.T) {
	for name, opts := range transcriptWorkloads {
		t.Run(name, func(t *testing.T) {
			vm := startDebuggee(t, opts)
			direct, _ := jvmtest.RunDriver(t, vm.Addr, opts)
			require.Regexp(t, "disposed after|The application exited", direct, "the direct session ended as it should")
			for _, mode := range []string{"off", "scache"} {
				vm := startDebuggee(t, opts)
				addr, nearStats, farStats := startSplit(t, vm.Addr, mode, 2*time.Millisecond)
				got, _ := jvmtest.RunDriver(t, addr, opts)
				require.Equal(t, direct, got, "transcript through the split proxy (%s)", mode)
				near, far := <-nearStats, <-farStats
				if mode == "off" {
					require.Zero(t, near.Synthetic)
					require.Zero(t, near.PushedBytes)
				} else {
					require.Positive(t, near.Synthetic, "the near half speculated")
					require.Positive(t, near.PushedBytes, "the near half pushed")
					require.Positive(t, far.Hits+far.Belayed, "the far half answered from what was pushed")
					require.Positive(t, near.PushedUsed, "the near half heard of what was used")
					if !opts.Together { // together: no steps
						require.GreaterOrEqual(t, far.AnsweredAhead, int64(2*3*(opts.Stops-1)),
							"the far half answered the step requests and their Clears ahead")
					}
					require.Zero(t, far.AheadContradicted, "and the VM agreed")
					require.Zero(t, near.AnsweredAhead, "the near half answers nothing ahead")
				}
			}
		})
	}
}
