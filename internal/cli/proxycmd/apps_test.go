package proxycmd

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jdwpscache/scache/adb"
	"github.com/jdwpscache/scache/adb/adbtest"
	"github.com/jdwpscache/scache/ddm/ddmtest"
	"github.com/jdwpscache/scache/internal/adbservertest"
	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/internal/logtest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

// appDevice starts a real adb server and an emulated device with features
// (none: an older device), connected to each other; it returns the flags
// that reach the device.
func appDevice(t *testing.T, features ...string) (*adbtest.Device, []string) {
	server := adbservertest.Start(t)
	dev, err := adbtest.Start(adbtest.Config{Product: "p", Model: "m", Device: "d", Features: features})
	require.NoError(t, err)
	t.Cleanup(func() { dev.Close() })
	server.Connect(t, dev)
	return dev, []string{"-adb", server.Addr(), "-serial", dev.Addr}
}

// remoteProcess adds the app's second process, a DDM-aware fake VM named
// name:remote, to dev.
func remoteProcess(t *testing.T, dev *adbtest.Device, pid int, name string) {
	fake, err := ddmtest.Start(ddmtest.Config{PID: uint32(pid), VMIdent: "FakeVM", AppName: name + ":remote"})
	require.NoError(t, err)
	t.Cleanup(func() { fake.Close() })
	dev.AddApp(adbtest.Process{PID: pid, Addr: fake.Addr, Name: name + ":remote", Architecture: "x86_64"})
}

// -list shows each process with its name, sorted by name, on a device with
// track-app and on one without (names from each VM's HELO); -json says the
// same as JSON.
func TestListShowsNames(t *testing.T) {
	for _, tc := range []struct {
		name     string
		features []string
	}{
		{"track-app", []string{adb.FeatureTrackApp, adb.FeatureAppInfo}},
		{"older device", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dev, flags := appDevice(t, tc.features...)
			vm := jvmtest.Start(t, "Debuggee", "1")
			dev.AddApp(adbtest.Process{PID: 4242, Addr: vm.Addr, Name: "com.example.debuggee", Architecture: "x86_64", AnswerHELO: true})
			remoteProcess(t, dev, 77, "com.example.debuggee")
			want := "4242  com.example.debuggee         debuggable  x86_64\n" +
				"77    com.example.debuggee:remote  debuggable  x86_64\n"
			var out, errOut bytes.Buffer
			require.Eventually(t, func() bool {
				out.Reset()
				return Run(context.Background(), append(flags, "-list"), &out, &errOut) == 0 && out.String() == want
			}, 30*time.Second, 20*time.Millisecond, "%q %s", out.String(), errOut.String())

			out.Reset()
			require.Equal(t, 0, Run(context.Background(), append(flags, "-list", "-json"), &out, &errOut), errOut.String())
			var got []struct {
				PID          int    `json:"pid"`
				Name         string `json:"name"`
				Debuggable   bool   `json:"debuggable"`
				Architecture string `json:"architecture"`
			}
			require.NoError(t, json.Unmarshal(out.Bytes(), &got))
			require.Len(t, got, 2)
			require.Equal(t, 4242, got[0].PID)
			require.Equal(t, "com.example.debuggee", got[0].Name)
			require.True(t, got[0].Debuggable)
			require.Equal(t, "x86_64", got[0].Architecture)
			require.Equal(t, "com.example.debuggee:remote", got[1].Name)
			// The VM behind the HELO shim was never attached by -list: it still
			// waits for its debugger.
			transcript, _ := jvmtest.RunDriver(t, vm.Addr, jvmtest.DriverOptions{Stops: 1})
			require.Contains(t, transcript, "marker")
		})
	}
}

// -app attaches to the process with that name (not to the app's :remote
// process, which it lists), and when the app restarts under a new pid the
// next debugger session reaches the new VM. Transcripts equal direct ones.
func TestAppFollowsTheAppAcrossARestart(t *testing.T) {
	opts := jvmtest.DriverOptions{Stops: 1}
	direct, _ := jvmtest.RunDriver(t, jvmtest.Start(t, "Debuggee", "1").Addr, opts)

	dev, flags := appDevice(t, adb.FeatureTrackApp, adb.FeatureAppInfo)
	const name = "com.example.debuggee"
	first := jvmtest.Start(t, "Debuggee", "1")
	dev.AddApp(adbtest.Process{PID: 1001, Addr: first.Addr, Name: name, Architecture: "x86_64"})
	remoteProcess(t, dev, 1002, name)
	addr, errOut := startProxy(t, append(flags, "-app", name)...)
	waitFor(t, errOut, name+" runs as pid 1001")
	waitFor(t, errOut, "the app's other processes (-app attaches to "+name+" only): "+name+":remote (pid 1002)")
	got, _ := jvmtest.RunDriver(t, addr, opts)
	require.Equal(t, direct, got)

	// The app ends and starts again under another pid; the next session
	// reaches the new VM.
	require.True(t, first.Wait(30*time.Second), "the first VM ended with its program")
	dev.RemoveProcess(1001)
	second := jvmtest.Start(t, "Debuggee", "1")
	dev.AddApp(adbtest.Process{PID: 2001, Addr: second.Addr, Name: name, Architecture: "x86_64"})
	var jc *jdwp.Conn
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return false
		}
		if jdwp.DebuggerHandshake(c, 10*time.Second) != nil {
			c.Close()
			return false
		}
		jc = jdwp.NewConn(c)
		var sizes jdwp.VMIDSizesReply
		if jc.Call(context.Background(), &jdwp.VMIDSizesCommand{}, &sizes) == nil {
			return true
		}
		jc.Close()
		return false
	}, 30*time.Second, 10*time.Millisecond, "a session through -app reaches the new VM: %s", errOut.String())
	// It dies during a session: the debugger sees the VM go.
	second.Kill()
	dev.RemoveProcess(2001)
	select {
	case <-jc.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the debugger's connection outlived the VM")
	}
	jc.Close()

	// And starts again: a whole session through -app equals a direct one.
	third := jvmtest.Start(t, "Debuggee", "1")
	dev.AddApp(adbtest.Process{PID: 3001, Addr: third.Addr, Name: name, Architecture: "x86_64"})
	got, _ = jvmtest.RunDriver(t, addr, opts)
	require.Equal(t, direct, got)
}

// -app waits for an app that is not running yet, says so once, and the
// debugger's session reaches it when it starts (2 s later, on an older
// device: named over HELO).
func TestAppWaitsForTheAppToStart(t *testing.T) {
	opts := jvmtest.DriverOptions{Stops: 1}
	direct, _ := jvmtest.RunDriver(t, jvmtest.Start(t, "Debuggee", "1").Addr, opts)
	dev, flags := appDevice(t)
	const name = "com.example.later"
	addr, errOut := startProxy(t, append(flags, "-app", name)...)
	waitFor(t, errOut, name+" is not running on device "+dev.Addr+": waiting for it to start")

	vm := jvmtest.Start(t, "Debuggee", "1")
	started := time.AfterFunc(2*time.Second, func() {
		dev.AddApp(adbtest.Process{PID: 3001, Addr: vm.Addr, Name: name, Architecture: "x86_64", AnswerHELO: true})
	})
	defer started.Stop()
	got, _ := jvmtest.RunDriver(t, addr, opts) // connects now; its session waits for the app
	require.Equal(t, direct, got)
	require.Equal(t, 1, strings.Count(errOut.String(), name+" is not running"), "said once: %s", errOut.String())
	waitFor(t, errOut, name+" runs as pid 3001")
}

// An unknown name waits without error until interrupted, and -list does
// not show it.
func TestAnUnknownAppWaitsUntilInterrupted(t *testing.T) {
	_, flags := appDevice(t, adb.FeatureTrackApp, adb.FeatureAppInfo)
	ctx, cancel := context.WithCancel(context.Background())
	errOut := &logtest.Buffer{}
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, append(flags, "-app", "com.example.nothere", "-listen", "127.0.0.1:0"), &bytes.Buffer{}, errOut)
	}()
	waitFor(t, errOut, "com.example.nothere is not running")
	var out bytes.Buffer
	require.Equal(t, 0, Run(context.Background(), append(flags, "-list"), &out, errOut))
	require.NotContains(t, out.String(), "nothere")
	cancel()
	require.Equal(t, 0, <-done, "interrupted, not an error: %s", errOut.String())
	require.NotContains(t, errOut.String(), "scache proxy:", "no error line")
}
