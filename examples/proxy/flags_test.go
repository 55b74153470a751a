package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/jdwpscache/scache/ddm"
	"github.com/jdwpscache/scache/ddm/ddmtest"
	"github.com/jdwpscache/scache/internal/observe"
	"github.com/stretchr/testify/require"
)

// Every flag is checked before the proxy listens: with -listen at an
// address already taken, a wrong flag is reported as itself, not as the
// address in use. -share refuses the flags that follow one debugger's
// session, and says why.
func TestFlagsAreCheckedBeforeAnythingListens(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	listen := []string{"-listen", taken.Addr().String()}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-mode", "bogus"}, "-mode: "},
		{[]string{"-split", "middle"}, "near or far"},
		{[]string{"-share", "-split", "near"}, "-share and -split"},
		{[]string{"-share", "-v"}, "-share with -v: these follow one debugger's session"},
		{[]string{"-share", "-journal", "j.sctrace", "-timeline", "t.json"}, "-share with -journal, -timeline"},
		{[]string{"stray"}, `unexpected arguments ["stray"]`},
		{[]string{"-split", "near", "-listen", "0.0.0.0:0"}, "beyond loopback anyone who reaches the port would run code in the VM; make a key (proxy -genkey FILE)"},
		{[]string{"-via", "ssh host"}, "-via reaches the near half from the far half: give -split far"},
		{[]string{"-stdio", "-split", "far"}, "-stdio serves the near half's end of a tunnel: give -split near"},
		{[]string{"-key", "k"}, "-key keys the tunnel of a split proxy"},
		{[]string{"-split", "far", "-key", "/nonexistent/k"}, "reading the tunnel key"},
	} {
		err := run(context.Background(), append(listen, tc.args...))
		require.ErrorContains(t, err, tc.want, "%v", tc.args)
		require.NotContains(t, err.Error(), "address already in use", "%v", tc.args)
	}
	// Flags that hold reach the listener, which finds its address taken.
	err = run(context.Background(), append(listen, "-share", "-stats", "s.json"))
	require.ErrorContains(t, err, "address already in use")
}

// SIGTERM ends the proxy as SIGINT does: the session in progress ends and
// its stats are written. The proxy runs as its own process, a DDM tool
// attached through it to a VM.
func TestSIGTERMWritesTheSessionsStats(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "proxy")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)

	vm, err := ddmtest.Start(ddmtest.Config{PID: 1, VMIdent: "FakeVM", AppName: "app"})
	require.NoError(t, err)
	defer vm.Close()
	statsFile := filepath.Join(dir, "stats.json")
	cmd := exec.Command(bin, "-listen", "127.0.0.1:0", "-vm", vm.Addr, "-stats", statsFile)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill() }()

	// The proxy says where it listens.
	ready := regexp.MustCompile(`proxy ready listen=(\S+)`)
	lines := bufio.NewScanner(stderr)
	var addr string
	for addr == "" && lines.Scan() {
		if m := ready.FindStringSubmatch(lines.Text()); m != nil {
			addr = m[1]
		}
	}
	require.NotEmpty(t, addr, "the proxy logged where it listens")
	go func() {
		for lines.Scan() { // keep draining the log
		}
	}()

	client, err := ddm.Dial(context.Background(), addr)
	require.NoError(t, err)
	defer client.Close()
	require.Contains(t, client.Features(), "hprof-heap-dump", "the session went through the proxy")

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, cmd.Wait(), "the proxy ends cleanly on SIGTERM")
	b, err := os.ReadFile(statsFile)
	require.NoError(t, err, "the session's stats were written")
	var st observe.SessionStats
	require.NoError(t, json.Unmarshal(b, &st))
	require.Positive(t, st.PacketsUp, "the stats are of the session that ran")
}

// -h says first what the command is for.
func TestHelpStartsWithWhatItIsFor(t *testing.T) {
	var out bytes.Buffer
	usageOutput = &out
	t.Cleanup(func() { usageOutput = os.Stderr })
	require.ErrorIs(t, run(context.Background(), []string{"-h"}), flag.ErrHelp)
	first, _, _ := strings.Cut(out.String(), "\n")
	require.Equal(t, "proxy puts scache between a Java debugger and a VM: point the debugger at -listen, the proxy dials -vm.", first)
}
