package share_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/share"
	"github.com/stretchr/testify/require"
)

// startSession dials a VM and serves a shared session on a loopback port.
func startSession(t *testing.T, vmAddr string) (*share.Session, string) {
	vmConn, err := net.Dial("tcp", vmAddr)
	require.NoError(t, err)
	s, err := share.New(vmConn)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
		s.Close()
	})
	return s, ln.Addr().String()
}

// TestDebuggerAndMonitorShareOneVM: the JDI driver debugs a real VM through
// a shared session while a second JDI client lists threads every 100 ms on
// the same VM connection (and leaves, maybe in the middle). The driver's transcript
// equals a direct one; the monitor saw the VM's threads every round.
func TestDebuggerAndMonitorShareOneVM(t *testing.T) {
	opts := jvmtest.DriverOptions{Stops: 3}
	// The debuggee keeps running after the debugger leaves (rounds until the
	// test ends), so that the monitor can finish whichever leaves first.
	direct, _ := jvmtest.RunDriver(t, jvmtest.Start(t, "Debuggee", "-1").Addr, opts)

	vm := jvmtest.Start(t, "Debuggee", "-1")
	s, addr := startSession(t, vm.Addr)
	type result struct {
		out string
		err error
	}
	driver := make(chan string, 1)
	go func() {
		got, _ := jvmtest.RunDriver(t, addr, opts)
		driver <- got
	}()
	// The driver attaches first (it is the one the VM's start is for).
	require.Eventually(t, func() bool {
		_, per := s.Stats()
		return len(per) == 1
	}, 30*time.Second, 5*time.Millisecond)
	lister := make(chan result, 1)
	go func() {
		out, err := jvmtest.RunLister(t, addr, 5)
		lister <- result{out, err}
	}()
	l := <-lister
	require.NoError(t, l.err, l.out)
	require.Contains(t, l.out, "lister done", "the monitor left without disturbing the debugger")
	require.Equal(t, 5, strings.Count(l.out, "threads true main true"), l.out)
	require.Equal(t, direct, <-driver)
}

// TestMonitorSurvivesTheDebuggerLeaving: the debugger disposes first; the
// monitor keeps listing threads on the same connection.
func TestMonitorSurvivesTheDebuggerLeaving(t *testing.T) {
	vm := jvmtest.Start(t, "Debuggee", "-1")
	s, addr := startSession(t, vm.Addr)
	driver := make(chan string, 1)
	go func() {
		got, _ := jvmtest.RunDriver(t, addr, jvmtest.DriverOptions{Stops: 1})
		driver <- got
	}()
	require.Eventually(t, func() bool {
		_, per := s.Stats()
		return len(per) == 1
	}, 30*time.Second, 5*time.Millisecond)
	lister := make(chan string, 1)
	go func() {
		out, _ := jvmtest.RunLister(t, addr, 15)
		lister <- out
	}()
	require.Contains(t, <-driver, "disposed after 1 stops")
	out := <-lister
	require.Contains(t, out, "lister done", out)
	require.Equal(t, 15, strings.Count(out, "threads true main true"), out)
}
