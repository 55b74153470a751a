package main

import (
	"bytes"
	"context"
	"net"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/internal/logtest"
	"github.com/jdwpscache/scache/internal/nettest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

// startServe runs the proxy with cfg on a loopback port until the test ends.
func startServe(t *testing.T, cfg config) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, ln, cfg) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	return ln.Addr().String()
}

// jdb pointed at the near half of a split proxy is served as by one proxy
// next to the VM: its transcript equals a direct one, and the near half
// logs where the debugger should have gone.
func TestJdbAtTheNearHalfIsServedAsByOneProxy(t *testing.T) {
	log := logtest.CaptureDefault(t)
	opts := jvmtest.DriverOptions{Stops: 2}
	direct, _ := jvmtest.RunJdb(t, jvmtest.Start(t, "Debuggee", "2").Addr, opts)
	vm := jvmtest.Start(t, "Debuggee", "2")
	near := startServe(t, config{vmAddr: vm.Addr, mode: "scache", split: "near"})
	got, _ := jvmtest.RunJdb(t, near, opts)
	require.Equal(t, direct, got)
	require.Contains(t, log.String(), "a JDWP debugger connected to the near half of a split proxy: serving it as one proxy next to the VM")
	require.Contains(t, log.String(), "proxy -split far")
}

// A far half pointed at a real VM says that the address answered like a
// VM; the VM is left as it was (its agent waits for a debugger) and a
// debugger attaches to it afterwards.
func TestAFarHalfPointedAtARealVMSaysSo(t *testing.T) {
	log := logtest.CaptureDefault(t)
	vm := jvmtest.Start(t, "Debuggee", "1")
	far := startServe(t, config{vmAddr: vm.Addr, mode: "scache", split: "far"})
	c, err := net.Dial("tcp", far)
	require.NoError(t, err)
	defer c.Close()
	err = jdwp.DebuggerHandshake(c, 30*time.Second)
	require.Error(t, err, "the debugger's handshake is not answered")
	require.Eventually(t, func() bool {
		return bytes.Contains([]byte(log.String()), []byte(vm.Addr+" answered like a JDWP VM, not a near half"))
	}, 30*time.Second, time.Millisecond, "%s", log.String())
	require.Contains(t, log.String(), "use -split far only towards a near half")
	// The VM's agent still waits for its debugger.
	got, _ := jvmtest.RunDriver(t, vm.Addr, jvmtest.DriverOptions{Stops: 1})
	require.Contains(t, got, "marker")
}

// A far half whose near half is not there names the near half, not the VM.
func TestAFarHalfWithoutANearHalfNamesIt(t *testing.T) {
	log := logtest.CaptureDefault(t)
	deadAddr := nettest.RefusingAddr(t)
	far := startServe(t, config{vmAddr: deadAddr, mode: "scache", split: "far"})
	c, err := net.Dial("tcp", far)
	require.NoError(t, err)
	defer c.Close()
	require.Error(t, jdwp.DebuggerHandshake(c, 30*time.Second))
	require.Eventually(t, func() bool {
		return bytes.Contains([]byte(log.String()), []byte("cannot reach the near half at "+deadAddr))
	}, 30*time.Second, time.Millisecond, "%s", log.String())
	require.NotContains(t, log.String(), "cannot reach the VM")
}
