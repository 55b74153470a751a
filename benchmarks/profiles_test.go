package benchmarks

import (
	"testing"

	"github.com/jdwpscache/scache/internal/latency"
)

// linkOptions are the options of the slow link the running benchmark's
// sessions cross (BenchmarkProfiles sets a link profile); none: a fixed
// delay each way, unlimited bandwidth.
var linkOptions []latency.Option

// profileWorkloads are the workloads BenchmarkProfiles runs on each link:
// a breakpoint with steps, an IDE's renderers, jdb, and several threads
// taking turns under EVENT_THREAD.
var profileWorkloads = map[string]bool{"steps": true, "renderers": true, "jdb": true, "eventthreads": true}

// BenchmarkProfiles runs workloads off, through one proxy and through a
// split proxy over each named link profile (latency.Profiles: usb, wifi,
// wifi-powersave, cloud, ocean: bandwidth, jitter and a phone's power save
// besides the delay), and reports each ratio to off. Run it with
// -benchtime 1x; select a profile with -bench 'Profiles/wifi-powersave'.
func BenchmarkProfiles(b *testing.B) {
	for _, name := range []string{"usb", "wifi", "wifi-powersave", "cloud", "ocean"} {
		p := latency.Profiles[name]
		b.Run(name, func(b *testing.B) {
			linkOptions = []latency.Option{latency.WithProfile(p, 1)}
			defer func() { linkOptions = nil }()
			for _, w := range relayWorkloads {
				if !profileWorkloads[w.name] {
					continue
				}
				b.Run(w.name, func(b *testing.B) {
					total := compareModesServed(b, p.Delay, 0, []string{"off", "scache", "split"}, w.opts)
					b.ReportMetric(float64(total["scache"])/float64(total["off"]), "scache/off")
					b.ReportMetric(float64(total["split"])/float64(total["off"]), "split/off")
				})
			}
		})
	}
}
