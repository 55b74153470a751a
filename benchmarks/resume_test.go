package benchmarks

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/internal/latency"
	"github.com/jdwpscache/scache/internal/nettest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/transport"
	"github.com/stretchr/testify/require"
)

// BenchmarkResume measures how soon a split session goes on once its
// link comes back: the link between the halves (20 ms round trip, plain
// and keyed) is reset and restored, and the debugger's next command (one
// that crosses to the VM: the halves pass everything through) is timed
// from the restore to its reply. It reports that time (back_ms), the same
// command's time on a link that stayed up (rtt_ms), and their ratio.
// Target: within one round trip plus the channel's own handshake.
func BenchmarkResume(b *testing.B) {
	jvmtest.Require(b)
	const delay = 10 * time.Millisecond // each way
	for _, keyed := range []bool{false, true} {
		name := "plain"
		if keyed {
			name = "keyed"
		}
		b.Run(name, func(b *testing.B) {
			vm := jvmtest.Start(b, "Debuggee", "3")
			var both []scache.Option // mode off: the halves pass everything through
			if keyed {
				key, err := transport.GenerateTunnelKey(filepath.Join(b.TempDir(), "tunnel.key"))
				require.NoError(b, err)
				both = append(both, transport.WithTunnelKey(key))
			}
			nearStats, farStats := make(chan scache.Stats, 1), make(chan scache.Stats, 1)
			near := serveProxy(b, vm.Addr, "off", nearStats, append([]scache.Option{transport.WithSplit(transport.NearHalf)}, both...)...)
			link, err := latency.Listen(near, delay)
			require.NoError(b, err)
			defer link.Close()
			cutter := nettest.NewCutter(b, link.Addr)
			far := serveProxy(b, cutter.Addr, "off", farStats, append([]scache.Option{transport.WithSplit(transport.FarHalf)}, both...)...)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			dbg, err := jdwp.Dial(ctx, far)
			require.NoError(b, err)
			call := func() time.Duration {
				start := time.Now()
				require.NoError(b, dbg.Call(ctx, &jdwp.VMVersionCommand{}, nil))
				return time.Since(start)
			}
			call()
			var up, back time.Duration
			b.ResetTimer()
			for range b.N {
				up += call()
				cutter.Reset()
				cutter.Restore()
				back += call()
			}
			b.StopTimer()
			dbg.Close()
			<-nearStats
			st := <-farStats
			require.Equal(b, b.N, st.TunnelResumes, "the far half resumed once per cut")
			b.ReportMetric(float64(back.Microseconds())/1000/float64(b.N), "back_ms")
			b.ReportMetric(float64(up.Microseconds())/1000/float64(b.N), "rtt_ms")
			b.ReportMetric(float64(back)/float64(up), "back/rtt")
		})
	}
}

// BenchmarkResumeCost runs every relay workload through a split proxy on a
// 20 ms link, with resuming (the default) and without (splitnoresume), and
// reports their ratio: what keeping, counting and acknowledging the
// tunnel's bytes costs a session whose link never drops (about 1).
func BenchmarkResumeCost(b *testing.B) {
	jvmtest.Require(b)
	var all [2]time.Duration
	for _, w := range relayWorkloads {
		b.Run(w.name, func(b *testing.B) {
			var split, plain time.Duration
			for range b.N {
				split += workloadStops(b, 10*time.Millisecond, 0, "split", w.opts, nil).Elapsed
				plain += workloadStops(b, 10*time.Millisecond, 0, "splitnoresume", w.opts, nil).Elapsed
			}
			all[0] += split
			all[1] += plain
			b.ReportMetric(float64(split)/float64(plain), "split/splitnoresume")
		})
	}
	b.Logf("all workloads: split/splitnoresume %.3f (%v / %v)", float64(all[0])/float64(all[1]), all[0].Round(time.Millisecond), all[1].Round(time.Millisecond))
}
