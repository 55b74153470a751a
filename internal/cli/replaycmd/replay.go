// Package replaycmd is scache replay: it replays captured JDWP sessions
// through the Speculator, in a discrete-event simulation of the debugger,
// the link and the VM, and reports what speculation would have saved.
//
//	scache replay [-json] [-mode scache|split|classic|off|all] [-rtt 20ms] [-rtts 1ms,5ms,20ms,50ms]
//	              [-link usb|wifi|wifi-powersave|cloud|ocean] [-timeline FILE.json] [-chart FILE.svg|.png] [FILE ...]
//
// FILE is a trace written by scache proxy's -journal, or a pcap/pcapng
// capture of JDWP over TCP. With no FILE, it replays the traces embedded in
// the binary: real JDI debugging sessions against a real HotSpot 17 VM.
// go run ./benchmarks/replay runs the same.
//
// The modes: off forwards only, classic is the original jdwp-scache policy,
// scache one proxy next to the debugger, split a split proxy's two halves
// (the near one next to the VM, the far one next to the debugger, the link
// between them).
//
// -link shapes the simulated link (the one proxy's to the VM, or the one
// between the halves) as a live link with that profile: its bandwidth,
// jitter and Wi-Fi power save at every RTT, and its round trip as the
// default -rtt.
//
// Every reply the simulated debugger receives is checked against the
// recorded one; a difference (a stale cache entry on real traffic) is an
// error, and the exit status is non-zero.
package replaycmd

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/jdwpscache/scache/internal/cli/command"
	"github.com/jdwpscache/scache/internal/journal"
	"github.com/jdwpscache/scache/internal/latency"
	"github.com/jdwpscache/scache/internal/replay"
)

var about = command.Command{
	Name:  "replay",
	Args:  "[FILE ...]",
	Short: "replay captured debugging sessions and report what speculation saves",
	Summary: "Replay replays captured JDWP sessions (a -journal trace of scache proxy, or a pcap/pcapng capture) through scache " +
		"at simulated round-trip times and reports what speculation saves; with no FILE, the embedded traces.",
	Example: "scache replay -mode all -link wifi session.pcapng",
}

// Command is scache replay.
var Command = about.With(Run, Check)

// Check parses and checks args as Run does.
func Check(args []string) error {
	_, err := parseFlags(args, io.Discard)
	return err
}

type options struct {
	json        bool
	modes       []replay.Mode
	rtt         time.Duration
	rtts        []time.Duration
	timeline    string
	chart       string
	wide        bool
	stops       bool
	captureRTT  time.Duration
	debuggerRTT time.Duration
	service     time.Duration
	link        *latency.Profile
	files       []string
}

// parseFlags parses args into options and checks them; flag errors and -h
// go to stderr.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := about.NewFlagSet(stderr)
	asJSON := fs.Bool("json", false, "print one JSON object per trace and mode instead of tables")
	mode := fs.String("mode", "all", "scache, split, classic, off or all")
	rtt := fs.Duration("rtt", 20*time.Millisecond, "the round-trip time of the counts, the JSON wait fields and the timeline")
	rtts := fs.String("rtts", "1ms,5ms,20ms,50ms", "round-trip times to estimate the debugger's wait at")
	timeline := fs.String("timeline", "", "write the timeline of the replay at -rtt (the last mode of -mode) as Chrome trace-event JSON")
	chart := fs.String("chart", "", "draw the simulated wait against RTT for each mode, summed over the traces replayed (.svg or .png)")
	wide := fs.Bool("wide", false, "print every column of the tables (214 columns) instead of what fits 100")
	stops := fs.Bool("stops", false, "list each stop under its trace's table: where (Class.method:line), the thread, and its round trips in each mode")
	captureRTT := fs.Duration("capture-rtt", 0, "the round trip between where the traces were captured and the VM "+
		"(a journal recorded by a proxy over a slow link); 0: estimated from each trace, -1ns: next to the VM")
	debuggerRTT := fs.Duration("debugger-rtt", 0, "the round trip between where the traces were captured and the "+
		"debugger (a capture made next to the VM); 0: estimated from each trace, -1ns: next to the debugger")
	service := fs.Duration("service", 0, "added to the VM's service time of every command: a slow VM (an Android "+
		"device's runtime serves a command in 0.5 to 2 ms) in place of the recorded one")
	linkName := fs.String("link", "", "shape the simulated link as a profile ("+profileNames()+"): its bandwidth, jitter and power save at every RTT, its round trip the default -rtt")
	if err := command.Parse(fs, args); err != nil {
		return options{}, err
	}
	if *service < 0 {
		return options{}, fmt.Errorf("-service %v: a service time is not negative", *service)
	}
	o := options{json: *asJSON, rtt: *rtt, timeline: *timeline, chart: *chart, wide: *wide, stops: *stops, captureRTT: *captureRTT, debuggerRTT: *debuggerRTT,
		service: *service, files: fs.Args()}
	if *linkName != "" {
		p, ok := latency.Profiles[*linkName]
		if !ok {
			return o, fmt.Errorf("-link: no profile %q (%s)", *linkName, profileNames())
		}
		o.link = &p
		rttSet := false
		fs.Visit(func(f *flag.Flag) { rttSet = rttSet || f.Name == "rtt" })
		if !rttSet {
			o.rtt = 2 * p.Delay
		}
	}
	if *mode == "all" {
		o.modes = replay.Modes
	} else {
		m := replay.Mode(*mode)
		if _, err := m.Options(); err != nil {
			return o, err
		}
		o.modes = []replay.Mode{m}
	}
	for _, s := range strings.Split(*rtts, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil {
			return o, fmt.Errorf("-rtts: %w", err)
		}
		o.rtts = append(o.rtts, d)
	}
	return o, nil
}

// config returns the replay's configuration the flags set (every mode's,
// and off's as the baseline).
func (o options) config() replay.Config {
	return replay.Config{RTT: o.rtt, RTTs: o.rtts, CaptureRTT: o.captureRTT, DebuggerRTT: o.debuggerRTT, Service: o.service, Link: o.link}
}

// describeLink says what a link profile does besides its round trip.
func describeLink(p latency.Profile) string {
	d := p.Name + ": round trip " + (2 * p.Delay).String()
	if p.Bandwidth > 0 {
		d += fmt.Sprintf(", %.1f MB/s each way", float64(p.Bandwidth)/(1<<20))
	}
	if p.Jitter > 0 {
		d += ", jitter up to " + p.Jitter.String()
	}
	if p.PowerSave.Every > 0 {
		d += ", the device's Wi-Fi in power save (beacons every " + p.PowerSave.Every.String() + ")"
	}
	return d
}

// profileNames lists the link profiles, sorted.
func profileNames() string {
	names := make([]string, 0, len(latency.Profiles))
	for name := range latency.Profiles {
		names = append(names, name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// Run replays the traces args name (or the embedded ones) and prints the
// tables, or JSON with -json, to stdout. Its status is 1 if a file could
// not be read or a replay failed (the others are still replayed).
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return about.Refuse(stderr, err)
	}
	status := 0
	var traces []replay.Trace
	if len(o.files) == 0 {
		traces, err = replay.Embedded()
		if err != nil {
			fmt.Fprintln(stderr, "scache replay: the embedded trace:", err)
			return 1
		}
		if !o.json {
			fmt.Fprintf(stdout, "Replaying the embedded traces (real JDI sessions against HotSpot 17);\npass trace or capture files to replay your own, -wide for every column.\n\n")
		}
	}
	if o.link != nil && !o.json {
		fmt.Fprintf(stdout, "The link: %s.\n\n", describeLink(*o.link))
	}
	for _, f := range o.files {
		ts, err := replay.LoadFile(f)
		if err != nil {
			fmt.Fprintf(stderr, "scache replay: %s: %v\n", f, err)
			status = 1
			if len(ts) == 0 {
				continue
			}
		}
		traces = append(traces, ts...)
	}

	var all []replay.Result
	var timeline []journal.Record
	enc := json.NewEncoder(stdout)
	for _, tr := range traces {
		if len(tr.Records) > 100_000 {
			fmt.Fprintf(stderr, "scache replay: %s: %d packets...\n", tr.Name, len(tr.Records))
		}
		var results []replay.Result
		for _, m := range o.modes {
			cfg := o.config()
			if o.timeline != "" {
				timeline = timeline[:0]
				cfg.Journal = func(r journal.Record) { timeline = append(timeline, r) }
			}
			res, err := replay.Run(tr, m, cfg)
			if err != nil {
				fmt.Fprintf(stderr, "scache replay: %s (%s): %v\n", tr.Name, m, err)
				status = 1
				if res.DebuggerCmds == 0 {
					continue
				}
			}
			results = append(results, res)
		}
		baseline := baselineOf(results)
		if baseline == nil {
			// Speedups are against off: replay it too, without printing it.
			if res, err := replay.Run(tr, replay.ModeOff, o.config()); err == nil {
				baseline = &res
			}
		}
		if o.json {
			for _, r := range results {
				_ = enc.Encode(jsonResult(r, baseline, o.rtt))
			}
		} else {
			printTable(stdout, tr, results, baseline, o)
		}
		all = append(all, results...)
	}
	if o.timeline != "" {
		if err := journal.WriteTimelineFile(o.timeline, timeline); err != nil {
			fmt.Fprintf(stderr, "scache replay: -timeline: %v\n", err)
			status = 1
		}
	}
	if o.chart != "" {
		if err := drawChart(o.chart, all, o.rtts, len(traces)); err != nil {
			fmt.Fprintf(stderr, "scache replay: -chart: %v\n", err)
			status = 1
		} else {
			fmt.Fprintf(stderr, "scache replay: wrote the chart of the wait against RTT, summed over %d traces, to %s\n", len(traces), o.chart)
		}
	}
	return status
}

// baselineOf returns the off mode's result, if it was replayed.
func baselineOf(results []replay.Result) *replay.Result {
	for i := range results {
		if results[i].Mode == replay.ModeOff {
			return &results[i]
		}
	}
	return nil
}
