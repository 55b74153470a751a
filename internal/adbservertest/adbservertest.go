// Package adbservertest starts real adb servers for tests, each on a private
// port (never the default 5037, so a developer's own server is left alone),
// and connects them to emulated devices.
package adbservertest

import (
	"context"
	"net"
	"os/exec"
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
	out, err := exec.Command("adb", "-P", port, "start-server").CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Cleanup(func() { _ = exec.Command("adb", "-P", port, "kill-server").Run() })
	return &Server{Port: port, Client: &adb.Client{Addr: "127.0.0.1:" + port}}
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
