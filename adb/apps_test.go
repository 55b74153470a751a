package adb_test

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/jdwpscache/scache/adb"
	"github.com/jdwpscache/scache/adb/adbtest"
	"github.com/jdwpscache/scache/ddm/ddmtest"
	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// A track-app message survives its encoding, whatever the apps; and bytes
// that are no message give an error, never a panic.
func TestAppProcessesRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		apps := rapid.SliceOf(rapid.Custom(func(t *rapid.T) adb.App {
			return adb.App{PID: rapid.IntRange(1, 1<<22).Draw(t, "pid"), Name: rapid.StringMatching(`[a-z.:]{1,20}`).Draw(t, "name"),
				Debuggable: rapid.Bool().Draw(t, "debuggable"), Profileable: rapid.Bool().Draw(t, "profileable"),
				Architecture: rapid.SampledFrom([]string{"arm64", "x86_64", ""}).Draw(t, "arch")}
		})).Draw(t, "apps")
		got, err := adb.ParseAppProcesses(adb.AppendAppProcesses(nil, apps, true))
		require.NoError(t, err)
		require.ElementsMatch(t, apps, got)
		// Without app_info (Android 12 to 14) the names are not sent.
		got, err = adb.ParseAppProcesses(adb.AppendAppProcesses(nil, apps, false))
		require.NoError(t, err)
		for _, a := range got {
			require.Empty(t, a.Name)
		}
	})
	_, err := adb.ParseAppProcesses([]byte{0x0a, 0x05, 0x08})
	require.Error(t, err)
}

// namedDevice starts an emulated device with features and connects the
// real adb server to it.
func namedDevice(t *testing.T, features ...string) (*adb.Client, *adbtest.Device, adb.Selector) {
	c := adbServer(t)
	d, err := adbtest.Start(adbtest.Config{Product: "sdk_phone", Model: "Scache_Phone", Device: "emu64", Features: features})
	require.NoError(t, err)
	t.Cleanup(func() { d.Close() })
	return c, d, adb.Selector{Serial: connect(t, c, d)}
}

// TrackApps names the processes from track-app on a device that offers it
// with app_info, and over DDM HELO on one that does not: a real JVM behind
// the emulated device's HELO shim, and a DDM-aware fake VM. A process that
// starts later is listed named; one that ends leaves the list.
func TestTrackAppsNamesProcesses(t *testing.T) {
	for _, tc := range []struct {
		name     string
		features []string
	}{
		{"track-app with app_info", []string{adb.FeatureTrackApp, adb.FeatureAppInfo}},
		{"track-app without names", []string{adb.FeatureTrackApp}},
		{"an older device: track-jdwp and HELO", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, d, sel := namedDevice(t, tc.features...)
			features, err := c.Features(ctx(t), sel)
			require.NoError(t, err)
			require.Subset(t, features, tc.features)

			vm := jvmtest.Start(t, "Debuggee", "1")
			d.AddApp(adbtest.Process{PID: 4242, Addr: vm.Addr, Name: "com.example.debuggee", Architecture: "x86_64", AnswerHELO: true})
			apps, err := c.TrackApps(ctx(t), sel)
			require.NoError(t, err)
			got := next(t, apps)
			require.Equal(t, []adb.App{{PID: 4242, Name: "com.example.debuggee", Debuggable: true, Architecture: "x86_64"}}, got)

			fake, err := ddmtest.Start(ddmtest.Config{PID: 77, VMIdent: "FakeVM", AppName: "com.example.app:remote"})
			require.NoError(t, err)
			t.Cleanup(func() { fake.Close() })
			d.AddApp(adbtest.Process{PID: 77, Addr: fake.Addr, Name: "com.example.app:remote", Architecture: "x86_64"})
			got = next(t, apps)
			require.Len(t, got, 2)
			require.Equal(t, "com.example.app:remote", got[0].Name, "sorted by name")
			require.Equal(t, 77, got[0].PID)
			require.Equal(t, "com.example.debuggee", got[1].Name)

			d.RemoveProcess(4242)
			got = next(t, apps)
			require.Len(t, got, 1)
			require.Equal(t, 77, got[0].PID)
		})
	}
}

// A process not yet an app gives "<pre-initialized>" in its HELO: its name
// is the one its APNM tells right after.
func TestAppNameWaitsForAPreInitializedProcess(t *testing.T) {
	c, d, sel := namedDevice(t)
	vm, err := ddmtest.Start(ddmtest.Config{PID: 91, VMIdent: "FakeVM", AppName: "<pre-initialized>", NamedAfterHello: "com.example.late"})
	require.NoError(t, err)
	t.Cleanup(func() { vm.Close() })
	d.AddApp(adbtest.Process{PID: 91, Addr: vm.Addr})
	var app adb.App
	require.Eventually(t, func() bool { // once the server has the device online
		app, err = c.AppName(ctx(t), sel, 91)
		return err == nil
	}, 30*time.Second, 10*time.Millisecond, "%v", err)
	require.Equal(t, "com.example.late", app.Name)
	require.Equal(t, "x86_64", app.Architecture, "from the HELO's ABI")
}

// TrackApps names the processes it has not named yet at once, not one
// after another: two VMs whose JDWP connection a debugger holds keep
// AppName waiting, and both are asked before either gives up. (One after
// another, the second would be asked only once the first's NameTimeout
// closed its connection.)
func TestTrackAppsNamesProcessesAtOnce(t *testing.T) {
	c, d, sel := namedDevice(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	bothOpen := make(chan bool, 1)
	go func() {
		var held []net.Conn
		defer func() {
			for _, conn := range held {
				conn.Close()
			}
		}()
		closed := make(chan struct{}, 2)
		for len(held) < 2 {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, conn)
			go func() { // the VM hears the handshake and answers nothing
				_, _ = io.Copy(io.Discard, conn)
				closed <- struct{}{}
			}()
		}
		select {
		case <-closed:
			bothOpen <- false // the first was given up before the second was asked
		default:
			bothOpen <- true
		}
	}()
	d.AddApp(adbtest.Process{PID: 501, Addr: ln.Addr().String()})
	d.AddApp(adbtest.Process{PID: 502, Addr: ln.Addr().String()})
	apps, err := c.TrackApps(ctx(t), sel)
	require.NoError(t, err)
	got := next(t, apps)
	require.True(t, <-bothOpen, "the two processes were named one after another")
	require.Len(t, got, 2)
	for _, a := range got {
		require.Empty(t, a.Name, "a VM that answers nothing stays unnamed")
	}
}
