package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/scache/transport"
	"github.com/stretchr/testify/require"
)

// The far half reaches the near half through a command's standard input
// and output (-via), as through ssh: here the command runs the near half
// itself (-stdio) on this machine. A JDI session's transcript equals the
// direct one, twice: a command per session.
func TestViaACommandStandingInForSSH(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "scache-proxy")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	opts := jvmtest.DriverOptions{Stops: 2}
	direct, _ := jvmtest.RunDriver(t, jvmtest.Start(t, "Debuggee", "2").Addr, opts)
	for range 2 {
		vm := jvmtest.Start(t, "Debuggee", "2")
		far := startServe(t, config{mode: "scache", split: "far", via: bin + " -split near -stdio -vm " + vm.Addr})
		got, _ := jvmtest.RunDriver(t, far, opts)
		require.Equal(t, direct, got)
	}
}

// Two halves with the same key file (-genkey, -key) carry a JDI session
// over TLS; its transcript equals the direct one.
func TestAKeyedTunnelBetweenRealHalves(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tunnel.key")
	require.NoError(t, run(context.Background(), []string{"-genkey", path}))
	key, err := transport.LoadTunnelKey(path)
	require.NoError(t, err)
	opts := jvmtest.DriverOptions{Stops: 2}
	direct, _ := jvmtest.RunDriver(t, jvmtest.Start(t, "Debuggee", "2").Addr, opts)
	vm := jvmtest.Start(t, "Debuggee", "2")
	near := startServe(t, config{vmAddr: vm.Addr, mode: "scache", split: "near", key: key})
	far := startServe(t, config{vmAddr: near, mode: "scache", split: "far", key: key})
	got, _ := jvmtest.RunDriver(t, far, opts)
	require.Equal(t, direct, got)
}
