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
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Capture runs tshark on the loopback interface for one TCP port, writing
// format ("pcap" or "pcapng") to a file; stop ends it and returns the file.
//
// tshark starts capturing some time after it starts, and writes packets some
// time after they pass: Capture returns once tshark has seen a probe
// connection to a port of its own, and stop first waits until a last probe
// is seen, so that everything in between is in the file.
func Capture(t testing.TB, port, format string) (stop func() string) {
	if _, err := exec.LookPath("tshark"); err != nil {
		t.Fatal("tshark not found: run the README's test command (make test), which installs it")
	}
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() {
		for {
			c, err := probe.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, probePort := splitPort(probe.Addr().String())

	path := filepath.Join(t.TempDir(), "session."+format)
	cmd := exec.Command("tshark", "-i", "lo", "-f", "tcp port "+port+" or tcp port "+probePort,
		"-F", format, "-w", path, "-P", "-l")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		probe.Close()
	})

	// Every probe connection comes from a new client port: seen reports each.
	var mu sync.Mutex
	seenPorts := map[string]bool{}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			mu.Lock()
			for _, f := range strings.Fields(sc.Text()) {
				seenPorts[f] = true
			}
			mu.Unlock()
		}
	}()
	// probeSeen probes until tshark shows one of this round's probes: since it
	// shows packets in order, everything before the round is then captured.
	probeSeen := func() {
		var mine []string
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			if c, err := net.Dial("tcp", probe.Addr().String()); err == nil {
				_, client := splitPort(c.LocalAddr().String())
				c.Close()
				mine = append(mine, client)
			}
			time.Sleep(20 * time.Millisecond) // the probing pace, not a synchronisation: the loop waits on the output
			mu.Lock()
			for _, p := range mine {
				if seenPorts[p] {
					mu.Unlock()
					return
				}
			}
			mu.Unlock()
		}
		t.Fatal("tshark showed no probe within 60s")
	}
	probeSeen()
	return func() string {
		probeSeen()
		require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
		_ = cmd.Wait()
		return path
	}
}

func splitPort(addr string) (string, string) {
	h, p, _ := net.SplitHostPort(addr)
	return h, p
}
