package replaycmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jdwpscache/scache/internal/cli/command"
	"github.com/jdwpscache/scache/internal/replay"
	"github.com/stretchr/testify/require"
)

// embeddedTraces returns how many traces the binary embeds.
func embeddedTraces(t *testing.T) int {
	traces, err := replay.Embedded()
	require.NoError(t, err)
	require.NotEmpty(t, traces)
	return len(traces)
}

func TestDefaultRunReplaysTheEmbeddedTrace(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 0, runReplay(nil, &out, &errOut), errOut.String())
	text := out.String()
	require.Contains(t, text, "embedded traces")
	for _, mode := range []string{"off", "classic", "scache", "split"} {
		require.Contains(t, text, mode)
	}
	require.Contains(t, text, "the near half pushed")
	require.Contains(t, text, "scache: the wait@20ms goes to ")
	require.Contains(t, text, "wait@20ms")
}

// The main job's output fits a terminal of 100 columns; -wide prints every
// column, wider than that.
func TestTheOutputFits100ColumnsUnlessWide(t *testing.T) {
	widest := func(args ...string) int {
		var out, errOut bytes.Buffer
		require.Equal(t, 0, runReplay(args, &out, &errOut), errOut.String())
		w := 0
		for _, line := range strings.Split(out.String(), "\n") {
			w = max(w, utf8.RuneCountInString(line))
		}
		return w
	}
	require.LessOrEqual(t, widest(), 100)
	require.LessOrEqual(t, widest("-stops"), 100)
	require.Greater(t, widest("-wide"), 100)
}

// -stops lists each stop in source terms under its trace's table, and the
// JSON names each stop the same way.
func TestStopsAreListedInSourceTerms(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 0, runReplay([]string{"-stops", "-mode", "scache"}, &out, &errOut), errOut.String())
	require.Contains(t, out.String(), "round trips of inspection at each stop, at 20ms:")
	require.Regexp(t, `(?m)^1 +Debuggee\.marker:\d+ +main +breakpoint +\d+\.\d$`, out.String())
	require.Regexp(t, `(?m)^2 +Debuggee\.marker:\d+ +main +step +\d+\.\d$`, out.String())

	out.Reset()
	require.Equal(t, 0, runReplay([]string{"-json", "-mode", "off"}, &out, &errOut), errOut.String())
	var r struct {
		Stops []struct {
			Where      string  `json:"where"`
			Thread     string  `json:"thread"`
			Step       bool    `json:"step"`
			RoundTrips float64 `json:"round_trips"`
		} `json:"stops"`
	}
	first, _, _ := strings.Cut(out.String(), "\n")
	require.NoError(t, json.Unmarshal([]byte(first), &r))
	require.NotEmpty(t, r.Stops)
	require.Regexp(t, `^Debuggee\.marker:\d+$`, r.Stops[0].Where)
	require.Equal(t, "main", r.Stops[0].Thread)
	require.False(t, r.Stops[0].Step)
	require.Greater(t, r.Stops[0].RoundTrips, 1.0, "forwarding everything, a breakpoint stop takes round trips")
}

// -h prints the usage, says what the command is for and gives an
// example, with status 0.
func TestHelpSaysWhatItIsFor(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 0, runReplay([]string{"-h"}, &out, &errOut))
	lines := strings.Split(errOut.String(), "\n")
	require.Equal(t, "usage: scache replay [flags] [FILE ...]", lines[0])
	require.Contains(t, errOut.String(), "\n\n"+command.Wrap(about.Summary)+"\n\n", "the summary follows the usage line")
	require.Contains(t, errOut.String(), "Example:\n  scache replay -mode all -link wifi session.pcapng\n")
}

func TestJSONFields(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 0, runReplay([]string{"-json", "-mode", "scache", "-rtt", "5ms"}, &out, &errOut), errOut.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, embeddedTraces(t), "one object per embedded trace")
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &m))
	for _, f := range []string{"trace", "mode", "packets", "debugger_cmds", "keyable_cmds", "hits", "belayed", "misses",
		"synthetic_cmds", "synthetic_used", "unanswered_synthetic", "wasted", "bytes_speculated", "round_trips_saved", "hit_rate",
		"wait_ms_off", "wait_ms", "speedup", "capture_rtt_ms", "debugger_rtt_ms",
		"stop_round_trips", "wait_by_command", "stops"} {
		require.Contains(t, m, f)
	}
	// The wait by command adds up to the wait.
	total := 0.0
	for _, w := range m["wait_by_command"].(map[string]any) {
		total += w.(map[string]any)["wait_ms"].(float64)
	}
	require.InDelta(t, m["wait_ms"].(float64), total, 0.01)
	require.Equal(t, "scache", m["mode"])
	require.Positive(t, m["wait_ms_off"])
	require.GreaterOrEqual(t, m["speedup"], 1.0)
}

func TestSplitJSONHasThePushedBytes(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 0, runReplay([]string{"-json", "-mode", "split"}, &out, &errOut), errOut.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, embeddedTraces(t), "one object per embedded trace")
	for _, l := range lines {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m))
		require.Equal(t, "split", m["mode"])
		require.Positive(t, m["pushed_bytes"])
		require.Positive(t, m["pushed_used_bytes"])
		require.Greater(t, m["speedup"], 1.0)
	}
}

func TestBadFilesAreReportedAndOthersStillReplayed(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.sctrace")
	require.NoError(t, os.WriteFile(bad, []byte("GET / HTTP/1.1\r\n\r\n"), 0o644))
	good := filepath.Join("..", "..", "replay", "traces", "jdi-hotspot17.sctrace")
	// A trace cut in its last record: reported, and replayed up to there.
	b, err := os.ReadFile(good)
	require.NoError(t, err)
	cut := filepath.Join(dir, "cut.sctrace")
	require.NoError(t, os.WriteFile(cut, b[:len(b)-5], 0o644))

	var out, errOut bytes.Buffer
	code := runReplay([]string{"-mode", "off", bad, filepath.Join(dir, "missing.pcap"), good, cut}, &out, &errOut)
	require.Equal(t, 1, code)
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	require.Len(t, lines, 3, errOut.String())
	require.Contains(t, lines[0], "bad.sctrace: journal: not a trace file")
	require.Contains(t, lines[1], "missing.pcap")
	require.Contains(t, lines[2], "cut.sctrace: journal: truncated last record")
	require.Contains(t, out.String(), "jdi-hotspot17.sctrace")
	require.Contains(t, out.String(), "cut.sctrace")
}

func TestChartAndTimeline(t *testing.T) {
	dir := t.TempDir()
	chart, timeline := filepath.Join(dir, "wait.svg"), filepath.Join(dir, "timeline.json")
	var out, errOut bytes.Buffer
	require.Equal(t, 0, runReplay([]string{"-chart", chart, "-timeline", timeline}, &out, &errOut), errOut.String())
	svg, err := os.ReadFile(chart)
	require.NoError(t, err)
	require.Contains(t, string(svg), "<svg")
	n := embeddedTraces(t)
	require.Contains(t, string(svg), fmt.Sprintf("summed over %d traces", n), "the chart says what it sums")
	require.Contains(t, errOut.String(), fmt.Sprintf("wrote the chart of the wait against RTT, summed over %d traces, to %s", n, chart),
		"-chart says where it wrote")
	tl, err := os.ReadFile(timeline)
	require.NoError(t, err)
	var doc struct{ TraceEvents []map[string]any }
	require.NoError(t, json.Unmarshal(tl, &doc))
	names := map[string]bool{}
	for _, e := range doc.TraceEvents {
		if n, ok := e["name"].(string); ok {
			names[n] = true
		}
	}
	require.True(t, names["ThreadReference.Frames"])
	require.True(t, names["Event.Composite"])
}

func TestBadFlags(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 2, runReplay([]string{"-mode", "fast"}, &out, &errOut))
	require.Contains(t, errOut.String(), "unknown mode")
}

// TestServiceSlowsTheVM: -service adds to every command's service time at
// the VM: off waits longer than without it, and a negative one is refused.
func TestServiceSlowsTheVM(t *testing.T) {
	wait := func(args ...string) float64 {
		var out, errOut bytes.Buffer
		require.Equal(t, 0, runReplay(append([]string{"-json", "-mode", "off", "-rtt", "0s"}, args...), &out, &errOut), errOut.String())
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(strings.SplitN(out.String(), "\n", 2)[0]), &m))
		return m["wait_ms"].(float64)
	}
	require.Greater(t, wait("-service", "2ms"), wait()+100, "about 250 commands, 2 ms each")
	var out, errOut bytes.Buffer
	require.Equal(t, 2, runReplay([]string{"-service", "-1ms"}, &out, &errOut))
	require.Contains(t, errOut.String(), "not negative")
}

// TestLinkProfiles: -link names a profile, says so above the tables, takes
// its round trip as the default -rtt (an -rtt given wins), and an unknown
// name is refused with the names there are.
func TestLinkProfiles(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 0, runReplay([]string{"-mode", "off", "-rtts", "5ms", "-link", "cloud"}, &out, &errOut), errOut.String())
	require.Contains(t, out.String(), "The link: cloud: round trip 72ms")
	require.Contains(t, out.String(), "wait@72ms")
	out.Reset()
	require.Equal(t, 0, runReplay([]string{"-mode", "off", "-rtts", "5ms", "-link", "wifi", "-rtt", "30ms"}, &out, &errOut), errOut.String())
	require.Contains(t, out.String(), "wait@30ms")
	out.Reset()
	require.Equal(t, 2, runReplay([]string{"-link", "dialup"}, &out, &errOut))
	require.Contains(t, errOut.String(), `no profile "dialup" (cloud, ocean, usb, wifi, wifi-powersave)`)
}

// runReplay runs scache replay with args.
func runReplay(args []string, stdout, stderr io.Writer) int {
	return Run(context.Background(), args, stdout, stderr)
}
