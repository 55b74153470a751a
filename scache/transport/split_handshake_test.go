package transport_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/transport"
	"github.com/stretchr/testify/require"
)

// serveNear serves a near half whose VM dial only counts its calls (and
// fails); it returns its address and the count.
func serveNear(t *testing.T) (string, *atomic.Int32) {
	var dials atomic.Int32
	addr := serveProxy(t, func(context.Context) (net.Conn, error) {
		dials.Add(1)
		return nil, io.EOF
	}, transport.WithSplit(transport.NearHalf))
	return addr, &dials
}

func TestADebuggerAtTheNearHalfIsToldWhereToGo(t *testing.T) {
	addr, dials := serveNear(t)
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write(jdwp.HandshakeBytes)
	require.NoError(t, err)
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	got, err := io.ReadAll(c)
	require.NoError(t, err)
	require.Contains(t, string(got), "near half of a split proxy")
	require.Contains(t, string(got), "far half")
	require.Zero(t, dials.Load(), "the VM was not dialled")
	// A JDWP client sees a failed handshake, with the text as what it got.
	c2, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c2.Close()
	err = jdwp.DebuggerHandshake(c2, 30*time.Second)
	require.Error(t, err)
	require.Contains(t, err.Error(), "use -split far")
}

func TestAFarHalfOfAnotherVersionIsRefused(t *testing.T) {
	addr, dials := serveNear(t)
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	hello := append([]byte("SCACHE-TUNNEL"), 0, 0, 'F')
	binary.BigEndian.PutUint16(hello[13:], scache.TunnelVersion+1)
	_, err = c.Write(hello)
	require.NoError(t, err)
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	got, err := io.ReadAll(c)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(got, []byte("SCACHE-TUNNEL")), "an answer in the tunnel's own format: %q", got)
	require.NotZero(t, got[15], "status: refused")
	require.Contains(t, string(got), fmt.Sprintf("tunnel version %d", scache.TunnelVersion+1))
	require.Zero(t, dials.Load(), "the VM was not dialled")
}

// TestAFarHalfPointedAtAVMSaysSo: a far half whose near address is a JDWP
// VM (or a plain proxy) fails the debugger's handshake with a clear reason.
func TestAFarHalfPointedAtAVMSaysSo(t *testing.T) {
	vmLn, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer vmLn.Close()
	go func() {
		c, err := vmLn.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		_ = jdwp.VMHandshake(c, 30*time.Second) // reads 16 bytes where 14 come: times out or fails
	}()
	farLn, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	errc := make(chan error, 1)
	go func() {
		d, err := farLn.Accept()
		farLn.Close()
		if err != nil {
			errc <- err
			return
		}
		up, err := net.Dial("tcp", vmLn.Addr().String())
		if err != nil {
			errc <- err
			return
		}
		errc <- newRelay(t, transport.WithSplit(transport.FarHalf), transport.WithHandshakeTimeout(2*time.Second)).Run(context.Background(), d, up)
	}()
	c, err := net.Dial("tcp", farLn.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	_, _ = c.Write(jdwp.HandshakeBytes)
	err = <-errc
	require.ErrorIs(t, err, scache.ErrTunnel)
}
