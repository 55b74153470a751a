package benchmarks

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/jdwp"
)

// clientWorkloads are the driver workloads of BenchmarkClients: what an IDE
// does at a stop, and the variants that change what it asks (the relay
// workloads without jdb's, which is a client of its own).
func clientWorkloads() []struct {
	name string
	opts jvmtest.DriverOptions
} {
	var ws []struct {
		name string
		opts jvmtest.DriverOptions
	}
	for _, w := range relayWorkloads {
		if !w.opts.Jdb {
			ws = append(ws, w)
		}
	}
	return ws
}

// BenchmarkClients runs every workload with each debugger users run (the
// JDK's JDI and Eclipse's, one command at a time and in parallel waves of
// 8: jvmtest.Clients) at RTT 20 ms, off, classic, through one proxy and
// through a split proxy, and reports each mode's ratio to the client's own
// off, the round trips waited per stop (scache_rt and split_rt medians
// from compareModes), and logs the debugger's commands forwarded at stops,
// by name, in scache and split. Run it with -benchtime 1x; select a client
// with -bench 'Clients/eclipse-parallel'.
func BenchmarkClients(b *testing.B) {
	for _, c := range jvmtest.Clients {
		b.Run(c.Name, func(b *testing.B) {
			for _, w := range clientWorkloads() {
				b.Run(w.name, func(b *testing.B) {
					opts := c.With(w.opts)
					forwarded := map[string]map[jdwp.Command]int{}
					total := compareModesForwarded(b, 10*time.Millisecond, []string{"off", "classic", "scache", "split"}, opts, forwarded)
					for _, mode := range []string{"classic", "scache", "split"} {
						b.ReportMetric(float64(total[mode])/float64(total["off"]), mode+"/off")
					}
					for _, mode := range []string{"scache", "split"} {
						b.Logf("%s %s %s: forwarded at stops: %s", c.Name, w.name, mode, byCount(forwarded[mode]))
					}
				})
			}
		})
	}
}

// byCount lists the commands of counts, most first.
func byCount(counts map[jdwp.Command]int) string {
	cmds := make([]jdwp.Command, 0, len(counts))
	for c := range counts {
		cmds = append(cmds, c)
	}
	sort.Slice(cmds, func(i, j int) bool {
		return cmp.Or(counts[cmds[j]]-counts[cmds[i]], strings.Compare(cmds[i].String(), cmds[j].String())) < 0
	})
	parts := make([]string, 0, len(cmds))
	for _, c := range cmds {
		parts = append(parts, fmt.Sprintf("%s %d", c, counts[c]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(slices.Clip(parts), ", ")
}

// slowVMClientWorkloads are the workloads BenchmarkSlowVMClients runs with
// each client: steps, a threads view under suspend-thread breakpoints,
// renderers, threads taking turns under EVENT_THREAD, an expanded this.
var slowVMClientWorkloads = map[string]bool{"steps": true, "threadsview": true, "renderers": true, "eventthreads": true, "extras": true}

// BenchmarkSlowVMClients runs five workloads with each client users run
// (jvmtest.Clients) against a VM that serves one command per 500 µs over
// a link of RTT 2 ms, off, through one proxy and split, and reports each
// ratio to the client's own off, and the five together (ms_ sums, logged).
// Run it with -benchtime 1x.
func BenchmarkSlowVMClients(b *testing.B) {
	for _, c := range jvmtest.Clients {
		b.Run(c.Name, func(b *testing.B) {
			sum := map[string]time.Duration{}
			for _, w := range clientWorkloads() {
				if !slowVMClientWorkloads[w.name] {
					continue
				}
				b.Run(w.name, func(b *testing.B) {
					total := compareModesServed(b, time.Millisecond, 500*time.Microsecond, []string{"off", "scache", "split"}, c.With(w.opts))
					for mode, d := range total {
						sum[mode] += d
					}
					b.ReportMetric(float64(total["scache"])/float64(total["off"]), "scache/off")
					b.ReportMetric(float64(total["split"])/float64(total["off"]), "split/off")
				})
			}
			b.Logf("%s, five workloads together: scache/off %.2f, split/off %.2f", c.Name,
				float64(sum["scache"])/float64(sum["off"]), float64(sum["split"])/float64(sum["off"]))
		})
	}
}
