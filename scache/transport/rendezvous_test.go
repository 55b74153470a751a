package transport_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/logtest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/internal/tunnel"
	"github.com/jdwpscache/scache/scache/transport"
	"github.com/stretchr/testify/require"
)

// rendezvousNear runs a near half with a rendezvous directory, and returns
// its socket there once it listens.
func rendezvousNear(t *testing.T, dir string) string {
	t.Helper()
	serveProxy(t, func(ctx context.Context) (net.Conn, error) {
		return nil, os.ErrNotExist // no session reaches a VM here
	}, transport.WithSplit(transport.NearHalf), transport.WithRendezvous(dir))
	var socket string
	require.Eventually(t, func() bool {
		m, _ := filepath.Glob(filepath.Join(dir, "near-*.sock"))
		if len(m) == 1 {
			socket = m[0]
		}
		return socket != ""
	}, 30*time.Second, time.Millisecond)
	return socket
}

// The rendezvous socket serves resumes only: a new session's hello there
// is refused, and so is a resume whose token no session holds (with no
// other near half in the directory to relay it to).
func TestARendezvousServesOnlyResumes(t *testing.T) {
	socket := rendezvousNear(t, filepath.Join(t.TempDir(), "scache"))
	for _, tc := range []struct {
		hello []byte
		says  string
	}{
		{tunnel.FarOpening(tunnel.Supported), "only resumes reach a near half here"},
		{tunnel.ResumeHello(tunnel.Supported, tunnel.Token{1, 2, 3}, 0, 0, 0), "no session here holds this resume token"},
	} {
		c, err := net.Dial("unix", socket)
		require.NoError(t, err)
		_, err = c.Write(tc.hello)
		require.NoError(t, err)
		_, err = tunnel.ReadNearHello(c)
		c.Close()
		var refusal *tunnel.RefusalError
		require.ErrorAs(t, err, &refusal)
		require.Equal(t, tunnel.StatusResume, refusal.Status)
		require.Contains(t, refusal.Message, tc.says)
	}
}

// A rendezvous directory that others may enter is not used (a resume
// there would reach the VM): the near half says so and serves its session
// as one that ends with its channel, without Resume.
func TestARendezvousOpenToOthersIsNotUsed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "open")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.Chmod(dir, 0o755))
	logs := &logtest.Buffer{}
	vm, err := net.Listen("tcp", "127.0.0.1:0") // answers the JDWP handshake, then nothing
	require.NoError(t, err)
	defer vm.Close()
	go func() {
		c, err := vm.Accept()
		if err == nil {
			defer c.Close()
			_ = jdwp.VMHandshake(c, 0)
			_, _ = io.Copy(io.Discard, c)
		}
	}()
	near := serveProxy(t, func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", vm.Addr().String())
	},
		transport.WithSplit(transport.NearHalf), transport.WithRendezvous(dir),
		scache.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	require.Eventually(t, func() bool {
		return strings.Contains(logs.String(), "is open to others (-rwxr-xr-x)")
	}, 30*time.Second, time.Millisecond)
	require.Contains(t, logs.String(), "the session will end with the command's channel, not resume after it")
	m, _ := filepath.Glob(filepath.Join(dir, "*.sock"))
	require.Empty(t, m, "no socket where others may reach it")
	c, err := net.Dial("tcp", near)
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write(tunnel.FarOpening(tunnel.Supported))
	require.NoError(t, err)
	accepted, err := tunnel.ReadNearHello(c)
	require.NoError(t, err)
	require.NotZero(t, accepted&tunnel.Deflate, "the session is on")
	require.Zero(t, accepted&tunnel.Resume, "Resume is not accepted")
}
