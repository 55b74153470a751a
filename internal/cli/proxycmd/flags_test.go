package proxycmd

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/jdwpscache/scache/ddm"
	"github.com/jdwpscache/scache/ddm/ddmtest"
	"github.com/jdwpscache/scache/internal/cli/command"
	"github.com/jdwpscache/scache/internal/observe"
	"github.com/stretchr/testify/require"
)

// Every flag is checked before the proxy listens, dials or asks the adb
// server: with -listen at an address already taken and an adb server
// that is not there, a wrong flag is reported as itself with status 2, not
// as the address in use. -share refuses the flags that follow one
// debugger's session, and says why.
func TestFlagsAreCheckedBeforeAnythingListens(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	listen := []string{"-listen", taken.Addr().String()}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-mode", "bogus"}, "scache proxy: -mode: "},
		{[]string{"-split", "middle"}, "near or far"},
		{[]string{"-share", "-split", "near"}, "-share and -split"},
		{[]string{"-share", "-v"}, "-share with -v: these follow one debugger's session"},
		{[]string{"-share", "-journal", "j.sctrace", "-timeline", "t.json"}, "-share with -journal, -timeline"},
		{[]string{"stray"}, `unexpected arguments ["stray"]`},
		{[]string{"-split", "near", "-listen", "0.0.0.0:0"}, "beyond loopback anyone who reaches the port would run code in the VM; make a key (scache keygen FILE)"},
		{[]string{"-via", "ssh host"}, "-via reaches the near half from the far half: give -split far"},
		{[]string{"-stdio", "-split", "far"}, "-stdio serves the near half's end of a tunnel: give -split near"},
		{[]string{"-key", "k"}, "-key keys the tunnel of a split proxy"},
		{[]string{"-split", "far", "-key", "/nonexistent/k"}, "reading the tunnel key"},
		{[]string{"-journal", filepath.Join(t.TempDir(), "missing", "j.sctrace")}, "scache proxy: "},
		// The adb targets.
		{[]string{"-pid", "1", "-mode", "bogus"}, "scache proxy: -mode: "},
		{[]string{"-pid", "1", "-split", "far"}, "-split far reaches the near half (-vm or -via); -app and -pid go to the near half"},
		{[]string{"-pid", "1", "-app", "com.example"}, "-pid and -app: give one"},
		{[]string{"-pid", "-3"}, "-pid -3: a process id is positive"},
		{[]string{"-pid", "1", "-vm", "127.0.0.1:5005"}, "-vm and -app or -pid: give one"},
		{[]string{"-app", "com.example", "-json"}, "-json goes with -list"},
		{[]string{"-serial", "emulator-5554"}, "-serial and -adb choose the device for -app or -pid"},
		{[]string{"-pid", "1", "stray"}, `unexpected arguments ["stray"]`},
		{[]string{"-pid", "1", "-split", "near", "-listen", "0.0.0.0:0"}, "beyond loopback anyone who reaches the port would run code in the VM"},
		{[]string{"-pid", "1", "-key", "k"}, "-key keys the tunnel of a split proxy: give -split near or -split far"},
	} {
		code, _, errOut := runProxy(append(append([]string{}, listen...), tc.args...)...)
		require.Equal(t, 2, code, "%v: %s", tc.args, errOut)
		require.Contains(t, errOut, tc.want, "%v", tc.args)
		require.NotContains(t, errOut, "address already in use", "%v", tc.args)
	}
	// Flags that hold reach the listener, which finds its address taken.
	code, _, errOut := runProxy(append(listen, "-share", "-stats", filepath.Join(t.TempDir(), "s.json"))...)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "address already in use")
}

// SIGTERM ends the proxy as SIGINT does: the session in progress ends and
// its stats are written. The proxy runs as its own process, a DDM tool
// attached through it to a VM.
func TestSIGTERMWritesTheSessionsStats(t *testing.T) {
	dir := t.TempDir()
	bin := buildScache(t, dir)

	vm, err := ddmtest.Start(ddmtest.Config{PID: 1, VMIdent: "FakeVM", AppName: "app"})
	require.NoError(t, err)
	defer vm.Close()
	statsFile := filepath.Join(dir, "stats.json")
	cmd := exec.Command(bin, "proxy", "-listen", "127.0.0.1:0", "-vm", vm.Addr, "-stats", statsFile)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill() }()

	// The proxy says where it listens.
	lines := bufio.NewScanner(stderr)
	var addr string
	for addr == "" && lines.Scan() {
		if m := readyLine.FindStringSubmatch(lines.Text()); m != nil {
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

// -h prints the usage line, says what the command is for, gives an
// example and lists the flags, with status 0.
func TestHelpSaysWhatItIsFor(t *testing.T) {
	code, out, errOut := runProxy("-h")
	require.Equal(t, 0, code)
	require.Empty(t, out)
	lines := strings.Split(errOut, "\n")
	require.Equal(t, "usage: scache proxy [flags]", lines[0])
	require.Contains(t, errOut, "\n\n"+command.Wrap(about.Summary)+"\n\n", "the summary follows the usage line")
	require.Contains(t, errOut, "Example:\n  scache proxy -listen 127.0.0.1:8700 -vm 127.0.0.1:5005 -v\n")
	for _, flag := range []string{"-listen", "-vm", "-app", "-pid", "-list", "-split", "-via", "-key", "-share", "-stats", "-journal", "-timeline", "-v"} {
		require.Regexp(t, `\n  `+flag+`[ \t\n]`, errOut, "-h lists %s", flag)
	}
}
