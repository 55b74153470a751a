package proxycmd

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/internal/latency"
	"github.com/jdwpscache/scache/internal/nettest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

// BenchmarkViaResume measures how long a -via session takes to come back
// after its channel drops, at 20 ms round trip: from the link's return to
// the answer of the debugger's next command, against a round trip through
// the session. The channel stands in for ssh: the -via command is a TCP
// client (bash's /dev/tcp) through a latency link and a Cutter to a server
// here that, like sshd, starts the near half (-stdio, in a session of its
// own) per connection and closes its standard input and output when the
// connection ends. Both halves forward only (-mode off): every command
// crosses.
func BenchmarkViaResume(b *testing.B) {
	jvmtest.Require(b)
	if _, err := exec.LookPath("bash"); err != nil {
		b.Skip("bash (for /dev/tcp) is not installed")
	}
	dir := b.TempDir()
	bin := buildScache(b, dir)
	vm := jvmtest.Start(b, "Debuggee", "3")
	require.NoError(b, os.Mkdir(filepath.Join(dir, "run"), 0o700))
	sshd := standInSSHD(b, bin, vm.Addr, dir)
	link, err := latency.Listen(sshd, 10*time.Millisecond)
	require.NoError(b, err)
	defer link.Close()
	cutter := nettest.NewCutter(b, link.Addr)
	_, port, err := net.SplitHostPort(cutter.Addr)
	require.NoError(b, err)
	command := fmt.Sprintf(`bash -c 'exec 3<>/dev/tcp/127.0.0.1/%s; cat <&3 & exec cat >&3'`, port)
	far, log := startProxy(b, "-split", "far", "-mode", "off", "-via", command)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dbg, err := jdwp.Dial(ctx, far)
	near, _ := os.ReadFile(filepath.Join(dir, "near.log"))
	require.NoError(b, err, "the far half logged:\n%s\nthe near halves:\n%s", log, near)
	defer dbg.Close()
	call := func() time.Duration {
		start := time.Now()
		require.NoError(b, dbg.Call(ctx, &jdwp.VMVersionCommand{}, nil), "the far half logged:\n%s", log)
		return time.Since(start)
	}
	call()
	var up, back time.Duration
	b.ResetTimer()
	for range b.N {
		up += call()
		cutter.Reset()
		cutter.Restore()
		back += call()
	}
	b.StopTimer()
	dbg.Close() // the session ends on both sides while the link is up: no near half waits for it
	require.Eventually(b, func() bool {
		near, _ := os.ReadFile(filepath.Join(dir, "near.log"))
		return strings.Contains(string(near), "the split session ended")
	}, time.Minute, time.Millisecond)
	b.ReportMetric(float64(back.Microseconds())/1000/float64(b.N), "back_ms")
	b.ReportMetric(float64(up.Microseconds())/1000/float64(b.N), "rtt_ms")
	b.ReportMetric(float64(back)/float64(up), "back/rtt")
}

// standInSSHD listens on loopback and, for each connection, starts the
// near half as sshd would (its own session; standard input and output on
// the connection), with its rendezvous in dir/run (and its log in
// dir/near.log). It returns its address.
func standInSSHD(b *testing.B, bin, vmAddr, dir string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(b, err)
	b.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			cmd := exec.Command(bin, "proxy", "-split", "near", "-stdio", "-mode", "off", "-vm", vmAddr)
			cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+filepath.Join(dir, "run"))
			cmd.Stdin, cmd.Stdout = conn, conn
			logFile, err := os.OpenFile(filepath.Join(dir, "near.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
			if err == nil {
				cmd.Stderr = logFile
			}
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			if cmd.Start() != nil {
				conn.Close()
				if logFile != nil {
					logFile.Close()
				}
				continue
			}
			go func() {
				_ = cmd.Wait() // its input and output end with the connection
				conn.Close()
				if logFile != nil {
					logFile.Close()
				}
			}()
		}
	}()
	return ln.Addr().String()
}
