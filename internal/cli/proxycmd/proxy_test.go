package proxycmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jdwpscache/scache/ddm"
	"github.com/jdwpscache/scache/ddm/ddmtest"
	"github.com/jdwpscache/scache/internal/journal"
	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/stretchr/testify/require"
)

// TestProxyWithARealDebugger runs scache proxy against a real VM and the JDI
// driver and checks what it writes: the transcript equals a direct one, the
// stats JSON, the journal trace and the timeline.
func TestProxyWithARealDebugger(t *testing.T) {
	opts := jvmtest.DriverOptions{Stops: 2}
	direct, _ := jvmtest.RunDriver(t, jvmtest.Start(t, "Debuggee", "2").Addr, opts)

	vm := jvmtest.Start(t, "Debuggee", "2")
	dir := t.TempDir()
	statsFile, journalFile, timelineFile := filepath.Join(dir, "stats.json"), filepath.Join(dir, "session.sctrace"), filepath.Join(dir, "timeline.json")
	addr, _ := startProxy(t, "-vm", vm.Addr, "-mode", "scache", "-stats", statsFile, "-journal", journalFile, "-timeline", timelineFile, "-v")
	got, _ := jvmtest.RunDriver(t, addr, opts)
	require.Equal(t, direct, got)
	// The session's end writes the files.
	require.Eventually(t, func() bool { _, err := os.Stat(timelineFile); return err == nil }, 30*time.Second, time.Millisecond)

	var stats map[string]float64
	b, err := os.ReadFile(statsFile)
	require.NoError(t, err)
	var withStops struct {
		Stops []struct {
			Location             string  `json:"location"`
			Asked                int     `json:"asked"`
			Answered             int     `json:"answered"`
			RoundTrips           float64 `json:"round_trips"`
			InspectionRoundTrips float64 `json:"inspection_round_trips"`
		} `json:"stops"`
	}
	require.NoError(t, json.Unmarshal(b, &withStops))
	require.Len(t, withStops.Stops, 8, "2 breakpoints and 3 steps after each, in the stats")
	breakpoint := fmt.Sprintf("Debuggee.marker:%d", jvmtest.Line("Debuggee.java", "marker"))
	atBreakpoint := 0
	for _, s := range withStops.Stops {
		require.Positive(t, s.Asked, "%+v", s)
		require.Regexp(t, `^[\w.$]+\.[\w<>$]+:\d+$`, s.Location, "a stop in source terms, Class.method:line")
		if s.Location == breakpoint {
			atBreakpoint++
		}
		require.LessOrEqual(t, s.InspectionRoundTrips, s.RoundTrips, "%+v", s)
	}
	require.Equal(t, 2, atBreakpoint, "both breakpoint stops at %s", breakpoint)
	require.Contains(t, string(b), `"change_wait_ms"`)
	require.Contains(t, string(b), `"inspection_round_trips"`)
	stopless := string(b[:strings.Index(string(b), `"stops"`)]) + "\"end\": 0}"
	require.NoError(t, json.Unmarshal([]byte(stopless), &stats))
	for _, k := range []string{"packets_up", "packets_down", "synthetic", "hits", "belayed", "misses", "replaced", "wasted", "cache_bytes_at_end", "cache_peak_bytes",
		"round_trip_ms", "vm_service_ms", "bandwidth_bytes_per_s", "wait_behind_speculation_ms"} {
		require.Contains(t, stats, k)
	}
	require.Positive(t, stats["vm_service_ms"], "the VM's service time was measured")
	require.Positive(t, stats["cache_peak_bytes"], "the cache held replies during the session")
	require.Positive(t, stats["hits"]+stats["belayed"])

	f, err := os.Open(journalFile)
	require.NoError(t, err)
	defer f.Close()
	recs, err := journal.ReadAll(f)
	require.NoError(t, err)
	require.Greater(t, len(recs), int(stats["packets_up"]), "the journal holds synthetic traffic too")

	tl, err := os.ReadFile(timelineFile)
	require.NoError(t, err)
	require.Contains(t, string(tl), "ThreadReference.Frames")
	require.True(t, strings.Contains(string(tl), `"hit":true`) || strings.Contains(string(tl), `"belayed":true`),
		"the timeline marks commands answered from speculation")
}

func TestUnknownMode(t *testing.T) {
	code, _, errOut := runProxy("-mode", "turbo")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "scache proxy: -mode: ")
	require.Contains(t, errOut, "unknown mode")
}

// TestShareLetsTwoToolsAttach: with -share two DDM tools attach to one VM at once.
func TestShareLetsTwoToolsAttach(t *testing.T) {
	vm, err := ddmtest.Start(ddmtest.Config{PID: 1, VMIdent: "FakeVM", AppName: "app"})
	require.NoError(t, err)
	defer vm.Close()
	addr, _ := startProxy(t, "-vm", vm.Addr, "-share")
	ctx := context.Background()
	a, err := ddm.Dial(ctx, addr)
	require.NoError(t, err)
	b, err := ddm.Dial(ctx, addr)
	require.NoError(t, err, "a second client is accepted with -share")
	require.Contains(t, a.Features(), "hprof-heap-dump")
	require.Contains(t, b.Features(), "hprof-heap-dump")
	a.Close()
	b.Close()
}

// -journal FILE.pcapng writes a capture that the capture import reads.
func TestPcapngJournal(t *testing.T) {
	opts := jvmtest.DriverOptions{Stops: 1}
	vm := jvmtest.Start(t, "Debuggee", "1")
	dir := t.TempDir()
	journalFile, statsFile := filepath.Join(dir, "session.pcapng"), filepath.Join(dir, "stats.json")
	addr, _ := startProxy(t, "-vm", vm.Addr, "-mode", "off", "-journal", journalFile, "-stats", statsFile)
	jvmtest.RunDriver(t, addr, opts)
	require.Eventually(t, func() bool { _, err := os.Stat(statsFile); return err == nil }, 30*time.Second, time.Millisecond)
	sessions, err := journal.ReadCaptureFile(journalFile)
	require.NoError(t, err)
	require.Len(t, sessions, 1)
	require.Greater(t, len(sessions[0].Records), 20)
}

// TestSplitHalvesWithARealDebugger runs scache proxy as both halves of a
// split proxy between a real VM and the JDI driver: the transcript equals
// a direct one, the far half's stats list the stops answered at the far
// end, and the near half's say what it pushed and how much was used.
func TestSplitHalvesWithARealDebugger(t *testing.T) {
	opts := jvmtest.DriverOptions{Stops: 2}
	direct, _ := jvmtest.RunDriver(t, jvmtest.Start(t, "Debuggee", "2").Addr, opts)

	vm := jvmtest.Start(t, "Debuggee", "2")
	dir := t.TempDir()
	nearStats, farStats := filepath.Join(dir, "near.json"), filepath.Join(dir, "far.json")
	near, _ := startProxy(t, "-vm", vm.Addr, "-split", "near", "-stats", nearStats)
	far, _ := startProxy(t, "-vm", near, "-split", "far", "-stats", farStats, "-v")
	got, _ := jvmtest.RunDriver(t, far, opts)
	require.Equal(t, direct, got)
	for _, f := range []string{nearStats, farStats} {
		require.Eventually(t, func() bool { _, err := os.Stat(f); return err == nil }, 30*time.Second, time.Millisecond)
	}
	var n, f struct {
		Synthetic   int64 `json:"synthetic"`
		Hits        int64 `json:"hits"`
		Belayed     int64 `json:"belayed"`
		PushedBytes int64 `json:"pushed_bytes"`
		PushedUsed  int64 `json:"pushed_used"`
		TunnelBytes int64 `json:"tunnel_bytes"`
		Stops       []struct {
			Asked    int `json:"asked"`
			Answered int `json:"answered"`
		} `json:"stops"`
	}
	b, err := os.ReadFile(nearStats)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &n))
	b, err = os.ReadFile(farStats)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &f))
	require.Positive(t, n.Synthetic)
	require.Positive(t, n.PushedBytes)
	require.Positive(t, n.PushedUsed)
	require.Positive(t, f.Hits+f.Belayed, "the far half answered the debugger")
	require.Positive(t, f.TunnelBytes)
	require.Len(t, f.Stops, 8, "2 breakpoints and 3 steps after each, seen at the far half")
	answered := 0
	for _, s := range f.Stops {
		answered += s.Answered
	}
	require.Positive(t, answered)
}

func TestSplitNeedsAHalf(t *testing.T) {
	code, _, errOut := runProxy("-split", "middle")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "near or far")
}
