package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/internal/logtest"
	"github.com/stretchr/testify/require"
)

// TestMain removes what jvmtest compiled and the installed binary once
// the tests are done.
func TestMain(m *testing.M) {
	code := jvmtest.Main(m)
	if installDir != "" {
		os.RemoveAll(installDir)
	}
	os.Exit(code)
}

var (
	installOnce sync.Once
	installed   string // the path of the installed scache
	installErr  error
	installDir  string
)

// install runs `go install ./cmd/scache` into a directory of its own, as a
// user would (GOBIN instead of ~/go/bin), once for the package's tests.
func install(t *testing.T) string {
	t.Helper()
	installOnce.Do(func() {
		installDir, installErr = os.MkdirTemp("", "scache-bin")
		if installErr != nil {
			return
		}
		// -buildvcs=auto as go install's default: a GOFLAGS of the machine
		// may turn it off.
		cmd := exec.Command("go", "install", "-buildvcs=auto", ".")
		cmd.Env = append(os.Environ(), "GOBIN="+installDir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			installErr = &installError{err, string(out)}
			return
		}
		installed = filepath.Join(installDir, "scache")
	})
	require.NoError(t, installErr)
	return installed
}

// installError says why go install failed.
type installError struct {
	err error
	out string
}

func (e *installError) Error() string {
	return "go install ./cmd/scache: " + e.err.Error() + "\n" + e.out
}

// scache runs the installed command to its end and returns its status and
// its standard output and error.
func scache(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(install(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return code, out.String(), errOut.String()
}

// readyLine is the line scache proxy logs once it listens.
var readyLine = regexp.MustCompile(`msg="proxy ready" listen=(\S+)`)

// startProxy starts the installed `scache proxy` with args (and -listen on
// a free loopback port) and returns where it listens and its log. When the
// test ends, SIGTERM must end it with status 0.
func startProxy(t *testing.T, env []string, args ...string) (string, *logtest.Buffer) {
	t.Helper()
	log := &logtest.Buffer{}
	cmd := exec.Command(install(t), append(append([]string{"proxy"}, args...), "-listen", "127.0.0.1:0")...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = log, log
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var addr string
	require.Eventually(t, func() bool {
		if m := readyLine.FindStringSubmatch(log.String()); m != nil {
			addr = m[1]
			return true
		}
		select {
		case err := <-exited:
			t.Fatalf("scache proxy ended before it listened (%v): %s", err, log.String())
		default:
		}
		return false
	}, 60*time.Second, time.Millisecond)
	t.Cleanup(func() {
		require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
		select {
		case err := <-exited:
			require.NoError(t, err, "scache proxy ends cleanly on SIGTERM: %s", log.String())
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("scache proxy outlived SIGTERM by 30 s: %s", log.String())
		}
	})
	return addr, log
}

// The installed binary names its build: a commit when built from a clone.
func TestInstalledVersion(t *testing.T) {
	code, out, errOut := scache(t, nil, "version")
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `^scache \S+ \(.*go1\.\d+.*\)\n$`, out)
	if _, err := exec.LookPath("git"); err == nil {
		if _, err := os.Stat("../../.git"); err == nil {
			require.Contains(t, out, "commit ", "built from a clone, the build names its commit")
		}
	}
	code, dash, _ := scache(t, nil, "-version")
	require.Equal(t, 0, code)
	require.Equal(t, out, dash)
}

// scache keygen writes a key that scache proxy loads.
func TestInstalledKeygen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tunnel.key")
	code, out, errOut := scache(t, nil, "keygen", path)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "wrote the tunnel key "+path+" (fingerprint SHA256:")
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "only its owner reads the key")
	code, _, errOut = scache(t, nil, "keygen", path)
	require.Equal(t, 1, code, "an existing key is kept")
	require.Contains(t, errOut, "scache keygen: ")
}

// scache replay replays the embedded traces.
func TestInstalledReplay(t *testing.T) {
	code, out, errOut := scache(t, nil, "replay", "-mode", "scache", "-rtts", "20ms")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "Replaying the embedded traces")
	require.Contains(t, out, "scache")
}

// scache help lists the commands, and scache help proxy prints the
// proxy's flags and its example.
func TestInstalledHelp(t *testing.T) {
	code, out, _ := scache(t, nil, "help")
	require.Equal(t, 0, code)
	for _, name := range []string{"proxy", "replay", "threads", "keygen", "version"} {
		require.Contains(t, out, "\n  "+name+" ")
	}
	code, out, _ = scache(t, nil, "help", "proxy")
	require.Equal(t, 0, code)
	require.Contains(t, out, "Example:\n  scache proxy -listen 127.0.0.1:8700 -vm 127.0.0.1:5005 -v\n")
	code, _, errOut := scache(t, nil)
	require.Equal(t, 2, code, "no command")
	require.Contains(t, errOut, "usage: scache COMMAND [flags]")
}
