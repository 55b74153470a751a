package transport_test

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/jdwpscache/scache/scache/transport"
	"github.com/stretchr/testify/require"
)

// acceptingProxy runs a Proxy in front of a model VM on loopback and returns
// its address and how many times it dialled the VM.
func acceptingProxy(t *testing.T) (string, *atomic.Int32) {
	vm, _ := scachetest.World(jdwp.DefaultIDSizes)
	vmLn, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { vmLn.Close() })
	go func() {
		for {
			c, err := vmLn.Accept()
			if err != nil {
				return
			}
			scachetest.Serve(c, vm) // one session at a time reaches the VM
		}
	}()
	var dials atomic.Int32
	addr := serveProxy(t, func(ctx context.Context) (net.Conn, error) {
		dials.Add(1)
		var d net.Dialer
		return d.DialContext(ctx, "tcp", vmLn.Addr().String())
	})
	return addr, &dials
}

// A connection that sends something other than the handshake is closed
// without the VM being dialled (a JVM logs every failed attach).
func TestProxyDialsTheVMOnlyAfterAHandshake(t *testing.T) {
	addr, dials := acceptingProxy(t)
	for _, junk := range []string{"GET / HTTP/1.1\r\nHost: x\r\n\r\n", "\x00\x00\x00\x0bgarbage!!!!!"} {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		_, err = c.Write([]byte(junk))
		require.NoError(t, err)
		_ = c.SetReadDeadline(time.Now().Add(time.Minute)) // a guard against a hang
		b, err := io.ReadAll(c)
		require.Empty(t, b, "nothing is answered")
		if err != nil { // closed with junk unread: reset
			require.ErrorIs(t, err, syscall.ECONNRESET, "the proxy closes the connection")
		}
		c.Close()
	}
	require.Zero(t, dials.Load(), "the VM was dialled for junk")
	// A debugger afterwards gets its session.
	conn, err := jdwp.Dial(context.Background(), addr)
	require.NoError(t, err)
	defer conn.Close()
	var sizes jdwp.VMIDSizesReply
	require.NoError(t, conn.Call(context.Background(), &jdwp.VMIDSizesCommand{}, &sizes))
	require.Equal(t, int32(1), dials.Load())
}

// A client that sends half a handshake and stops holds nothing: a real
// debugger that arrives meanwhile gets the session at once; one that
// completes its handshake while that session runs is refused.
func TestProxyGivesTheSessionToTheFirstCompleteHandshake(t *testing.T) {
	addr, dials := acceptingProxy(t)
	half, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer half.Close()
	_, err = half.Write(jdwp.HandshakeBytes[:7])
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard against a hang
	defer cancel()
	conn, err := jdwp.Dial(ctx, addr)
	require.NoError(t, err)
	defer conn.Close()
	var sizes jdwp.VMIDSizesReply
	require.NoError(t, conn.Call(ctx, &jdwp.VMIDSizesCommand{}, &sizes))
	require.Equal(t, jdwp.DefaultIDSizes, sizes.Sizes)

	// The late half completes its handshake: the session is taken.
	_, err = half.Write(jdwp.HandshakeBytes[7:])
	require.NoError(t, err)
	_ = half.SetReadDeadline(time.Now().Add(time.Minute)) // a guard against a hang
	b, err := io.ReadAll(half)
	require.NoError(t, err)
	require.Empty(t, b, "refused without a handshake reply")
	require.Equal(t, int32(1), dials.Load())
}

// The connections still in their handshake are bounded: beyond
// DefaultHandshakeLimits.PerSource from one address that speak and never
// finish, the next from it is closed at once, and the VM is never
// dialled (TestAFloodOfIdleConnectionsNeverLocksOutTheFarHalf floods from
// many addresses).
func TestPendingHandshakesAreBounded(t *testing.T) {
	var dials atomic.Int32
	addr := serveProxy(t, func(context.Context) (net.Conn, error) {
		dials.Add(1)
		return nil, io.EOF
	}, transport.WithHandshakeTimeout(time.Minute), transport.WithHandshakeLimits(neverStale))
	var idle []net.Conn
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	for range transport.DefaultHandshakeLimits.PerSource {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		_, err = c.Write([]byte("JDWP")) // a handshake that never ends
		require.NoError(t, err)
		idle = append(idle, c)
	}
	// Accepted in order: wait until the last idle one is in its handshake
	// by checking that a further one is turned away.
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return false
		}
		defer c.Close()
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, err = c.Read(make([]byte, 1))
		return err != nil && !errors.Is(err, os.ErrDeadlineExceeded)
	}, 30*time.Second, 10*time.Millisecond)
	require.Zero(t, dials.Load())
}

// neverStale are the default handshake limits but that no connection turns
// stale within a test's time: what is pending stays.
var neverStale = func() transport.HandshakeLimits {
	l := transport.DefaultHandshakeLimits
	l.StaleSilence, l.StaleAge = time.Hour, time.Hour
	return l
}()
