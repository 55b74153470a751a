package replay_test

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/journal"
	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/internal/replay"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
)

var record = flag.Bool("record", false, "rewrite the embedded trace in traces/ from a real JDI session")

// embeddedWorkload is the session of the embedded trace: 5 stops of the JDI
// driver against HotSpot 17, with a hot swap after the first.
var embeddedWorkload = jvmtest.DriverOptions{Stops: 5, HotSwap: true}

// recordSession debugs a real VM with the JDI driver through a pass-through
// proxy whose journal goes to path, and returns the driver's transcript.
func recordSession(t *testing.T, path string, opts jvmtest.DriverOptions) string {
	vm := jvmtest.Start(t, "Debuggee", "5")
	w, err := journal.Create(path)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ended := make(chan error, 1)
	p := &scache.Proxy{
		DialVM: func(ctx context.Context) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "tcp", vm.Addr)
		},
		NewSpeculator: func() *scache.Speculator { return scache.New(scache.PassThrough()) },
		Journal:       w.Write,
		SessionEnded:  func(_ scache.Stats, err error) { ended <- err },
		Logger:        slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, ln) }()
	transcript, _ := jvmtest.RunDriver(t, ln.Addr().String(), opts)
	require.NoError(t, <-ended)
	cancel()
	require.NoError(t, <-done)
	require.NoError(t, w.Close())
	return transcript
}

// TestRecordedSessionReplaysExactly records a real JDI session against a real
// HotSpot VM and replays it in every mode: the debugger must receive exactly
// the recorded replies, and speculation must answer some of its commands.
func TestRecordedSessionReplaysExactly(t *testing.T) {
	path := filepath.Join(t.TempDir(), replay.EmbeddedName)
	if *record {
		path = filepath.Join("traces", replay.EmbeddedName)
	}
	transcript := recordSession(t, path, embeddedWorkload)
	require.Contains(t, transcript, "disposed after 5 stops")
	traces, err := replay.LoadFile(path)
	require.NoError(t, err)
	require.Len(t, traces, 1)
	checkReplay(t, traces[0])
}

// TestEmbeddedTraceReplaysExactly replays the trace shipped in the binary.
func TestEmbeddedTraceReplaysExactly(t *testing.T) {
	traces, err := replay.Embedded()
	require.NoError(t, err)
	require.NotEmpty(t, traces)
	for _, tr := range traces {
		checkReplay(t, tr)
	}
}

func checkReplay(t *testing.T, tr replay.Trace) {
	t.Helper()
	results := map[replay.Mode]replay.Result{}
	for _, mode := range replay.Modes {
		res, err := replay.Run(tr, mode, replay.Config{RTT: 20 * time.Millisecond, RTTs: []time.Duration{0, time.Millisecond}})
		require.NoError(t, err, "mode %s", mode)
		require.Empty(t, res.Mismatches)
		results[mode] = res
	}
	off, classic, sc := results[replay.ModeOff], results[replay.ModeClassic], results[replay.ModeScache]
	require.Zero(t, off.SyntheticCmds)
	require.Positive(t, classic.RoundTripsSaved, "classic answers some commands from speculation")
	require.Positive(t, sc.RoundTripsSaved, "scache answers some commands from speculation")
	require.Greater(t, sc.RoundTripsSaved, classic.RoundTripsSaved-1, "scache saves at least what classic saves")
	t.Logf("%s: %d debugger commands; saved off %d classic %d scache %d; wait at 20ms off %v classic %v scache %v",
		tr.Name, sc.DebuggerCmds, off.RoundTripsSaved, classic.RoundTripsSaved, sc.RoundTripsSaved,
		off.Wait[20*time.Millisecond], classic.Wait[20*time.Millisecond], sc.Wait[20*time.Millisecond])
}
