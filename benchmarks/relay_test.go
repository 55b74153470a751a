package benchmarks

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/journal"
	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/internal/latency"
	"github.com/jdwpscache/scache/internal/replay"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/stoplog"
	"github.com/jdwpscache/scache/scache/transport"
	"github.com/stretchr/testify/require"
)

// relayStops is how many breakpoint stops each benchmarked session makes:
// the first is cold (nothing is known of the program), the second learns
// from the first, and a breakpoint in a loop is hit many times more; the
// per-stop medians are of all of them.
const relayStops = 5

// workloadSession runs the JDI driver with workload o against a fresh VM
// behind a latency link of the given one-way delay, through a proxy in mode
// (or directly for "direct"), and returns the driver's wall time for the
// session and its transcript. journal, if not nil, gets the journal of the
// proxy next to the debugger.
func workloadSession(b *testing.B, delay time.Duration, mode string, o jvmtest.DriverOptions, journal func(scache.JournalEntry)) (time.Duration, string, scache.Stats) {
	s := workloadStops(b, delay, 0, mode, o, journal)
	return s.Elapsed, s.Transcript, s.Stats
}

// liveSession is what one live session gave: what the driver printed and
// measured, the stats of the proxy (split: both halves'), and the stops as
// the debugger lived them.
type liveSession struct {
	jvmtest.DriverRun
	Stats scache.Stats
	Stops []stoplog.Record
}

// workloadStops is workloadSession, with the stops as the debugger lived
// them (a stoplog.Log on the journal of the proxy next to it; none direct),
// the attach time, and a VM that serves one command per service
// (latency.WithService; 0: HotSpot as it is).
func workloadStops(b *testing.B, delay, service time.Duration, mode string, o jvmtest.DriverOptions, journal func(scache.JournalEntry)) liveSession {
	vm := jvmtest.StartFor(b, o)
	vmAddr := vm.Addr
	if service > 0 {
		slow, err := latency.Listen(vm.Addr, 0, latency.WithService(service))
		require.NoError(b, err)
		defer slow.Close()
		vmAddr = slow.Addr
	}
	stops := &stoplog.Log{}
	record := func(e scache.JournalEntry) {
		stops.Add(e)
		if journal != nil {
			journal(e)
		}
	}
	if mode == "split" || mode == "splitoff" || mode == "splitraw" || mode == "splitnoresume" {
		var both []scache.Option
		switch mode {
		case "splitoff": // the tunnel alone: both halves pass everything through
			both = append(both, scache.PassThrough())
		case "splitraw": // the tunnel uncompressed
			both = append(both, transport.WithTunnelCompression(false))
		case "splitnoresume": // a lost link ends the session (as before resuming)
			both = append(both, transport.WithResume(0))
		}
		run, st := splitSessionRun(b, vmAddr, delay, o, record, both...)
		return liveSession{DriverRun: run, Stats: st, Stops: stops.Stops()}
	}
	var extra []scache.Option
	if mode != "direct" {
		extra = append(extra, scache.WithJournal(record))
	}
	stats := make(chan scache.Stats, 1)
	link, err := latency.Listen(vmAddr, delay, linkOptions...)
	require.NoError(b, err)
	defer link.Close()
	addr := link.Addr
	if mode != "direct" {
		addr = serveProxy(b, link.Addr, mode, stats, extra...)
	}
	run := jvmtest.RunDriverTimed(b, addr, o)
	var st scache.Stats
	if mode != "direct" {
		st = <-stats
	}
	return liveSession{DriverRun: run, Stats: st, Stops: stops.Stops()}
}

// splitSession runs the JDI driver with workload o through a split proxy:
// the near half next to the VM at vmAddr, the latency link between the
// halves, the far half next to the debugger. Its stats are the near half's
// (what was speculated, pushed and used) with the far half's hits and
// belayed commands. journal gets the far half's journal.
func splitSession(b *testing.B, vmAddr string, delay time.Duration, o jvmtest.DriverOptions, journal func(scache.JournalEntry),
	both ...scache.Option) (time.Duration, string, scache.Stats) {
	run, st := splitSessionRun(b, vmAddr, delay, o, journal, both...)
	return run.Elapsed, run.Transcript, st
}

// splitSessionRun is splitSession with all the driver measured.
func splitSessionRun(b *testing.B, vmAddr string, delay time.Duration, o jvmtest.DriverOptions, journal func(scache.JournalEntry),
	both ...scache.Option) (jvmtest.DriverRun, scache.Stats) {
	nearStats, farStats := make(chan scache.Stats, 1), make(chan scache.Stats, 1)
	near := serveProxy(b, vmAddr, "scache", nearStats, append([]scache.Option{transport.WithSplit(transport.NearHalf)}, both...)...)
	link, err := latency.Listen(near, delay, linkOptions...)
	require.NoError(b, err)
	defer link.Close()
	far := serveProxy(b, link.Addr, "scache", farStats, append([]scache.Option{transport.WithSplit(transport.FarHalf), scache.WithJournal(journal)}, both...)...)
	run := jvmtest.RunDriverTimed(b, far, o)
	return run, replay.SplitStats(<-nearStats, <-farStats)
}

// sessionOptions are options every proxy of the running benchmark gets
// (BenchmarkBigAttach's attach memory, shared by the sessions that follow
// each other as one proxy's sessions share theirs).
var sessionOptions []scache.Option

// serveProxy serves a proxy in mode (with sessionOptions and extra
// options) in front of target until the benchmark ends; each session's
// stats go to stats.
func serveProxy(b *testing.B, target, mode string, stats chan<- scache.Stats, extra ...scache.Option) string {
	var strict []scache.Option
	if mode == "linearizable" {
		// scache keeping the strict promise (scache.Linearizable).
		mode, strict = "scache", []scache.Option{scache.WithConsistency(scache.Linearizable)}
	}
	opts, err := replay.Mode(mode).Options()
	require.NoError(b, err)
	opts = append(opts, strict...)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(b, err)
	opts = append(append(append(opts, sessionOptions...), extra...), scache.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		transport.WithSessionEnded(func(st scache.Stats, err error) {
			if err != nil {
				b.Errorf("session through the %s proxy: %v", mode, err)
			}
			stats <- st
		}))
	p, err := transport.NewProxy(func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", target)
	}, opts...)
	require.NoError(b, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, ln) }()
	b.Cleanup(func() {
		cancel()
		<-done
	})
	return ln.Addr().String()
}

// compareModes runs a workload b.N times in each mode (the first is the
// reference: every other transcript must equal its), reports each mode's
// mean wall time and the share of scache's synthetic commands that answered
// the debugger, and returns the totals.
func compareModes(b *testing.B, delay time.Duration, modes []string, o jvmtest.DriverOptions) map[string]time.Duration {
	return compareModesServed(b, delay, 0, modes, o)
}

// compareModesServed is compareModes with a VM that serves one command per
// service.
func compareModesServed(b *testing.B, delay, service time.Duration, modes []string, o jvmtest.DriverOptions) map[string]time.Duration {
	return compareModesAll(b, delay, service, modes, o, nil)
}

// compareModesForwarded is compareModes that also sums, per mode, the
// debugger's commands forwarded at stops, by command, into forwarded.
func compareModesForwarded(b *testing.B, delay time.Duration, modes []string, o jvmtest.DriverOptions,
	forwarded map[string]map[jdwp.Command]int) map[string]time.Duration {
	return compareModesAll(b, delay, 0, modes, o, forwarded)
}

func compareModesAll(b *testing.B, delay, service time.Duration, modes []string, o jvmtest.DriverOptions,
	forwarded map[string]map[jdwp.Command]int) map[string]time.Duration {
	total := map[string]time.Duration{}
	var sent, used, pushed, pushedUsed int64
	roundTrips, breakpointRoundTrips := map[string][]float64{}, map[string][]float64{}
	breakpointInspection := map[string][]float64{} // without the waiting on SetValues and the like
	breakpointBeyond := map[string][]float64{}     // inspection, without the waiting on invocations
	invocations := 0
	attach := map[string]time.Duration{}     // from attach until the breakpoint was set
	waitBehind := map[string]time.Duration{} // the longest wait of a debugger command behind speculation
	var estimates [2]float64                 // scache's estimates of the link's round trip and the VM's service, µs
	for i := 0; i < b.N; i++ {
		var want string
		for _, mode := range modes {
			live := workloadStops(b, delay, service, mode, o, nil)
			d, transcript, st := live.Elapsed, live.Transcript, live.Stats
			attach[mode] += live.Attach
			for _, s := range live.Stops {
				if forwarded != nil {
					if forwarded[mode] == nil {
						forwarded[mode] = map[jdwp.Command]int{}
					}
					for c, n := range s.Forwarded {
						forwarded[mode][c] += n
					}
				}
				roundTrips[mode] = append(roundTrips[mode], s.RoundTrips)
				if !s.Step {
					breakpointRoundTrips[mode] = append(breakpointRoundTrips[mode], s.RoundTrips)
					breakpointInspection[mode] = append(breakpointInspection[mode], s.InspectionRoundTrips)
					breakpointBeyond[mode] = append(breakpointBeyond[mode], s.BeyondInvocationsRoundTrips)
				}
				if mode == modes[0] {
					invocations += s.Invocations
				}
			}
			total[mode] += d
			if st.WaitBehindSpeculation > waitBehind[mode] {
				waitBehind[mode] = st.WaitBehindSpeculation
			}
			if mode == "scache" {
				estimates[0] += float64(st.RoundTrip.Microseconds())
				estimates[1] += float64(st.ServiceTime.Microseconds())
			}
			if mode == "scache" || mode == "split" {
				sent, used = sent+st.Synthetic, used+st.SyntheticUsed
			}
			if mode == "split" {
				pushed, pushedUsed = pushed+st.PushedBytes, pushedUsed+st.PushedUsedBytes
			}
			if mode == modes[0] {
				want = transcript
			} else {
				require.Equal(b, want, transcript, "transcript through %s", mode)
			}
		}
	}
	for mode, d := range total {
		b.ReportMetric(float64(d.Milliseconds())/float64(b.N), "ms_"+mode)
	}
	for mode, d := range attach {
		if d > 0 {
			b.ReportMetric(float64(d.Microseconds())/1000/float64(b.N), "attach_ms_"+mode)
		}
	}
	if sent > 0 {
		b.ReportMetric(float64(used)/float64(sent), "used/speculated")
	}
	for mode, w := range waitBehind {
		b.ReportMetric(float64(w.Microseconds())/1000, "wait_behind_ms_"+mode)
	}
	if invocations > 0 {
		b.ReportMetric(float64(invocations)/float64(b.N), "invocations/session")
	}
	if slices.Contains(modes, "scache") {
		b.ReportMetric(estimates[0]/float64(b.N), "rtt_est_us_scache")
		b.ReportMetric(estimates[1]/float64(b.N), "service_est_us_scache")
	}
	for _, m := range []struct {
		rts  map[string][]float64
		unit string
	}{{roundTrips, "rt/stop_median_"}, {breakpointRoundTrips, "rt/breakpoint_median_"}, {breakpointInspection, "rt_inspect/breakpoint_median_"},
		{breakpointBeyond, "rt_beyond_invoke/breakpoint_median_"}} {
		for mode, rts := range m.rts {
			if mode != "off" && len(rts) > 0 {
				sort.Float64s(rts)
				b.ReportMetric(rts[len(rts)/2], m.unit+mode)
			}
		}
	}
	if pushed > 0 {
		b.ReportMetric(float64(pushed)/float64(b.N*o.Stops), "pushedB/stop")
		b.ReportMetric(float64(pushedUsed)/float64(pushed), "pushed_used_bytes/pushed")
	}
	return total
}

// BenchmarkRelayLatency measures the JDI driver's wall time for a session of
// relayStops stops, directly and through the proxy in each mode (split: the
// delay between the halves of a split proxy), at one-way
// delays of 0, 2.5, 10 and 25 ms (RTT 0, 5, 20, 50 ms), all in one run, and
// reports the ratios. Run it with -benchtime 1x: each iteration starts VMs.
func BenchmarkRelayLatency(b *testing.B) {
	for _, delay := range []time.Duration{0, 2500 * time.Microsecond, 10 * time.Millisecond, 25 * time.Millisecond} {
		b.Run(fmt.Sprintf("rtt=%v", 2*delay), func(b *testing.B) {
			total := compareModes(b, delay, []string{"direct", "off", "classic", "scache", "split"}, jvmtest.DriverOptions{Stops: relayStops})
			b.ReportMetric(float64(total["scache"])/float64(total["off"]), "scache/off")
			b.ReportMetric(float64(total["split"])/float64(total["off"]), "split/off")
			b.ReportMetric(float64(total["scache"])/float64(total["classic"]), "scache/classic")
		})
	}
}

// A relayWorkload is a named JDI driver workload.
type relayWorkload struct {
	name string
	opts jvmtest.DriverOptions
}

// relayWorkloads are the driver workloads of BenchmarkRelayWorkloads.
var relayWorkloads = []relayWorkload{
	{"steps", jvmtest.DriverOptions{Stops: relayStops}},
	{"setvalue", jvmtest.DriverOptions{Stops: relayStops, SetValue: true}},
	{"eventthread", jvmtest.DriverOptions{Stops: relayStops, EventThread: true}},
	// An IDE's variables view at suspend-thread breakpoints (Eclipse's and
	// VS Code's default): this expanded, its arrays among them, while the
	// other threads run through the stop.
	{"eventextras", jvmtest.DriverOptions{Stops: relayStops, EventThread: true, Extras: true, Arrays: true}},
	{"hotswap", jvmtest.DriverOptions{Stops: relayStops, HotSwap: true}},
	{"extras", jvmtest.DriverOptions{Stops: relayStops, Extras: true}},
	// Another debugger, which asks in its own way: the JDK's jdb, typed at.
	{"jdb", jvmtest.DriverOptions{Stops: relayStops, Jdb: true}},
	// jdb with a user's inspection at every breakpoint: print (toString
	// invoked), dump of this and of a map, the threads.
	{"jdbprint", jvmtest.DriverOptions{Stops: relayStops, Jdb: true, JdbInspect: true}},
	// jdb with catch and watch: each round also stops where a field is
	// written (three times) and where an exception is thrown.
	{"jdbevents", jvmtest.DriverOptions{Stops: relayStops, Jdb: true, Events: true}},
	// Several app threads taking turns: each stop in another thread.
	{"threads", jvmtest.DriverOptions{Stops: relayStops, Threads: 4}},
	// The same under suspend policy EVENT_THREAD: the threads that wait
	// their turn run through each stop, and the threads view shows them.
	{"eventthreads", jvmtest.DriverOptions{Stops: relayStops, Threads: 4, EventThread: true}},
	// The threads at once, under suspend-thread breakpoints: several
	// suspended at their own stops while others run, the stopped one
	// resumed alone, as an IDE's threads view sees them.
	{"threadsview", jvmtest.DriverOptions{Stops: 8, Threads: 4, Together: true}},
	// The same with what the views do at each stop, as a user works
	// through stops queued by workers that hit again at once: three
	// workers, each stop read first in first out, this's arrays (an
	// element edited), a local set, the suspend count; each worker's
	// second and fourth stops suspend a running thread from the threads
	// view, its third pauses the VM.
	{"workers", jvmtest.DriverOptions{Stops: 12, Threads: 3, Together: true, Arrays: true, SetValue: true, SuspendOther: true, Pause: true}},
	// An IDE's renderers: toString() and size() invoked at every stop and step.
	{"renderers", jvmtest.DriverOptions{Stops: relayStops, Renderers: true}},
	// A user walking up the stack: this and the variables of the six
	// frames below the top at every breakpoint stop.
	{"deep", jvmtest.DriverOptions{Stops: relayStops, Deep: 6}},
	// The other kinds of breakpoint an IDE sets: a watchpoint, an
	// exception breakpoint and method exits stop the program three times
	// each (the exception once a round), in steps too.
	{"events", jvmtest.DriverOptions{Stops: relayStops, Events: true}},
	// A conditional breakpoint as an IDE evaluates it: the top frame's n
	// read at every hit, two hits in three resumed at once.
	{"conditional", jvmtest.DriverOptions{Stops: relayStops, Conditional: true}},
	// An IDE's Drop Frame at every breakpoint stop: the caller shown again
	// after StackFrame.PopFrames, the call entered again by a step into.
	{"dropframe", jvmtest.DriverOptions{Stops: relayStops, DropFrame: true}},
	// An IDE's Pause pressed at every breakpoint stop while the other
	// threads run (suspend-thread breakpoints): the whole VM suspended,
	// the threads view refreshed, two threads' stacks read, the VM resumed.
	{"pause", jvmtest.DriverOptions{Stops: relayStops, EventThread: true, Pause: true}},
	// A user suspending a running thread from an IDE's threads view at
	// every breakpoint stop (suspend-thread breakpoints): the worker
	// suspended, its stack, suspension and depth read, then resumed.
	{"suspendother", jvmtest.DriverOptions{Stops: relayStops, EventThread: true, SuspendOther: true}},
	// An IDE's variables view with this's arrays expanded at every stop
	// and step: an int[] field's elements, and a list's raw view down to
	// the elements of its backing array.
	{"arrays", jvmtest.DriverOptions{Stops: relayStops, Arrays: true}},
}

// BenchmarkRelayWorkloads measures the JDI driver's wall time for each
// workload at RTT 20 ms, through the proxy in each mode, all in one run,
// and reports each mode's ratio to off. Run it with -benchtime 1x.
func BenchmarkRelayWorkloads(b *testing.B) {
	for _, w := range relayWorkloads {
		b.Run(w.name, func(b *testing.B) {
			total := compareModes(b, 10*time.Millisecond, []string{"off", "classic", "scache"}, w.opts)
			b.ReportMetric(float64(total["classic"])/float64(total["off"]), "classic/off")
			b.ReportMetric(float64(total["scache"])/float64(total["off"]), "scache/off")
		})
	}
}

// BenchmarkConsistency measures the workloads whose threads run through
// the stops (suspend policy EVENT_THREAD) at RTT 20 ms through one proxy
// keeping each promise about state that moves: Sequential (scache, the
// default) and Linearizable, and reports each ratio to off. Run it with
// -benchtime 1x or 2x.
func BenchmarkConsistency(b *testing.B) {
	for _, w := range relayWorkloads {
		if !w.opts.EventThread && !w.opts.Together {
			continue
		}
		b.Run(w.name, func(b *testing.B) {
			total := compareModes(b, 10*time.Millisecond, []string{"off", "scache", "linearizable"}, w.opts)
			b.ReportMetric(float64(total["scache"])/float64(total["off"]), "scache/off")
			b.ReportMetric(float64(total["linearizable"])/float64(total["off"]), "linearizable/off")
		})
	}
}

// BenchmarkSlowVM runs every workload against a VM that serves one
// command per service time (latency.WithService in front of HotSpot, as an
// Android device's runtime serves them), over links of RTT 0, 2 and 20 ms,
// off, through one proxy and through a split proxy, and reports each ratio
// to off and the proxy's estimates of the link and the VM (Stats.RoundTrip,
// Stats.ServiceTime, in microseconds). Run it with -benchtime 1x; select a
// cell with -bench 'SlowVM/rtt=2ms/service=500µs'.
func BenchmarkSlowVM(b *testing.B) {
	for _, delay := range []time.Duration{0, time.Millisecond, 10 * time.Millisecond} {
		for _, service := range []time.Duration{0, 500 * time.Microsecond, 2 * time.Millisecond} {
			b.Run(fmt.Sprintf("rtt=%v/service=%v", 2*delay, service), func(b *testing.B) {
				splitWorkloads(b, delay, service)
			})
		}
	}
}

// BenchmarkSplitWorkloads measures the JDI driver's wall time for each
// workload with 20 ms RTT between the debugger's end and the VM's: through
// one proxy next to the debugger (off, scache) and through a split proxy
// whose halves the link separates. It reports each ratio to off, the bytes
// the near half pushed per stop and the share of them that answered the
// debugger. Run it with -benchtime 1x or 2x.
func BenchmarkSplitWorkloads(b *testing.B) { splitWorkloads(b, 10*time.Millisecond, 0) }

// BenchmarkSplitKeyed measures what the keyed tunnel's TLS costs: each
// workload through a split proxy at 20 ms RTT, with and without a tunnel
// key, sessions taking turns; it reports keyed/plain wall time (1: free).
func BenchmarkSplitKeyed(b *testing.B) {
	key, err := transport.GenerateTunnelKey(filepath.Join(b.TempDir(), "tunnel.key"))
	require.NoError(b, err)
	var sumPlain, sumKeyed time.Duration
	for _, w := range relayWorkloads {
		b.Run(w.name, func(b *testing.B) {
			var plain, keyed time.Duration
			for range b.N {
				for _, withKey := range []bool{false, true} {
					vm := jvmtest.Start(b, "Debuggee", w.opts.DebuggeeArgs(w.opts.Stops)...)
					var both []scache.Option
					if withKey {
						both = []scache.Option{transport.WithTunnelKey(key)}
					}
					d, _, _ := splitSession(b, vm.Addr, 10*time.Millisecond, w.opts, func(scache.JournalEntry) {}, both...)
					if withKey {
						keyed += d
					} else {
						plain += d
					}
				}
			}
			sumPlain += plain
			sumKeyed += keyed
			b.ReportMetric(float64(keyed)/float64(plain), "keyed/plain")
			b.ReportMetric(float64(plain.Milliseconds())/float64(b.N), "ms_plain")
			b.ReportMetric(float64(keyed.Milliseconds())/float64(b.N), "ms_keyed")
		})
	}
	b.Logf("all workloads: keyed/plain %.3f (%v against %v)", float64(sumKeyed)/float64(sumPlain), sumKeyed, sumPlain)
}

// splitWorkloads runs every workload off, through one proxy and through a
// split proxy over a link of the given one-way delay, against a VM that
// serves one command per service (0: HotSpot as it is), and reports each
// ratio to off; with no delay, also split against a split proxy that
// passes everything through (splitoff: the tunnel's own cost). (A parent benchmark's own metrics are not printed: sum the
// workloads' ms_ metrics for a whole cell.)
func splitWorkloads(b *testing.B, delay, service time.Duration) {
	modes := []string{"off", "scache", "split"}
	if delay == 0 {
		// With no link between the halves, the tunnel's own hop shows:
		// split against a split proxy that only passes through.
		modes = append(modes, "splitoff")
	}
	for _, w := range relayWorkloads {
		b.Run(w.name, func(b *testing.B) {
			total := compareModesServed(b, delay, service, modes, w.opts)
			b.ReportMetric(float64(total["scache"])/float64(total["off"]), "scache/off")
			b.ReportMetric(float64(total["split"])/float64(total["off"]), "split/off")
			if total["splitoff"] > 0 {
				b.ReportMetric(float64(total["split"])/float64(total["splitoff"]), "split/splitoff")
			}
		})
	}
}

// BenchmarkReplayPredictsSlowVM checks the replay's slow VM (-service,
// replay.Config.Service) against live sessions with one: it captures each
// workload next to HotSpot as it is (off), replays the capture with the
// service time added at the link's RTT, runs the workload live in each
// mode against HotSpot behind latency.WithService over that link, and
// reports, per mode, the replay's predicted wait against the wait measured
// live (1 is a perfect prediction) and the predicted and live ratios of
// scache to off. Run it with -benchtime 1x.
func BenchmarkReplayPredictsSlowVM(b *testing.B) {
	for _, c := range []struct{ delay, service time.Duration }{
		{0, 2 * time.Millisecond}, {time.Millisecond, 500 * time.Microsecond}, {10 * time.Millisecond, 2 * time.Millisecond},
	} {
		b.Run(fmt.Sprintf("rtt=%v/service=%v", 2*c.delay, c.service), func(b *testing.B) {
			for _, w := range relayWorkloads {
				b.Run(w.name, func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						tr := replay.Trace{Name: w.name, Records: recordNearVM(b, 0, w.opts)}
						predicted, live := map[replay.Mode]time.Duration{}, map[replay.Mode]time.Duration{}
						for _, mode := range []replay.Mode{replay.ModeOff, replay.ModeScache, replay.ModeSplit} {
							live[mode] = debuggerWait(sessionRecords(b, c.delay, c.service, string(mode), w.opts))
							res, err := replay.Run(tr, mode, replay.Config{RTT: 2 * c.delay, Service: c.service, CaptureRTT: -1})
							require.NoError(b, err, "%s", mode)
							predicted[mode] = res.Wait[2*c.delay]
							b.ReportMetric(float64(predicted[mode])/float64(live[mode]), "predicted/live_wait_"+string(mode))
						}
						b.ReportMetric(float64(predicted[replay.ModeScache])/float64(predicted[replay.ModeOff]), "predicted_scache/off")
						b.ReportMetric(float64(live[replay.ModeScache])/float64(live[replay.ModeOff]), "live_scache/off")
					}
				})
			}
		})
	}
}

// BenchmarkReplayPredictsLive checks the replay against live sessions on
// each workload, in every mode (split: the far half's journal, next to the
// debugger, with the link between the halves): it records the session
// through the proxy in off mode over
// the 20 ms link (the journal is taken at the debugger's end, as a user's
// own capture is), runs it live in each mode, and replays the capture (its
// round trip estimated from the trace). It reports, per mode, the replay's
// predicted wait against the wait measured live (the time some debugger
// command awaited its reply, from each live session's journal; 1 is a
// perfect prediction), and the estimated capture round trip.
func BenchmarkReplayPredictsLive(b *testing.B) {
	const delay = 10 * time.Millisecond
	for _, w := range relayWorkloads {
		b.Run(w.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var capture []journal.Record
				liveWait := map[string]time.Duration{}
				for _, mode := range replay.Modes {
					records := sessionRecords(b, delay, 0, string(mode), w.opts)
					liveWait[string(mode)] = debuggerWait(records)
					if mode == "off" {
						capture = records
					}
				}
				captures := map[string][]journal.Record{"far": capture, "near": recordNearVM(b, delay, w.opts)}
				for side, records := range captures {
					tr := replay.Trace{Name: w.name, Records: records}
					for _, mode := range replay.Modes {
						res, err := replay.Run(tr, mode, replay.Config{RTT: 2 * delay})
						require.NoError(b, err, "%s", mode)
						b.ReportMetric(float64(res.Wait[2*delay])/float64(liveWait[string(mode)]),
							"predicted/live_wait_"+side+"_"+string(mode))
						b.ReportMetric(float64(res.CaptureRTT.Microseconds())/1000, "capture_rtt_ms_"+side)
					}
				}
			}
		})
	}
}

// sessionRecords runs workload o live as workloadStops does and returns
// the journal of the proxy next to the debugger (none direct) as trace
// records.
func sessionRecords(b *testing.B, delay, service time.Duration, mode string, o jvmtest.DriverOptions) []journal.Record {
	var mu sync.Mutex
	var records []journal.Record
	workloadStops(b, delay, service, mode, o, func(e scache.JournalEntry) {
		mu.Lock()
		defer mu.Unlock()
		records = append(records, journal.FromEntry(e))
	})
	mu.Lock()
	defer mu.Unlock()
	return records
}

// recordNearVM records the workload through a pass-through proxy next to
// the VM, the link between the debugger and the proxy, and returns the
// proxy's journal: a capture made next to the VM.
func recordNearVM(b *testing.B, delay time.Duration, o jvmtest.DriverOptions) []journal.Record {
	vm := jvmtest.Start(b, "Debuggee", o.DebuggeeArgs(o.Stops)...)
	var mu sync.Mutex
	var records []journal.Record
	ended := make(chan struct{}, 1)
	p, err := transport.NewProxy(func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", vm.Addr)
	}, scache.PassThrough(), scache.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		transport.WithSessionEnded(func(scache.Stats, error) { ended <- struct{}{} }),
		scache.WithJournal(func(e scache.JournalEntry) {
			mu.Lock()
			defer mu.Unlock()
			records = append(records, journal.FromEntry(e))
		}))
	require.NoError(b, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(b, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, ln) }()
	link, err := latency.Listen(ln.Addr().String(), delay, linkOptions...)
	require.NoError(b, err)
	jvmtest.RunDriver(b, link.Addr, o)
	<-ended
	link.Close()
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	return records
}

// debuggerWait measures, from a journal taken next to the debugger, how long
// some debugger command awaited its reply: the union of the intervals from
// each command to its reply (as the replay defines the wait).
func debuggerWait(records []journal.Record) time.Duration {
	asked := map[uint32]time.Time{}
	type span struct{ a, b time.Time }
	var spans []span
	for _, r := range records {
		h, err := jdwp.ParseHeader(r.Packet)
		if err != nil || scache.IsSyntheticID(h.ID) {
			continue
		}
		switch {
		case r.Direction == scache.Upstream && !h.IsReply():
			asked[h.ID] = r.Time
		case r.Direction == scache.Downstream && h.IsReply():
			if at, ok := asked[h.ID]; ok {
				spans = append(spans, span{at, r.Time})
				delete(asked, h.ID)
			}
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].a.Before(spans[j].a) })
	var total time.Duration
	var end time.Time
	for _, s := range spans {
		if s.b.After(end) {
			start := s.a
			if end.After(start) {
				start = end
			}
			total += s.b.Sub(start)
			end = s.b
		}
	}
	return total
}
