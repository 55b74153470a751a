package transport_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

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
		{tunnel.ResumeHello(tunnel.Supported, tunnel.Token{1, 2, 3}, 0), "no session here holds this resume token"},
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

// A rendezvous directory that others may enter is refused: a resume
// there would reach the VM.
func TestARendezvousOpenToOthersIsRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "open")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.Chmod(dir, 0o755))
	p, err := transport.NewProxy(func(ctx context.Context) (net.Conn, error) { return nil, os.ErrNotExist },
		transport.WithSplit(transport.NearHalf), transport.WithRendezvous(dir), scache.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	err = p.Serve(context.Background(), ln)
	require.ErrorContains(t, err, "is open to others (-rwxr-xr-x)")
}
