package proxycmd

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jdwpscache/scache/adb/adbtest"
	"github.com/jdwpscache/scache/internal/adbservertest"
	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/internal/observe"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/transport"
	"github.com/stretchr/testify/require"
)

// serveFar serves a far half in front of the near half at near until the
// test ends, and returns its address and its sessions' stats.
func serveFar(t *testing.T, near string) (string, chan scache.Stats) {
	stats := make(chan scache.Stats, 1)
	p, err := transport.NewProxy(func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", near)
	}, transport.WithSplit(transport.FarHalf), scache.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		transport.WithSessionEnded(func(st scache.Stats, err error) {
			if err != nil {
				t.Errorf("the far half's session: %v", err)
			}
			stats <- st
		}))
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	return ln.Addr().String(), stats
}

// TestFullChain debugs a real VM with the JDI driver through the whole
// chain: the Speculator's proxy, a real adb server, an emulated device, the
// JVM. The transcript equals a direct one.
func TestFullChain(t *testing.T) {
	for _, split := range []bool{false, true} {
		t.Run(map[bool]string{false: "one proxy", true: "near half"}[split], func(t *testing.T) { fullChain(t, split) })
	}
}

// fullChain runs the chain with scache proxy as the one proxy, or as the near
// half of a split proxy whose far half the test runs.
func fullChain(t *testing.T, split bool) {
	opts := jvmtest.DriverOptions{Stops: 2}
	direct, _ := jvmtest.RunDriver(t, jvmtest.Start(t, "Debuggee", "2").Addr, opts)

	adbServer := adbservertest.Start(t)
	dev, err := adbtest.Start(adbtest.Config{Product: "p", Model: "m", Device: "d"})
	require.NoError(t, err)
	defer dev.Close()
	adbServer.Connect(t, dev)
	vm := jvmtest.Start(t, "Debuggee", "2")
	dev.AddApp(adbtest.Process{PID: 777, Addr: vm.Addr, Name: "com.example.debuggee", Architecture: "x86_64", AnswerHELO: true})

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// -list shows the process, named from its VM's DDM HELO (a device
	// without track-app), once the server has the device online.
	server := adbServer.Addr()
	require.Eventually(t, func() bool {
		var o, e bytes.Buffer
		return Run(ctx, []string{"-adb", server, "-serial", dev.Addr, "-list"}, &o, &e) == 0 &&
			o.String() == "777  com.example.debuggee  debuggable  x86_64\n"
	}, 30*time.Second, 20*time.Millisecond)

	dir := t.TempDir()
	statsFile, timelineFile := filepath.Join(dir, "stats.json"), filepath.Join(dir, "timeline.json")
	args := []string{"-adb", server, "-serial", dev.Addr, "-pid", "777", "-stats", statsFile, "-timeline", timelineFile, "-v"}
	if split {
		args = append(args, "-split", "near")
	}
	listening, errOut := startProxy(t, args...)
	addr := listening
	var farStats chan scache.Stats
	if split {
		addr, farStats = serveFar(t, addr)
	}
	got, _ := jvmtest.RunDriver(t, addr, opts)
	if split {
		st := <-farStats
		require.Positive(t, st.Hits+st.Belayed, "the far half answered from what the near half pushed")
	}
	require.Equal(t, direct, got)
	require.Contains(t, errOut.String(), `msg="proxy ready" listen=`+listening+` vm="jdwp:777 on device `+dev.Addr+`"`,
		"-pid says where each session goes")
	// The session's end writes the stats.
	require.Eventually(t, func() bool { _, err := os.Stat(statsFile); return err == nil }, 30*time.Second, time.Millisecond)

	// The proxy's observability flags hold here too.
	b, err := os.ReadFile(statsFile)
	require.NoError(t, err, "-stats")
	var st observe.SessionStats
	require.NoError(t, json.Unmarshal(b, &st))
	require.NotEmpty(t, st.Stops, "-stats lists the session's stops")
	require.Contains(t, errOut.String(), "msg=stop ", "-v logs a line per stop")
	require.Eventually(t, func() bool { _, err := os.Stat(timelineFile); return err == nil }, 30*time.Second, time.Millisecond)
	tl, err := os.ReadFile(timelineFile)
	require.NoError(t, err, "-timeline")
	require.Contains(t, string(tl), "ThreadReference.Frames")
}
