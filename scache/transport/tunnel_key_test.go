package transport_test

import (
	"context"
	"io"
	"net"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/internal/tunnel"
	"github.com/jdwpscache/scache/scache/transport"
	"github.com/stretchr/testify/require"
)

func newKey(t *testing.T) *transport.TunnelKey {
	path := filepath.Join(t.TempDir(), "tunnel.key")
	k, err := transport.GenerateTunnelKey(path)
	require.NoError(t, err)
	loaded, err := transport.LoadTunnelKey(path)
	require.NoError(t, err)
	require.Equal(t, k.Fingerprint(), loaded.Fingerprint())
	_, err = transport.GenerateTunnelKey(path)
	require.Error(t, err, "an existing key is not overwritten")
	return loaded
}

// keyedNear serves a near half with key (nil: none) in front of the VM at
// vmAddr, counting its dials of the VM.
func keyedNear(t *testing.T, vmAddr string, key *transport.TunnelKey) (string, *atomic.Int32) {
	var dials atomic.Int32
	opts := []scache.Option{transport.WithSplit(transport.NearHalf)}
	if key != nil {
		opts = append(opts, transport.WithTunnelKey(key))
	}
	addr := serveProxy(t, func(ctx context.Context) (net.Conn, error) {
		dials.Add(1)
		var d net.Dialer
		return d.DialContext(ctx, "tcp", vmAddr)
	}, opts...)
	return addr, &dials
}

// keyedFar serves a far half with key (nil: none) towards near; it returns
// its address and the errors its sessions end with.
func keyedFar(t *testing.T, near string, key *transport.TunnelKey) (string, chan error) {
	ended := make(chan error, 8)
	opts := []scache.Option{transport.WithSplit(transport.FarHalf), transport.WithSessionEnded(func(_ scache.Stats, err error) { ended <- err })}
	if key != nil {
		opts = append(opts, transport.WithTunnelKey(key))
	}
	addr := serveProxy(t, func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", near)
	}, opts...)
	return addr, ended
}

// attachOnce connects a debugger to addr and reports whether its session
// started (the handshake was answered and IDSizes replied to).
func attachOnce(t *testing.T, addr string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dbg, err := jdwp.Dial(ctx, addr)
	if err != nil {
		return err
	}
	defer dbg.Close()
	return dbg.Call(ctx, &jdwp.VMIDSizesCommand{}, nil)
}

// Only a far half with the same key reaches the VM: another key, no key,
// junk, a plain debugger and a hello in the clear never dial it, each says
// why, and the right far half gets its session afterwards.
func TestAKeyedTunnelLetsOnlyTheKeyIn(t *testing.T) {
	vm := jvmtest.Start(t, "Debuggee", "-1")
	key := newKey(t)
	near, dials := keyedNear(t, vm.Addr, key)

	wrong, wrongEnded := keyedFar(t, near, newKey(t))
	require.Error(t, attachOnce(t, wrong))
	err := <-wrongEnded
	require.ErrorIs(t, err, transport.ErrWrongTunnelKey)
	require.ErrorContains(t, err, "holds another tunnel key than this one")

	none, noneEnded := keyedFar(t, near, nil)
	require.Error(t, attachOnce(t, none))
	err = <-noneEnded
	require.ErrorContains(t, err, "this near half requires a tunnel key: run the far half with -key FILE")

	for _, junk := range [][]byte{[]byte("GET / HTTP/1.1\r\n\r\n"), jdwp.HandshakeBytes, tunnel.FarHello(tunnel.Supported), {0x16, 3, 1, 0, 5, 1, 2, 3, 4, 5}} {
		c, err := net.Dial("tcp", near)
		require.NoError(t, err)
		_, _ = c.Write(junk)
		_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
		_, _ = c.Read(make([]byte, 64))
		c.Close()
	}
	require.Zero(t, dials.Load(), "nothing without the key dialled the VM")

	// The right far half gets its session; a recording of what it sent,
	// replayed, does not.
	tap := startTap(t, near)
	right, rightEnded := keyedFar(t, tap.addr, key)
	require.NoError(t, attachOnce(t, right), "the far half with the key gets its session")
	require.NoError(t, <-rightEnded)
	require.Equal(t, int32(1), dials.Load())
	c, err := net.Dial("tcp", near)
	require.NoError(t, err)
	_, _ = c.Write(tap.recorded())
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, _ = io.ReadAll(c)
	c.Close()
	require.Equal(t, int32(1), dials.Load(), "a replayed session does not reach the VM")
}

// A keyed far half towards a near half without a key says so.
func TestAKeyedFarHalfNamesAKeylessNearHalf(t *testing.T) {
	near, dials := keyedNear(t, "127.0.0.1:1", nil)
	far, ended := keyedFar(t, near, newKey(t))
	require.Error(t, attachOnce(t, far))
	require.ErrorContains(t, <-ended, "answered in the clear: it has no tunnel key")
	require.Zero(t, dials.Load())
}

func TestOnLoopback(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:8701": true, "[::1]:8701": true, "localhost:8701": true,
		"0.0.0.0:8701": false, ":8701": false, "192.168.1.2:8701": false, "vmhost:8701": false, "8701": false} {
		require.Equal(t, want, transport.OnLoopback(addr), addr)
	}
}
