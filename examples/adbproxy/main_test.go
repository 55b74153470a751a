package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/jdwpscache/scache/adb/adbtest"
	"github.com/jdwpscache/scache/internal/adbservertest"
	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/stretchr/testify/require"
)

// TestFullChain debugs a real VM with the JDI driver through the whole
// chain: the Speculator's proxy, a real adb server, an emulated device, the
// JVM. The transcript equals a direct one.
func TestFullChain(t *testing.T) {
	opts := jvmtest.DriverOptions{Stops: 2}
	direct, _ := jvmtest.RunDriver(t, jvmtest.Start(t, "Debuggee", "2").Addr, opts)

	adbServer := adbservertest.Start(t)
	dev, err := adbtest.Start(adbtest.Config{Product: "p", Model: "m", Device: "d"})
	require.NoError(t, err)
	defer dev.Close()
	adbServer.Connect(t, dev)
	vm := jvmtest.Start(t, "Debuggee", "2")
	dev.AddProcess(777, vm.Addr)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// -list shows the pid, once the server has the device online.
	server := adbServer.Addr()
	require.Eventually(t, func() bool {
		var o, e bytes.Buffer
		return run(ctx, []string{"-adb", server, "-serial", dev.Addr, "-list"}, &o, &e, nil) == 0 && o.String() == "777\n"
	}, 30*time.Second, 20*time.Millisecond)

	ready := make(chan string, 1)
	done := make(chan int, 1)
	var errOut bytes.Buffer
	go func() {
		done <- run(ctx, []string{"-adb", server, "-serial", dev.Addr, "-pid", "777", "-listen", "127.0.0.1:0"},
			&bytes.Buffer{}, &errOut, ready)
	}()
	addr := <-ready
	got, _ := jvmtest.RunDriver(t, addr, opts)
	require.Equal(t, direct, got)
	cancel()
	require.Equal(t, 0, <-done, errOut.String())
}
