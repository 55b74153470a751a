package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
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

// fullChain runs the chain with adbproxy as the one proxy, or as the near
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
		return run(ctx, []string{"-adb", server, "-serial", dev.Addr, "-list"}, &o, &e, nil) == 0 &&
			o.String() == "777  com.example.debuggee  debuggable  x86_64\n"
	}, 30*time.Second, 20*time.Millisecond)

	ready := make(chan string, 1)
	done := make(chan int, 1)
	var errOut bytes.Buffer
	dir := t.TempDir()
	statsFile, timelineFile := filepath.Join(dir, "stats.json"), filepath.Join(dir, "timeline.json")
	args := []string{"-adb", server, "-serial", dev.Addr, "-pid", "777", "-listen", "127.0.0.1:0",
		"-stats", statsFile, "-timeline", timelineFile, "-v"}
	if split {
		args = append(args, "-split", "near")
	}
	go func() { done <- run(ctx, args, &bytes.Buffer{}, &errOut, ready) }()
	listening := <-ready
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
	cancel()
	require.Equal(t, 0, <-done, errOut.String())
	require.Contains(t, errOut.String(), "adbproxy: listening on "+listening+"; each debugger session that connects opens jdwp:777 on device "+dev.Addr,
		"-pid says what it waits for")

	// The proxy's observability flags hold here too.
	b, err := os.ReadFile(statsFile)
	require.NoError(t, err, "-stats")
	var st observe.SessionStats
	require.NoError(t, json.Unmarshal(b, &st))
	require.NotEmpty(t, st.Stops, "-stats lists the session's stops")
	require.Contains(t, errOut.String(), "msg=stop ", "-v logs a line per stop")
	tl, err := os.ReadFile(timelineFile)
	require.NoError(t, err, "-timeline")
	require.Contains(t, string(tl), "ThreadReference.Frames")
}

// -h says first what the command is for.
func TestHelpStartsWithWhatItIsFor(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 2, run(context.Background(), []string{"-h"}, &out, &errOut, nil))
	first, _, _ := strings.Cut(errOut.String(), "\n")
	require.Equal(t, "adbproxy lets a debugger reach an Android app's VM through adb, with scache in between: point the debugger at -listen.", first)
}

// Every flag is checked before adbproxy listens: with -listen at an address
// already taken, a wrong flag is reported as itself, not as the address in
// use, and nothing reaches the adb server (there is none here).
func TestFlagsAreCheckedBeforeAnythingListens(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-pid", "1", "-mode", "bogus"}, "adbproxy: -mode: "},
		{[]string{"-pid", "1", "-split", "far"}, "-split takes near only"},
		{[]string{}, "-app NAME or -pid is required"},
		{[]string{"-pid", "1", "-app", "com.example"}, "-pid and -app: give one"},
		{[]string{"-app", "com.example", "-json"}, "-json goes with -list"},
		{[]string{"-pid", "1", "stray"}, `unexpected arguments ["stray"]`},
		{[]string{"-pid", "1", "-split", "near", "-listen", "0.0.0.0:0"}, "beyond loopback anyone who reaches the port would run code in the app"},
		{[]string{"-pid", "1", "-key", "k"}, "-key keys the tunnel of a split proxy: give -split near"},
		{[]string{"-pid", "1", "-journal", filepath.Join(t.TempDir(), "missing", "j.sctrace")}, "adbproxy: "},
	} {
		var out, errOut bytes.Buffer
		code := run(context.Background(), append([]string{"-listen", taken.Addr().String(), "-adb", "127.0.0.1:1"}, tc.args...), &out, &errOut, nil)
		require.Equal(t, 2, code, "%v: %s", tc.args, errOut.String())
		require.Contains(t, errOut.String(), tc.want, "%v", tc.args)
		require.NotContains(t, errOut.String(), "address already in use", "%v", tc.args)
	}
}
