package proxycmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/cli/keygencmd"
	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache/transport"
	"github.com/stretchr/testify/require"
)

// The far half reaches the near half through a command's standard input
// and output (-via), as through ssh: here the command runs the near half
// itself (-stdio) on this machine. A JDI session's transcript equals the
// direct one, twice: a command per session.
func TestViaACommandStandingInForSSH(t *testing.T) {
	bin := buildScache(t, t.TempDir())
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir()) // the near halves' rendezvous, not the user's
	opts := jvmtest.DriverOptions{Stops: 2}
	direct, _ := jvmtest.RunDriver(t, jvmtest.Start(t, "Debuggee", "2").Addr, opts)
	for range 2 {
		vm := jvmtest.Start(t, "Debuggee", "2")
		far, _ := startProxy(t, "-split", "far", "-via", bin+" proxy -split near -stdio -vm "+vm.Addr)
		got, _ := jvmtest.RunDriver(t, far, opts)
		require.Equal(t, direct, got)
	}
}

// Two halves with the same key file (scache keygen, -key) carry a JDI session
// over TLS; its transcript equals the direct one.
func TestAKeyedTunnelBetweenRealHalves(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tunnel.key")
	require.Equal(t, 0, keygencmd.Command.Run(context.Background(), []string{path}, io.Discard, io.Discard))
	_, err := transport.LoadTunnelKey(path)
	require.NoError(t, err)
	opts := jvmtest.DriverOptions{Stops: 2}
	direct, _ := jvmtest.RunDriver(t, jvmtest.Start(t, "Debuggee", "2").Addr, opts)
	vm := jvmtest.Start(t, "Debuggee", "2")
	near, _ := startProxy(t, "-vm", vm.Addr, "-split", "near", "-key", path)
	far, _ := startProxy(t, "-vm", near, "-split", "far", "-key", path)
	got, _ := jvmtest.RunDriver(t, far, opts)
	require.Equal(t, direct, got)
}

// When the -via command dies in the middle of a session, the far half
// names it: the command, how it ended (here killed by a signal) and its
// last line on standard error.
func TestAViaCommandThatDiesIsNamed(t *testing.T) {
	dir := t.TempDir()
	bin := buildScache(t, dir)
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir()) // the near halves' rendezvous, not the user's
	vm := jvmtest.Start(t, "Debuggee", "-1")
	pidFile := filepath.Join(dir, "near.pid")
	command := fmt.Sprintf("echo $$ > %s; echo 'stand-in: connected to the near host' >&2; exec %s proxy -split near -stdio -vm %s 2>/dev/null", pidFile, bin, vm.Addr)
	far, log := startProxy(t, "-split", "far", "-via", command)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dbg, err := jdwp.Dial(ctx, far)
	require.NoError(t, err)
	defer dbg.Close()
	require.NoError(t, dbg.Call(ctx, &jdwp.VMIDSizesCommand{}, nil), "the session runs")
	killAll(t, pidFile)
	require.Eventually(t, func() bool { return strings.Contains(log.String(), "signal: killed") }, 30*time.Second, time.Millisecond)
	require.Contains(t, log.String(), `the -via command \"echo $$ > `)
	require.Contains(t, log.String(), `its last line on standard error: \"stand-in: connected to the near host\"`)
	require.NotContains(t, log.String(), "without an end frame")
	for _, line := range strings.Split(log.String(), "\n") {
		if strings.Contains(line, "signal: killed") {
			t.Log(line)
		}
	}
}

// A -via session outlives its command, as a mosh session outlives its ssh
// login. The command stands in for ssh: it starts the near half in a
// session of its own (as sshd's child outlives the client) and relays to
// it through FIFOs; killing the relay is the ssh connection dropping. The
// near half keeps the VM and waits; the far half runs the command again,
// and the new near half relays the resume to the waiting one, found in
// the rendezvous directory: the debugger's commands go on being answered.
func TestAViaSessionOutlivesItsCommand(t *testing.T) {
	dir := t.TempDir()
	bin := buildScache(t, dir)
	vm := jvmtest.Start(t, "Debuggee", "-1")
	runtimeDir := filepath.Join(dir, "run") // the near halves' XDG_RUNTIME_DIR
	require.NoError(t, os.Mkdir(runtimeDir, 0o700))
	relays := filepath.Join(dir, "relays") // each run's relay processes, a line per run
	nearLog := filepath.Join(dir, "near.log")
	command := fmt.Sprintf(`d=$(mktemp -d) && mkfifo $d/in $d/out && `+
		`(XDG_RUNTIME_DIR=%s setsid %s proxy -split near -stdio -vm %s <$d/in >$d/out 2>>%s &) && `+
		`{ cat $d/out & echo $! $$ >> %s; exec cat > $d/in; }`, runtimeDir, bin, vm.Addr, nearLog, relays)
	far, log := startProxy(t, "-split", "far", "-via", command)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dbg, err := jdwp.Dial(ctx, far)
	require.NoError(t, err)
	defer dbg.Close()
	require.NoError(t, dbg.Call(ctx, &jdwp.VMIDSizesCommand{}, nil), "the session runs")

	killAll(t, relays) // the first run's relay: the connection drops
	// A command only the VM can answer (a new string object each time):
	// it crosses the link once the session resumed.
	reply, err := dbg.Send(ctx, jdwp.CmdVirtualMachineCreateString, []byte("\x00\x00\x00\x05after"))
	require.NoError(t, err, "the far half logged:\n%s", log)
	h, err := jdwp.ParseHeader(reply)
	require.NoError(t, err)
	require.Equal(t, jdwp.ErrNone, h.ErrorCode)

	b, err := os.ReadFile(relays)
	require.NoError(t, err)
	require.Len(t, strings.Split(strings.TrimSpace(string(b)), "\n"), 2, "the command ran again")
	require.Contains(t, log.String(), "the link to the near half is back: the session goes on")
	near, err := os.ReadFile(nearLog)
	require.NoError(t, err)
	require.Contains(t, string(near), "relaying a resumed session to the near half that holds it")
	require.Contains(t, string(near), "the link to the far half is back: the session goes on")
}

// killAll kills the processes whose ids a command wrote to file (started
// by this test's -via commands).
func killAll(t *testing.T, file string) {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	for _, field := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(field)
		require.NoError(t, err)
		require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	}
}

// A -via command that fails the same way at every run (ssh while the
// network is down: the far half runs it again and again) says so once;
// the count of repeats comes with the next line that differs.
func TestAViaCommandFailingAgainSaysSoOnce(t *testing.T) {
	back := filepath.Join(t.TempDir(), "back")
	var stderr strings.Builder
	dial := viaDialer(fmt.Sprintf("if [ -e %s ]; then echo 'stand-in: connected' >&2; else echo 'ssh: connect to host phone port 22: Network is unreachable' >&2; exit 255; fi", back), &stderr)
	run := func() {
		c, err := dial(context.Background())
		require.NoError(t, err)
		_, err = io.ReadAll(c)
		require.ErrorContains(t, err, "ended (exit status", "the output ends, and the command with it")
		c.Close() // waits for the command's exit: its standard error is passed on
	}
	for range 3 {
		run()
	}
	require.Equal(t, "ssh: connect to host phone port 22: Network is unreachable\n", stderr.String())
	require.NoError(t, os.WriteFile(back, nil, 0o600))
	run()
	require.Equal(t, "ssh: connect to host phone port 22: Network is unreachable\n(the line above came 2 more times)\nstand-in: connected\n", stderr.String())
}

// quietRepeats passes each line once while it repeats, and says how many
// times it came once another line comes.
func TestQuietRepeats(t *testing.T) {
	var out strings.Builder
	q := &quietRepeats{w: &out}
	for _, l := range []string{"a", "a", "a", "b", "", "", "b"} {
		q.line(l)
	}
	require.Equal(t, "a\n(the line above came 2 more times)\nb\n\n\nb\n", out.String())
}
