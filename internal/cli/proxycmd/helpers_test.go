package proxycmd

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/logtest"
	"github.com/stretchr/testify/require"
)

// readyLine is the line the proxy logs once it listens.
var readyLine = regexp.MustCompile(`msg="proxy ready" listen=(\S+)`)

// startProxy runs scache proxy with args on a free loopback port until the
// test ends, and returns where it listens and its log. The proxy must end
// with status 0 when the test cancels it.
func startProxy(t testing.TB, args ...string) (string, *logtest.Buffer) {
	t.Helper()
	log := &logtest.Buffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- Run(ctx, append([]string{"-listen", "127.0.0.1:0"}, args...), &strings.Builder{}, log) }()
	var addr string
	ended := false
	require.Eventually(t, func() bool {
		if m := readyLine.FindStringSubmatch(log.String()); m != nil {
			addr = m[1]
			return true
		}
		select {
		case code := <-done:
			ended = true
			done <- code
			return true
		default:
			return false
		}
	}, 30*time.Second, time.Millisecond)
	require.False(t, ended, "the proxy ended before it listened: %s", log.String())
	t.Cleanup(func() {
		cancel()
		require.Equal(t, 0, <-done, "%s", log.String())
	})
	return addr, log
}

// waitFor waits until the buffer holds text.
func waitFor(t *testing.T, b *logtest.Buffer, text string) {
	t.Helper()
	require.Eventually(t, func() bool { return strings.Contains(b.String(), text) }, 30*time.Second, time.Millisecond,
		"waiting for %q in %s", text, b.String())
}

// runProxy runs scache proxy with args to its end and returns its status,
// standard output and standard error.
func runProxy(args ...string) (int, string, string) {
	var out, errOut strings.Builder
	code := Run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// buildScache builds the scache command into dir and returns its path.
func buildScache(t testing.TB, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "scache")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/jdwpscache/scache/cmd/scache").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}
