package benchmarks

import (
	"fmt"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/journal"
	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/internal/latency"
	"github.com/jdwpscache/scache/internal/replay"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
)

// linkOptions are the options of the slow link the running benchmark's
// sessions cross (BenchmarkProfiles sets a link profile); none: a fixed
// delay each way, unlimited bandwidth.
var linkOptions []latency.Option

// profileWorkloads are the workloads BenchmarkProfiles runs on each link:
// a breakpoint with steps, an IDE's renderers, jdb, and several threads
// taking turns under EVENT_THREAD.
var profileWorkloads = map[string]bool{"steps": true, "renderers": true, "jdb": true, "eventthreads": true}

// onProfiles runs fn as a sub-benchmark for each named link profile,
// with the benchmark's link shaped as it, for each workload of
// profileWorkloads (jdb too, if withJdb).
func onProfiles(b *testing.B, names []string, withJdb bool, fn func(b *testing.B, p latency.Profile, w relayWorkload)) {
	for _, name := range names {
		p := latency.Profiles[name]
		b.Run(name, func(b *testing.B) {
			linkOptions = []latency.Option{latency.WithProfile(p, 1)}
			defer func() { linkOptions = nil }()
			for _, w := range relayWorkloads {
				if !profileWorkloads[w.name] || w.opts.Jdb && !withJdb {
					continue
				}
				b.Run(w.name, func(b *testing.B) { fn(b, p, w) })
			}
		})
	}
}

// BenchmarkProfiles runs workloads off, through one proxy and through a
// split proxy over each named link profile (latency.Profiles: usb, wifi,
// wifi-powersave, cloud, ocean: bandwidth, jitter and a phone's power save
// besides the delay), and reports each ratio to off. Run it with
// -benchtime 1x; select a profile with -bench 'Profiles/wifi-powersave'.
func BenchmarkProfiles(b *testing.B) {
	onProfiles(b, []string{"usb", "wifi", "wifi-powersave", "cloud", "ocean"}, true, func(b *testing.B, p latency.Profile, w relayWorkload) {
		total := compareModesServed(b, p.Delay, 0, []string{"off", "scache", "split"}, w.opts)
		b.ReportMetric(float64(total["scache"])/float64(total["off"]), "scache/off")
		b.ReportMetric(float64(total["split"])/float64(total["off"]), "split/off")
	})
}

// BenchmarkSlowVMProfiles is the slow-VM grid over the link profiles: the
// workloads of BenchmarkProfiles against a VM that serves one command per
// 500 µs and per 2 ms (as a phone's runtime may), off, through one proxy
// and through a split proxy, on each profile, with each ratio to off. Run
// it with -benchtime 1x; select a cell with -bench
// 'SlowVMProfiles/service=500µs/wifi'.
func BenchmarkSlowVMProfiles(b *testing.B) {
	for _, service := range []time.Duration{500 * time.Microsecond, 2 * time.Millisecond} {
		b.Run(fmt.Sprintf("service=%v", service), func(b *testing.B) {
			onProfiles(b, []string{"usb", "wifi", "wifi-powersave", "cloud", "ocean"}, true, func(b *testing.B, p latency.Profile, w relayWorkload) {
				total := compareModesServed(b, p.Delay, service, []string{"off", "scache", "split"}, w.opts)
				b.ReportMetric(float64(total["scache"])/float64(total["off"]), "scache/off")
				b.ReportMetric(float64(total["split"])/float64(total["off"]), "split/off")
			})
		})
	}
}

// BenchmarkTunnelCompression runs workloads through a split proxy over the
// links whose bandwidth is the bound (wifi, wifi-powersave) and one where it
// is not (cloud), with the tunnel compressed (split, the default) and not
// (splitraw), and reports split/splitraw and the bytes the near half's frames
// took on the wire against what they hold.
func BenchmarkTunnelCompression(b *testing.B) {
	onProfiles(b, []string{"wifi", "wifi-powersave", "cloud"}, false, func(b *testing.B, p latency.Profile, w relayWorkload) {
		var wire, held int64
		total := map[string]time.Duration{}
		for range b.N {
			for _, mode := range []string{"split", "splitraw"} {
				s := workloadStops(b, p.Delay, 0, mode, w.opts, nil)
				total[mode] += s.Elapsed
				if mode == "split" {
					wire += s.Stats.TunnelWireBytes
					held += s.Stats.TunnelBytes
				}
			}
		}
		b.ReportMetric(float64(total["split"])/float64(total["splitraw"]), "split/splitraw")
		b.ReportMetric(float64(wire)/float64(held), "wire/frames")
		b.ReportMetric(float64(held)/float64(b.N), "frame_bytes/op")
	})
}

// BenchmarkReplayPredictsProfiles checks the replay's link profiles
// (replay.Config.Link, -link) against live sessions on the same profiled
// link (wifi, cloud and ocean; select one with -bench
// 'ReplayPredictsProfiles/wifi'): for each workload of profileWorkloads but jdb, it runs the session
// live off, through one proxy and through a split proxy, replays the off
// session's capture (taken next to the debugger, as a user's own often is) with
// the profile, and reports, per mode, the replay's predicted wait against
// the wait measured live (1 is a perfect prediction), and the same
// prediction without the profile (the delay alone), from that capture
// (far) and from one made next to the VM over the same link (near).
// Run it with -benchtime 1x.
func BenchmarkReplayPredictsProfiles(b *testing.B) {
	onProfiles(b, []string{"wifi", "cloud", "ocean"}, false, func(b *testing.B, p latency.Profile, w relayWorkload) {
		for range b.N {
			var capture []journal.Record
			live := map[replay.Mode]time.Duration{}
			for _, mode := range []replay.Mode{replay.ModeOff, replay.ModeScache, replay.ModeSplit} {
				records := sessionRecords(b, p.Delay, 0, string(mode), w.opts)
				live[mode] = debuggerWait(records)
				if mode == replay.ModeOff {
					capture = records
				}
			}
			captures := map[string][]journal.Record{"far": capture, "near": recordNearVM(b, p.Delay, w.opts)}
			for side, records := range captures {
				tr := replay.Trace{Name: w.name, Records: records}
				for mode, wait := range live {
					res, err := replay.Run(tr, mode, replay.Config{RTT: 2 * p.Delay, Link: &p})
					require.NoError(b, err, "%s", mode)
					b.ReportMetric(float64(res.Wait[2*p.Delay])/float64(wait), "predicted/live_wait_"+side+"_"+string(mode))
					plain, err := replay.Run(tr, mode, replay.Config{RTT: 2 * p.Delay})
					require.NoError(b, err, "%s", mode)
					b.ReportMetric(float64(plain.Wait[2*p.Delay])/float64(wait), "unshaped/live_wait_"+side+"_"+string(mode))
				}
			}
			for mode, wait := range live {
				b.ReportMetric(float64(wait.Milliseconds()), "live_wait_ms_"+string(mode))
			}
		}
	})
}

// bigAttach is an IDE attaching to a running app with an Android app's
// worth of classes loaded (20,000): every class listed
// (AllClassesWithGeneric), then breakpoints in 200 of them, each class's
// lines asked; then one stop at the marker.
var bigAttach = jvmtest.DriverOptions{Stops: 1, Classes: 20000, BigAttach: 200}

// BenchmarkBigAttach measures the big attach off, through one proxy and
// through a split proxy (compressed, and not: splitraw), on a 20 ms link
// and on the wifi and cloud profiles, and reports the attach times
// (attach_ms_MODE) and the ratios of the attach to off's. It then attaches
// again through one proxy and split, to another VM of the same program,
// with what the first attach left in the attach memory (as a Proxy's
// sessions share it): attach_ms_MODE_again. Run it with -benchtime 1x.
func BenchmarkBigAttach(b *testing.B) {
	for _, name := range []string{"20ms", "wifi", "cloud"} {
		b.Run(name, func(b *testing.B) {
			delay := 10 * time.Millisecond
			if p, ok := latency.Profiles[name]; ok {
				delay = p.Delay
				linkOptions = []latency.Option{latency.WithProfile(p, 1)}
				defer func() { linkOptions = nil }()
			}
			attach := map[string]time.Duration{}
			for range b.N {
				for _, mode := range []string{"off", "scache", "split", "splitraw"} {
					live := workloadStops(b, delay, 0, mode, bigAttach, nil)
					require.Contains(b, live.Transcript, "attached: breakpoints in 200 generated classes")
					attach[mode] += live.Attach
				}
				for _, mode := range []string{"scache", "split"} {
					memory := scache.NewAttachMemory()
					sessionOptions = []scache.Option{scache.WithAttachMemory(memory)}
					workloadStops(b, delay, 0, mode, bigAttach, nil)
					require.Equal(b, 200, memory.Len()-1, "the first attach listed the methods of its 200 classes and the marker's")
					live := workloadStops(b, delay, 0, mode, bigAttach, nil)
					sessionOptions = nil
					require.Contains(b, live.Transcript, "attached: breakpoints in 200 generated classes")
					attach[mode+"_again"] += live.Attach
				}
			}
			for mode, d := range attach {
				b.ReportMetric(float64(d.Microseconds())/1000/float64(b.N), "attach_ms_"+mode)
				b.ReportMetric(float64(d)/float64(attach["off"]), "attach_"+mode+"/off")
			}
		})
	}
}
