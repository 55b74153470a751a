package replaycmd

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jdwpscache/scache/internal/replay"
)

// result is the JSON form of one trace replayed in one mode.
type result struct {
	Trace         string `json:"trace"`
	Mode          string `json:"mode"`
	Packets       int    `json:"packets"`
	DebuggerCmds  int    `json:"debugger_cmds"`
	KeyableCmds   int    `json:"keyable_cmds"`
	Hits          int64  `json:"hits"`
	Belayed       int64  `json:"belayed"`
	Misses        int64  `json:"misses"`
	SyntheticCmds int64  `json:"synthetic_cmds"`
	SyntheticUsed int64  `json:"synthetic_used"`
	// UnansweredSynthetic: synthetic commands the trace could not answer
	// (never counted as used; the speculation they would start is not simulated).
	UnansweredSynthetic int64   `json:"unanswered_synthetic"`
	Wasted              int64   `json:"wasted"`
	BytesSpeculated     int64   `json:"bytes_speculated"`
	RoundTripsSaved     int64   `json:"round_trips_saved"`
	HitRate             float64 `json:"hit_rate"`
	RTTMs               float64 `json:"rtt_ms"`
	// CaptureRTTMs: the round trip between the capture point and the VM,
	// taken out of the trace's timing (given with -capture-rtt, or estimated).
	CaptureRTTMs float64 `json:"capture_rtt_ms"`
	// DebuggerRTTMs: the round trip between the capture point and the
	// debugger, taken out of its think times (-debugger-rtt, or estimated).
	DebuggerRTTMs float64 `json:"debugger_rtt_ms"`
	WaitMsOff     float64 `json:"wait_ms_off"`
	WaitMs        float64 `json:"wait_ms"`
	Speedup       float64 `json:"speedup"`
	// StopRoundTrips: the median round trips of inspection on the
	// debugger's critical path per stop (event requests and commands that
	// change the debuggee aside), in the later half of the session (at rtt_ms).
	StopRoundTrips float64 `json:"stop_round_trips"`
	Mismatches     int     `json:"mismatches"`
	// PushedBytes (split mode): what the near half sent the far half beyond
	// the VM's own packets; PushedUsedBytes: the replies among them that
	// answered the debugger.
	PushedBytes     int64 `json:"pushed_bytes,omitempty"`
	PushedUsedBytes int64 `json:"pushed_used_bytes,omitempty"`
	// WaitBy: where wait_ms went, by command (see replay.Result.WaitBy).
	WaitBy map[string]commandWait `json:"wait_by_command"`
	// Stops: each stop, named in source terms, and its inspection round
	// trips at rtt_ms.
	Stops []stop `json:"stops"`
}

// stop is the JSON form of a replay.Stop.
type stop struct {
	Where      string  `json:"where"`
	Thread     string  `json:"thread,omitempty"`
	Step       bool    `json:"step"`
	RoundTrips float64 `json:"round_trips"`
}

// commandWait is the JSON form of a replay.CommandWait.
type commandWait struct {
	WaitMs   float64 `json:"wait_ms"`
	Commands int     `json:"commands"`
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func jsonResult(r replay.Result, off *replay.Result, rtt time.Duration) result {
	out := result{Trace: r.Trace, Mode: string(r.Mode), Packets: r.Packets, DebuggerCmds: r.DebuggerCmds,
		KeyableCmds: r.KeyableCmds, Hits: r.Hits, Belayed: r.Belayed, Misses: r.Misses, SyntheticCmds: r.SyntheticCmds,
		SyntheticUsed: r.SyntheticUsed, UnansweredSynthetic: r.UnansweredSynthetic, Wasted: r.Wasted, BytesSpeculated: r.BytesSpeculated, RoundTripsSaved: r.RoundTripsSaved, HitRate: r.HitRate,
		RTTMs: ms(rtt), CaptureRTTMs: ms(r.CaptureRTT), DebuggerRTTMs: ms(r.DebuggerRTT), WaitMs: ms(r.Wait[rtt]), StopRoundTrips: r.SteadyStopRoundTrips, Mismatches: len(r.Mismatches),
		PushedBytes: r.PushedBytes, PushedUsedBytes: r.PushedUsedBytes}
	out.WaitBy = map[string]commandWait{}
	for cmd, w := range r.WaitBy {
		out.WaitBy[cmd.String()] = commandWait{WaitMs: ms(w.Wait), Commands: w.Commands}
	}
	out.Stops = []stop{}
	for _, st := range r.Stops {
		out.Stops = append(out.Stops, stop{Where: st.Where, Thread: st.Thread, Step: st.Step, RoundTrips: st.RoundTrips})
	}
	if off != nil {
		out.WaitMsOff = ms(off.Wait[rtt])
		out.Speedup = speedup(off.Wait[rtt], r.Wait[rtt])
	}
	return out
}

func speedup(off, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(off) / float64(d)
}

func printTable(w io.Writer, tr replay.Trace, results []replay.Result, off *replay.Result, o options) {
	fmt.Fprintf(w, "%s\n", tr.Name)
	if len(results) > 0 && results[0].CaptureRTT > 0 {
		fmt.Fprintf(w, "captured %v (round trip) away from the VM: taken out of its service times\n",
			results[0].CaptureRTT.Round(10*time.Microsecond))
	}
	if len(results) > 0 && results[0].DebuggerRTT > 0 {
		fmt.Fprintf(w, "captured %v (round trip) away from the debugger: taken out of its think times\n",
			results[0].DebuggerRTT.Round(10*time.Microsecond))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(tableHeader(o), "\t")+"\t")
	for _, r := range results {
		fmt.Fprintln(tw, strings.Join(tableRow(r, off, o), "\t")+"\t")
	}
	tw.Flush()
	for _, r := range results {
		if r.Mode != replay.ModeOff && len(r.WaitBy) > 0 {
			var parts []string
			for _, cmd := range r.TopWaits(3) {
				w := r.WaitBy[cmd]
				parts = append(parts, fmt.Sprintf("%s %.0fms (%d)", cmd, ms(w.Wait), w.Commands))
			}
			note(w, o, fmt.Sprintf("%s: the wait@%v goes to %s", r.Mode, o.rtt, strings.Join(parts, ", ")))
		}
		if r.PushedBytes > 0 {
			note(w, o, fmt.Sprintf("%s: the near half pushed %.1f KiB to the far half, %.0f%% of it answered the debugger",
				r.Mode, float64(r.PushedBytes)/1024, 100*float64(r.PushedUsedBytes)/float64(r.PushedBytes)))
		}
		if r.UnansweredSynthetic > 0 {
			note(w, o, fmt.Sprintf("%s: %d synthetic commands the trace could not answer: not counted as used, and the "+
				"speculation their replies would have started is not simulated", r.Mode, r.UnansweredSynthetic))
		}
	}
	if o.stops {
		printStops(w, results, o)
	}
	fmt.Fprintln(w)
}

// printStops lists each stop of a trace, named in source terms, with its
// inspection round trips in each mode replayed.
func printStops(w io.Writer, results []replay.Result, o options) {
	if len(results) == 0 {
		return
	}
	fmt.Fprintf(w, "round trips of inspection at each stop, at %v:\n", o.rtt)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := []string{"stop", "at", "thread", "by"}
	for _, r := range results {
		header = append(header, string(r.Mode))
	}
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for i, st := range results[0].Stops {
		by := "breakpoint"
		if st.Step {
			by = "step"
		}
		row := []string{fmt.Sprint(i + 1), st.Where, st.Thread, by}
		for _, r := range results {
			rts := "-"
			if i < len(r.Stops) {
				rts = fmt.Sprintf("%.1f", r.Stops[i].RoundTrips)
			}
			row = append(row, rts)
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
}

// narrowWidth is how wide the output is without -wide: a terminal's 100
// columns.
const narrowWidth = 100

// tableHeader names the table's columns: without -wide, those that say
// what speculation saved; with it, every count.
func tableHeader(o options) []string {
	if !o.wide {
		return []string{"mode", "cmds", "hits", "belayed", "synthetic", "used", "hit rate",
			"wait@" + o.rtt.String(), "speedup", "RTTs/stop"}
	}
	header := []string{"mode", "packets", "debugger cmds", "keyable", "hits", "belayed", "misses", "synthetic",
		"used", "unanswered", "wasted", "KiB speculated", "round trips saved", "hit rate"}
	for _, d := range o.rtts {
		header = append(header, "wait@"+d.String())
	}
	return append(header, "speedup@"+o.rtt.String(), "RTTs/stop")
}

// tableRow is r's row under tableHeader(o).
func tableRow(r replay.Result, off *replay.Result, o options) []string {
	speed := "-"
	if off != nil {
		speed = fmt.Sprintf("%.2fx", speedup(off.Wait[o.rtt], r.Wait[o.rtt]))
	}
	hitRate, stopRTTs := fmt.Sprintf("%.1f%%", 100*r.HitRate), fmt.Sprintf("%.1f", r.SteadyStopRoundTrips)
	if !o.wide {
		return []string{string(r.Mode), fmt.Sprint(r.DebuggerCmds), fmt.Sprint(r.Hits), fmt.Sprint(r.Belayed),
			fmt.Sprint(r.SyntheticCmds), fmt.Sprint(r.SyntheticUsed), hitRate, fmt.Sprintf("%.0fms", ms(r.Wait[o.rtt])), speed, stopRTTs}
	}
	row := []string{string(r.Mode), fmt.Sprint(r.Packets), fmt.Sprint(r.DebuggerCmds), fmt.Sprint(r.KeyableCmds),
		fmt.Sprint(r.Hits), fmt.Sprint(r.Belayed), fmt.Sprint(r.Misses), fmt.Sprint(r.SyntheticCmds),
		fmt.Sprint(r.SyntheticUsed), fmt.Sprint(r.UnansweredSynthetic), fmt.Sprint(r.Wasted),
		fmt.Sprintf("%.1f", float64(r.BytesSpeculated)/1024), fmt.Sprint(r.RoundTripsSaved), hitRate}
	for _, d := range o.rtts {
		row = append(row, fmt.Sprintf("%.0fms", ms(r.Wait[d])))
	}
	return append(row, speed, stopRTTs)
}

// note prints a line of explanation under a table: without -wide, wrapped
// at narrowWidth columns, the lines after the first indented.
func note(w io.Writer, o options, text string) {
	if o.wide {
		fmt.Fprintln(w, text)
		return
	}
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > narrowWidth {
			fmt.Fprintln(w, line)
			line = "   "
		}
		if line != "" && line != "   " {
			line += " "
		}
		line += word
	}
	if line != "" {
		fmt.Fprintln(w, line)
	}
}
