// Package adbservertest starts real adb servers for tests, each on a private
// port (never the default 5037, so a developer's own server is left alone),
// and connects them to emulated devices.
package adbservertest

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/jdwpscache/scache/adb"
	"github.com/jdwpscache/scache/adb/adbtest"
	"github.com/stretchr/testify/require"
)

// A Server is a real adb server started by a test.
type Server struct {
	Port   string      // the server's port, for `adb -P`
	Client *adb.Client // a client of this server
}

// Start starts an adb server on a free loopback port and kills it when the
// test ends. The adb binary comes from the README's test command.
func Start(t testing.TB) *Server {
	t.Helper()
	if _, err := exec.LookPath("adb"); err != nil {
		t.Fatal("adb not found: run the README's test command (make test), which installs it")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	// The server writes its log (adb.UID.log) to $TMPDIR: the test's own
	// folder, removed once the server is gone.
	logDir, err := os.MkdirTemp("", "adbservertest-")
	require.NoError(t, err)
	start := exec.Command("adb", "-P", port, "start-server")
	start.Env = append(os.Environ(), "TMPDIR="+logDir, "ANDROID_ADB_LOG_PATH="+filepath.Join(logDir, "adb.log"))
	out, err := start.CombinedOutput()
	require.NoError(t, err, "%s", out)
	addr := "127.0.0.1:" + port
	t.Cleanup(func() {
		_ = exec.Command("adb", "-P", port, "kill-server").Run()
		waitGone(addr)
		if err := os.RemoveAll(logDir); err != nil {
			t.Errorf("removing the adb server's log: %v", err)
		}
	})
	return &Server{Port: port, Client: &adb.Client{Addr: addr}}
}

// waitGone waits, for at most ten seconds, until nothing accepts
// connections at addr: a killed adb server has exited and written its last
// log line.
func waitGone(addr string) {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return
		}
		// The server still accepts: wait until it closes this connection.
		_ = c.SetReadDeadline(time.Now().Add(time.Second))
		_, _ = c.Read(make([]byte, 1))
		c.Close()
	}
}

// Addr returns the server's address, for adb.Client.Addr or a -adb flag.
func (s *Server) Addr() string { return s.Client.Addr }

// Connect makes the server connect to an emulated device (`adb connect`),
// waits until the server lists it online, and returns its serial.
func (s *Server) Connect(t testing.TB, d *adbtest.Device) string {
	t.Helper()
	out, err := exec.Command("adb", "-P", s.Port, "connect", d.Addr).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "connected to "+d.Addr)
	// The server marks the device online once the CNXN exchange is done.
	require.Eventually(t, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		devs, err := s.Client.Devices(ctx, false)
		if err != nil {
			return false
		}
		for _, dev := range devs {
			if dev.Serial == d.Addr && dev.State == "device" {
				return true
			}
		}
		return false
	}, 30*time.Second, 20*time.Millisecond)
	return d.Addr
}
