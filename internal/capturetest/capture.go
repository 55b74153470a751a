// Package capturetest captures loopback traffic with tshark for tests:
// captures of real sessions checked by our importer or by Wireshark's
// dissectors. The README's test command installs tshark.
package capturetest

import (
	"bufio"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Capture runs tshark on the loopback interface for one TCP port, writing
// format ("pcap" or "pcapng") to a file; stop ends it and returns the file.
// It returns once tshark has captured a probe connection, so that nothing
// after it is missed.
func Capture(t testing.TB, port, format string) (stop func() string) {
	if _, err := exec.LookPath("tshark"); err != nil {
		t.Fatal("tshark not found: run the README's test command (make test), which installs it")
	}
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer probe.Close()
	go func() {
		for {
			c, err := probe.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, probePort, _ := net.SplitHostPort(probe.Addr().String())

	path := filepath.Join(t.TempDir(), "session."+format)
	cmd := exec.Command("tshark", "-i", "lo", "-f", "tcp port "+port+" or tcp port "+probePort,
		"-F", format, "-w", path, "-P", "-l")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	seen := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		closed := false
		for sc.Scan() {
			if !closed && strings.Contains(sc.Text(), probePort) {
				close(seen)
				closed = true
			}
		}
	}()
	deadline := time.After(60 * time.Second)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-seen:
			return func() string {
				require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
				_ = cmd.Wait()
				return path
			}
		case <-tick.C:
			if c, err := net.Dial("tcp", probe.Addr().String()); err == nil {
				c.Close()
			}
		case <-deadline:
			t.Fatal("tshark captured nothing within 60s")
		}
	}
}
