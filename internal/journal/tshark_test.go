package journal_test

import (
	"bufio"
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/journal"
	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
)

// capture runs tshark on the loopback interface for one TCP port, writing
// format ("pcap" or "pcapng") to a file; stop ends it and returns the file.
// It returns once tshark has captured a probe connection, so that nothing
// after it is missed.
func capture(t *testing.T, port, format string) (stop func() string) {
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

// TestImportOfARealCapture captures a real JDWP session between our client
// and a HotSpot VM with tshark, then imports it: the records are the packets
// the client sent and received, with the debugger told from the VM.
func TestImportOfARealCapture(t *testing.T) {
	for _, format := range []string{"pcapng", "pcap"} {
		t.Run(format, func(t *testing.T) {
			vm := jvmtest.Start(t, "Debuggee", "1")
			_, port, _ := strings.Cut(vm.Addr, ":")
			stop := capture(t, port, format)

			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c, err := jdwp.Dial(ctx, vm.Addr)
			require.NoError(t, err)
			var sent, received [][]byte
			for _, cmd := range []jdwp.CommandMessage{&jdwp.VMVersionCommand{}, &jdwp.VMIDSizesCommand{},
				&jdwp.VMAllClassesCommand{}, &jdwp.VMAllThreadsCommand{}} {
				data := jdwp.Marshal(cmd, jdwp.DefaultIDSizes)
				reply, err := c.Send(ctx, cmd.Command(), data)
				require.NoError(t, err)
				sent = append(sent, jdwp.AppendCommand(nil, jdwp.PacketID(reply), cmd.Command(), data))
				received = append(received, reply)
			}
			_, err = c.Send(ctx, jdwp.CmdVirtualMachineDispose, nil)
			require.NoError(t, err)
			c.Close()
			require.True(t, vm.Wait(30*time.Second))

			sessions, err := journal.ReadCaptureFile(stop())
			require.NoError(t, err)
			require.Len(t, sessions, 1)
			s := sessions[0]
			require.Equal(t, port, strconv.Itoa(int(s.VM.Port())))
			var up, down [][]byte
			for _, r := range s.Records {
				if r.Direction == scache.Upstream {
					up = append(up, r.Packet)
				} else if h, _ := jdwp.ParseHeader(r.Packet); h.IsReply() {
					down = append(down, r.Packet)
				}
			}
			require.Equal(t, sent, up[:len(sent)])
			require.Equal(t, received, down[:len(received)])
		})
	}
}
