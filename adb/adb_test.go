package adb_test

import (
	"context"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jdwpscache/scache/adb"
	"github.com/jdwpscache/scache/adb/adbtest"
	"github.com/jdwpscache/scache/internal/adbservertest"
	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

// adbServer starts a real adb server on a private port for the test.
func adbServer(t *testing.T) *adb.Client { return adbservertest.Start(t).Client }

// connect makes the server connect to an emulated device and returns its serial.
func connect(t *testing.T, c *adb.Client, d *adbtest.Device) string {
	_, port, _ := net.SplitHostPort(c.Addr)
	return (&adbservertest.Server{Port: port, Client: c}).Connect(t, d)
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

func device(t *testing.T) *adbtest.Device {
	d, err := adbtest.Start(adbtest.Config{Product: "sdk_phone", Model: "Scache_Phone", Device: "emu64"})
	require.NoError(t, err)
	t.Cleanup(func() { d.Close() })
	return d
}

func TestRealServerWithEmulatedDevice(t *testing.T) {
	c := adbServer(t)
	v, err := c.ServerVersion(ctx(t))
	require.NoError(t, err)
	require.Equal(t, 41, v)

	devs, err := c.TrackDevices(ctx(t))
	require.NoError(t, err)
	require.Empty(t, next(t, devs), "no device at first")

	d := device(t)
	serial := connect(t, c, d)
	var seen []adb.Device
	for len(seen) == 0 || seen[0].State != "device" {
		seen = next(t, devs)
	}
	require.Equal(t, serial, seen[0].Serial)

	long, err := c.Devices(ctx(t), true)
	require.NoError(t, err)
	require.Len(t, long, 1)
	require.Equal(t, "Scache_Phone", long[0].Model)
	require.Equal(t, "sdk_phone", long[0].Product)
	require.Positive(t, long[0].TransportID)

	out, err := c.Shell(ctx(t), adb.Selector{Serial: serial}, "echo hi")
	require.NoError(t, err)
	require.Equal(t, "hi\n", out)
	_, port, _ := net.SplitHostPort(c.Addr)
	real, err := exec.Command("adb", "-P", port, "-s", serial, "shell", "echo", "hi").CombinedOutput()
	require.NoError(t, err, "%s", real)
	require.Equal(t, "hi\n", strings.ReplaceAll(string(real), "\r", ""))

	// A real JVM behind a pid: track-jdwp sees it, jdwp:<pid> reaches it.
	vm := jvmtest.Start(t, "Debuggee", "1")
	pids, err := c.TrackJDWP(ctx(t), adb.Selector{Serial: serial})
	require.NoError(t, err)
	require.Empty(t, next(t, pids))
	d.AddProcess(4242, vm.Addr)
	require.Equal(t, []int{4242}, next(t, pids))

	conn, err := c.JDWP(ctx(t), adb.Selector{Serial: serial}, 4242)
	require.NoError(t, err)
	require.NoError(t, jdwp.DebuggerHandshake(conn, 10*time.Second))
	jc := jdwp.NewConn(conn)
	defer jc.Close()
	var sizes jdwp.VMIDSizesReply
	require.NoError(t, jc.Call(ctx(t), &jdwp.VMIDSizesCommand{}, &sizes))
	require.Equal(t, jdwp.DefaultIDSizes, sizes.Sizes)

	// The device goes away (adb keeps a TCP device listed, reconnecting,
	// until told to disconnect): tracking sees it disappear.
	d.Close()
	out2, err := exec.Command("adb", "-P", port, "disconnect", serial).CombinedOutput()
	require.NoError(t, err, "%s", out2)
	for len(seen) > 0 {
		seen = next(t, devs)
	}
}

func next[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v, ok := <-ch:
		require.True(t, ok, "the stream ended")
		return v
	case <-time.After(30 * time.Second):
		t.Fatal("no update within 30s")
		var zero T
		return zero
	}
}

// TestRealCLIDebuggingWorkflow runs the adb commands a debugging workflow
// uses, with adb's own command-line client, against the emulated device.
func TestRealCLIDebuggingWorkflow(t *testing.T) {
	c := adbServer(t)
	d := device(t)
	serial := connect(t, c, d)
	vm := jvmtest.Start(t, "Debuggee", "1")
	d.AddProcess(4242, vm.Addr)
	d.AddProcess(77, vm.Addr)
	_, port, _ := net.SplitHostPort(c.Addr)
	adbCLI := func(args ...string) string {
		cx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a guard against a hang
		defer cancel()
		out, err := exec.CommandContext(cx, "adb", append([]string{"-P", port, "-s", serial}, args...)...).CombinedOutput()
		require.NoError(t, err, "adb %v: %s", args, out)
		return strings.ReplaceAll(string(out), "\r", "")
	}
	require.Equal(t, "77\n4242\n", adbCLI("jdwp"))
	require.Equal(t, "device\n", adbCLI("get-state"))
	adbCLI("wait-for-device")
	require.Contains(t, adbCLI("devices", "-l"), "model:Scache_Phone")
	require.Equal(t, "sdk_phone\n", adbCLI("shell", "getprop", "ro.product.name"))
	fwd := strings.TrimSpace(adbCLI("forward", "tcp:0", "jdwp:4242"))
	conn, err := net.Dial("tcp", "127.0.0.1:"+fwd)
	require.NoError(t, err)
	require.NoError(t, jdwp.DebuggerHandshake(conn, 10*time.Second))
	jc := jdwp.NewConn(conn)
	defer jc.Close()
	var sizes jdwp.VMIDSizesReply
	require.NoError(t, jc.Call(ctx(t), &jdwp.VMIDSizesCommand{}, &sizes))
	require.Contains(t, adbCLI("forward", "--list"), "jdwp:4242")
	adbCLI("features")
}
