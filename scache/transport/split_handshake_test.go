package transport_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/nettest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/internal/tunnel"
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

// TestADebuggerAtTheNearHalfIsServedAsByOneProxy: a debugger pointed at the
// near half by mistake is served as one proxy next to the VM would: the VM
// gets a JDWP handshake, not a tunnel hello, and the debugger its answer.
func TestADebuggerAtTheNearHalfIsServedAsByOneProxy(t *testing.T) {
	vmLn, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer vmLn.Close()
	vmGot := make(chan error, 1)
	go func() {
		c, err := vmLn.Accept()
		if err != nil {
			vmGot <- err
			return
		}
		defer c.Close()
		vmGot <- jdwp.VMHandshake(c, 30*time.Second)
		_, _ = io.Copy(io.Discard, c)
	}()
	addr := serveProxy(t, func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", vmLn.Addr().String())
	}, transport.WithSplit(transport.NearHalf))
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, jdwp.DebuggerHandshake(c, 30*time.Second), "the debugger's handshake is answered")
	require.NoError(t, <-vmGot, "the VM got a JDWP handshake")
}

// TestANearRelayTellsADebuggerWhereToGo: a near half's Relay (no Proxy to
// serve it otherwise) answers a JDWP debugger with a text saying where to go.
func TestANearRelayTellsADebuggerWhereToGo(t *testing.T) {
	debugger, tun := net.Pipe()
	vm, vmSide := net.Pipe()
	defer vmSide.Close()
	errc := make(chan error, 1)
	go func() {
		errc <- newRelay(t, transport.WithSplit(transport.NearHalf)).Run(context.Background(), tun, vm)
	}()
	_, err := debugger.Write(jdwp.HandshakeBytes)
	require.NoError(t, err)
	got, _ := io.ReadAll(debugger)
	require.Contains(t, string(got), "use -split far")
	require.Contains(t, string(got), "near half of a split proxy")
	require.ErrorIs(t, <-errc, scache.ErrTunnel)
}

// TestNearHalfRefusalsCarryAStatusAndWhy: a near half that cannot reach the
// VM, or serves another session, answers the far half's hello with a
// status and a message that names the party it cannot reach.
func TestNearHalfRefusalsCarryAStatusAndWhy(t *testing.T) {
	deadAddr := nettest.RefusingAddr(t) // nothing listens there
	release := make(chan struct{})
	held := make(chan struct{}, 1)
	first := true
	addr := serveProxy(t, func(ctx context.Context) (net.Conn, error) {
		if first { // the first session holds the near half busy
			first = false
			held <- struct{}{}
			<-release
		}
		var d net.Dialer
		return d.DialContext(ctx, "tcp", deadAddr)
	}, transport.WithSplit(transport.NearHalf))
	hello := func() error { return openTunnel(t, addr) }
	busyDone := make(chan error, 1)
	go func() { busyDone <- hello() }()
	<-held
	err := hello()
	require.ErrorContains(t, err, "the near half refused the session")
	require.ErrorContains(t, err, "busy")
	close(release)
	err = <-busyDone
	require.ErrorContains(t, err, "cannot reach the VM at "+deadAddr)
	require.ErrorContains(t, err, "refused")
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
	require.ErrorContains(t, err, vmLn.Addr().String()+" answered like a JDWP VM, not a near half")
	require.ErrorContains(t, err, "use -split far only towards a near half")
}

// TestAFarHalfNamesTheNearHalfItCannotReach: with nothing at the near
// half's address, the far half's session ends on "cannot reach the near
// half at ADDR", not on the VM.
func TestAFarHalfNamesTheNearHalfItCannotReach(t *testing.T) {
	deadAddr := nettest.RefusingAddr(t)
	ended := make(chan error, 1)
	addr := serveProxy(t, func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", deadAddr)
	}, transport.WithSplit(transport.FarHalf), transport.WithSessionEnded(func(_ scache.Stats, err error) { ended <- err }))
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write(jdwp.HandshakeBytes)
	require.NoError(t, err)
	err = <-ended
	require.ErrorContains(t, err, "cannot reach the near half at "+deadAddr)
	require.NotContains(t, err.Error(), "the VM")
}

// A peer that sends a valid hello and then goes silent never reaches the
// VM: the near half dials it only once the heartbeat behind the hello has
// come, and cuts the connection at the handshake timeout.
func TestAHelloFollowedBySilenceNeverDialsTheVM(t *testing.T) {
	var dials atomic.Int32
	addr := serveProxy(t, func(context.Context) (net.Conn, error) {
		dials.Add(1)
		return nil, io.EOF
	}, transport.WithSplit(transport.NearHalf), transport.WithHandshakeTimeout(time.Second))
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write(tunnel.FarHello(tunnel.Supported))
	require.NoError(t, err)
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, err = io.ReadAll(c)
	require.NoError(t, err, "the near half closed the connection (not our deadline)")
	require.Zero(t, dials.Load())
}

// A near half that could not reach the VM is free again before its refusal
// reaches the far half: a far half that reads it and opens again at once
// is told the VM is unreachable again, not that the near half is busy
// (here the first refusal's log line is held until the second is answered).
func TestANearHalfIsFreeOnceItRefused(t *testing.T) {
	log := &heldLog{on: "cannot reach the VM", release: make(chan struct{})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p, err := transport.NewProxy(func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", "127.0.0.1:1") // nothing listens there
	}, transport.WithSplit(transport.NearHalf), scache.WithLogger(slog.New(slog.NewTextHandler(log, nil))))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, ln) }()
	defer func() {
		log.free()
		cancel()
		require.NoError(t, <-done)
	}()
	for try := range 2 {
		err := openTunnel(t, ln.Addr().String())
		var refusal *tunnel.RefusalError
		require.ErrorAs(t, err, &refusal, "try %d", try)
		require.Equal(t, tunnel.StatusVM, refusal.Status, "try %d: %v", try, err)
	}
}

// A heldLog is a log sink whose first line containing on waits until free
// is called (a slow terminal, say), holding the writer of the line.
type heldLog struct {
	on      string
	release chan struct{}
	once    sync.Once
	held    atomic.Bool
}

func (l *heldLog) Write(b []byte) (int, error) {
	if strings.Contains(string(b), l.on) && l.held.CompareAndSwap(false, true) {
		<-l.release
	}
	return len(b), nil
}

func (l *heldLog) free() { l.once.Do(func() { close(l.release) }) }

// openTunnel opens a tunnel to the near half at addr as a far half does
// (its hello and a heartbeat) and returns the near half's answer: nil, or
// why it refused.
func openTunnel(t *testing.T, addr string) error {
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write(tunnel.FarOpening(tunnel.Supported))
	require.NoError(t, err)
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, err = tunnel.ReadNearHello(c)
	return err
}

// A far half's first frame, before the debugger's first command, tells the
// near half the round trip of the tunnel's hello: the near half weighs its
// speculation with it from the first stop (scache.Far.OnTunnelOpen).
func TestAFarHalfTellsTheHellosRoundTripFirst(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	far := serveProxy(t, func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", ln.Addr().String())
	}, transport.WithSplit(transport.FarHalf))
	dbg, err := net.Dial("tcp", far)
	require.NoError(t, err)
	defer dbg.Close()
	_, err = dbg.Write(jdwp.HandshakeBytes)
	require.NoError(t, err)

	near, err := ln.Accept() // this test plays the near half
	require.NoError(t, err)
	defer near.Close()
	_ = near.SetDeadline(time.Now().Add(time.Minute)) // a guard against a hang
	_, err = tunnel.ReadFarHello(near)
	require.NoError(t, err)
	_, err = near.Write(tunnel.NearHello(tunnel.StatusOn, 0, ""))
	require.NoError(t, err)
	require.NoError(t, jdwp.ReadHandshake(dbg, "far half"))

	frames := tunnel.NewReader(near, jdwp.DefaultMaxPacketSize)
	var f tunnel.Frame
	for f.Type == 0 || f.Type == tunnel.Heartbeat {
		b, err := frames.Read()
		require.NoError(t, err)
		f, err = tunnel.ParseFrame(b)
		require.NoError(t, err)
	}
	require.Equal(t, tunnel.RoundTrip, f.Type, "the first frame after the heartbeats")
	rt, _ := tunnel.RoundTripOf(f.Payload)
	require.Positive(t, rt)
}
