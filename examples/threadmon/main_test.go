package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jdwpscache/scache/adb/adbtest"
	"github.com/jdwpscache/scache/ddm"
	"github.com/jdwpscache/scache/ddm/ddmtest"
	"github.com/jdwpscache/scache/internal/adbservertest"
	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/internal/logtest"
	"github.com/stretchr/testify/require"
)

func TestMonitorsAFakeVM(t *testing.T) {
	vm, err := ddmtest.Start(ddmtest.Config{PID: 1, VMIdent: "FakeVM", AppName: "app",
		Threads: []ddmtest.Thread{{ID: 1, Name: "main", Status: ddm.StateRunning}, {ID: 5, Name: "RenderThread", Status: ddm.StateNative}}})
	require.NoError(t, err)
	defer vm.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	require.Equal(t, 0, run(ctx, []string{"-vm", vm.Addr, "-interval", "5ms", "-updates", "2"}, &out, &errOut), errOut.String())
	text := out.String()
	require.Contains(t, text, "RenderThread")
	require.Contains(t, text, "native")
	require.Contains(t, text, "1001", "the system thread id from THST")
}

func TestNotDDMAwareVM(t *testing.T) {
	vm := jvmtest.Start(t, "Debuggee", "1")
	var out, errOut bytes.Buffer
	require.Equal(t, 2, run(context.Background(), []string{"-vm", vm.Addr}, &out, &errOut))
	require.Contains(t, errOut.String(), "is not DDM-aware")
	require.Empty(t, out.String())
}

// TestOverADB reaches a DDM-aware fake VM through a real adb server and the
// emulated device, by pid.
func TestOverADB(t *testing.T) {
	adbServer := adbservertest.Start(t)
	dev, err := adbtest.Start(adbtest.Config{Product: "p", Model: "m", Device: "d"})
	require.NoError(t, err)
	defer dev.Close()
	adbServer.Connect(t, dev)
	vm, err := ddmtest.Start(ddmtest.Config{PID: 55, VMIdent: "FakeVM", AppName: "app",
		Threads: []ddmtest.Thread{{ID: 1, Name: "main", Status: ddm.StateRunning}}})
	require.NoError(t, err)
	defer vm.Close()
	dev.AddProcess(55, vm.Addr)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stdout, errOut bytes.Buffer
	require.Eventually(t, func() bool {
		stdout.Reset()
		errOut.Reset()
		return run(ctx, []string{"-adb", adbServer.Addr(), "-serial", dev.Addr, "-pid", "55",
			"-interval", "5ms", "-updates", "1"}, &stdout, &errOut) == 0
	}, 20*time.Second, 50*time.Millisecond, "last error: %s", &errOut)
	require.Contains(t, stdout.String(), "main")
}

// A THNM renames a thread in the table.
func TestRenamedThread(t *testing.T) {
	threads := map[uint32]*thread{}
	require.True(t, apply(threads, ddm.Encode(&ddm.ThreadCreated{ID: 3, Name: "Thread-2"})))
	require.True(t, apply(threads, ddm.Encode(&ddm.ThreadRenamed{ID: 3, Name: "OkHttp Dispatcher"})))
	var out bytes.Buffer
	print(&out, threads)
	require.Contains(t, out.String(), "OkHttp Dispatcher")
	require.NotContains(t, out.String(), "Thread-2")
}

// -h says first what the command is for; stray arguments are refused.
func TestHelpStartsWithWhatItIsFor(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 2, run(context.Background(), []string{"-h"}, &out, &errOut))
	first, _, _ := strings.Cut(errOut.String(), "\n")
	require.Equal(t, "threadmon prints an Android VM's threads live over DDM (names, states, CPU time), directly or through adb.", first)
	errOut.Reset()
	require.Equal(t, 2, run(context.Background(), []string{"1234"}, &out, &errOut))
	require.Contains(t, errOut.String(), `unexpected arguments ["1234"]`)
}

// -app finds the VM by its process name through a real adb server (names
// over HELO: a device without track-app), waiting for it to start.
func TestOverADBByName(t *testing.T) {
	adbServer := adbservertest.Start(t)
	dev, err := adbtest.Start(adbtest.Config{Product: "p", Model: "m", Device: "d"})
	require.NoError(t, err)
	defer dev.Close()
	adbServer.Connect(t, dev)
	vm, err := ddmtest.Start(ddmtest.Config{PID: 56, VMIdent: "FakeVM", AppName: "com.example.monitored",
		Threads: []ddmtest.Thread{{ID: 1, Name: "main", Status: ddm.StateRunning}}})
	require.NoError(t, err)
	defer vm.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stdout bytes.Buffer
	errOut := &logtest.Buffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"-adb", adbServer.Addr(), "-serial", dev.Addr, "-app", "com.example.monitored",
			"-interval", "5ms", "-updates", "1"}, &stdout, errOut)
	}()
	require.Eventually(t, func() bool { return strings.Contains(errOut.String(), "com.example.monitored is not running") },
		20*time.Second, time.Millisecond, "%s", errOut.String())
	dev.AddApp(adbtest.Process{PID: 56, Addr: vm.Addr})
	require.Equal(t, 0, <-done, errOut.String())
	require.Contains(t, stdout.String(), "main")
}
