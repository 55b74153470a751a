package threadscmd

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
	"github.com/jdwpscache/scache/internal/cli/command"
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
	require.Equal(t, 0, Run(ctx, []string{"-vm", vm.Addr, "-interval", "5ms", "-updates", "2"}, &out, &errOut), errOut.String())
	text := out.String()
	require.Contains(t, text, "RenderThread")
	require.Contains(t, text, "native")
	require.Contains(t, text, "1001", "the system thread id from THST")
}

func TestNotDDMAwareVM(t *testing.T) {
	vm := jvmtest.Start(t, "Debuggee", "1")
	var out, errOut bytes.Buffer
	require.Equal(t, 2, Run(context.Background(), []string{"-vm", vm.Addr}, &out, &errOut),
		"stderr: %s\nthe VM printed: %s", errOut.String(), vm.Output())
	require.Contains(t, errOut.String(), "is not DDM-aware")
	require.Contains(t, errOut.String(), "OpenJDK", "the VM's name, from its Version reply")
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
		return Run(ctx, []string{"-adb", adbServer.Addr(), "-serial", dev.Addr, "-pid", "55",
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
	printThreads(&out, threads)
	require.Contains(t, out.String(), "OkHttp Dispatcher")
	require.NotContains(t, out.String(), "Thread-2")
}

// -h prints the usage, says what the command is for and gives an
// example, with status 0; stray arguments are refused with status 2.
func TestHelpSaysWhatItIsFor(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 0, Run(context.Background(), []string{"-h"}, &out, &errOut))
	lines := strings.Split(errOut.String(), "\n")
	require.Equal(t, "usage: scache threads [flags]", lines[0])
	require.Contains(t, errOut.String(), "\n\n"+command.Wrap(about.Summary)+"\n\n", "the summary follows the usage line")
	require.Contains(t, errOut.String(), "Example:\n  scache threads -app com.example.app -interval 500ms\n")
	errOut.Reset()
	require.Equal(t, 2, Run(context.Background(), []string{"1234"}, &out, &errOut))
	require.Contains(t, errOut.String(), `scache threads: unexpected arguments ["1234"]`)
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
		done <- Run(ctx, []string{"-adb", adbServer.Addr(), "-serial", dev.Addr, "-app", "com.example.monitored",
			"-interval", "5ms", "-updates", "1"}, &stdout, errOut)
	}()
	require.Eventually(t, func() bool { return strings.Contains(errOut.String(), "com.example.monitored is not running") },
		20*time.Second, time.Millisecond, "%s", errOut.String())
	dev.AddApp(adbtest.Process{PID: 56, Addr: vm.Addr})
	require.Equal(t, 0, <-done, errOut.String())
	require.Contains(t, stdout.String(), "main")
}
