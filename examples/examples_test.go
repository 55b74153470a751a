// Package examples_test builds each example and runs it as a user would:
// the relay and the hand-driven Speculator between a real VM and the JDI
// driver, the thread monitor against a DDM-aware VM.
package examples_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jdwpscache/scache/ddm"
	"github.com/jdwpscache/scache/ddm/ddmtest"
	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/stretchr/testify/require"
)

// TestMain removes what jvmtest compiled once the tests are done.
func TestMain(m *testing.M) { os.Exit(jvmtest.Main(m)) }

// build builds the example in dir and returns the program's path.
func build(t *testing.T, dir string) string {
	bin := filepath.Join(t.TempDir(), dir)
	out, err := exec.Command("go", "build", "-o", bin, "./"+dir).CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// start runs the program with args and returns its standard output, line
// by line, and a function that waits for it to end and returns the rest.
func start(t *testing.T, bin string, args ...string) (*bufio.Scanner, func() string) {
	cmd := exec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := bufio.NewScanner(stdout)
	return lines, func() string {
		var rest strings.Builder
		for lines.Scan() {
			rest.WriteString(lines.Text() + "\n")
		}
		require.NoError(t, cmd.Wait(), "%s", rest.String())
		return rest.String()
	}
}

// The relay and the hand-driven Speculator serve one JDI session between
// the driver and a real VM: its transcript equals a direct one, and some of
// its commands were answered from speculation.
func TestTheProxyExamplesServeAJDISession(t *testing.T) {
	opts := jvmtest.DriverOptions{Stops: 2}
	direct, _ := jvmtest.RunDriver(t, jvmtest.Start(t, "Debuggee", "2").Addr, opts)
	for _, example := range []string{"relay", "speculator"} {
		t.Run(example, func(t *testing.T) {
			vm := jvmtest.Start(t, "Debuggee", "2")
			lines, wait := start(t, build(t, example), "-listen", "127.0.0.1:0", "-vm", vm.Addr)
			require.True(t, lines.Scan())
			addr, ok := strings.CutPrefix(lines.Text(), "listening on ")
			require.True(t, ok, "the first line says where it listens: %q", lines.Text())
			got, _ := jvmtest.RunDriver(t, addr, opts)
			require.Equal(t, direct, got)
			out := wait()
			m := regexp.MustCompile(`answered from speculation: (\d+) commands`).FindStringSubmatch(out)
			require.NotNil(t, m, "%s", out)
			answered, _ := strconv.Atoi(m[1])
			require.Positive(t, answered, "%s", out)
		})
	}
}

// The thread monitor prints a DDM-aware VM's threads and its status
// updates, and ends after -updates of them.
func TestTheThreadMonitorExample(t *testing.T) {
	vm, err := ddmtest.Start(ddmtest.Config{PID: 1, VMIdent: "FakeVM", AppName: "app",
		Threads: []ddmtest.Thread{{ID: 1, Name: "main", Status: ddm.StateRunning}, {ID: 5, Name: "RenderThread", Status: ddm.StateNative}}})
	require.NoError(t, err)
	defer vm.Close()
	lines, wait := start(t, build(t, "threadmon"), "-vm", vm.Addr, "-updates", "2")
	var out strings.Builder
	for lines.Scan() {
		out.WriteString(lines.Text() + "\n")
	}
	out.WriteString(wait())
	require.Contains(t, out.String(), `created 5 "RenderThread"`)
	require.Equal(t, 2, strings.Count(out.String(), "status of 2 threads"), "%s", out.String())
}
