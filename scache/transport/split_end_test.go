package transport_test

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/internal/logtest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/internal/tunnel"
	"github.com/jdwpscache/scache/scache/transport"
	"github.com/stretchr/testify/require"
)

// A link that stops carrying bytes while both connections stay open ends
// the session within the silence timeout: the debugger's connection closes,
// the near half releases the VM (which runs on) and serves the next far half.
func TestAStalledLinkEndsTheSessionAndTheNextFarHalfIsServed(t *testing.T) {
	vm := jvmtest.Start(t, "Debuggee", "-1") // rounds until killed
	ended := make(chan error, 4)
	near := serveProxy(t, func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", vm.ListeningAddr())
	}, transport.WithSplit(transport.NearHalf), transport.WithSilenceTimeout(1500*time.Millisecond),
		transport.WithSessionEnded(func(_ scache.Stats, err error) { ended <- err }))
	link := startTap(t, near)

	farSession := func(addr string) (*jdwp.Conn, chan error, error) {
		farLn, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		done := make(chan error, 1)
		go func() {
			d, err := farLn.Accept()
			farLn.Close()
			if err != nil {
				done <- err
				return
			}
			up, err := net.Dial("tcp", addr)
			if err != nil {
				d.Close()
				done <- err
				return
			}
			done <- newRelay(t, transport.WithSplit(transport.FarHalf), transport.WithSilenceTimeout(1500*time.Millisecond)).Run(context.Background(), d, up)
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		dbg, err := jdwp.Dial(ctx, farLn.Addr().String())
		if err != nil {
			return nil, done, err
		}
		if err := dbg.Call(ctx, &jdwp.VMIDSizesCommand{}, nil); err != nil {
			dbg.Close()
			return nil, done, err
		}
		return dbg, done, nil
	}
	dbg, farDone, err := farSession(link.addr)
	require.NoError(t, err)
	defer dbg.Close()
	link.Stall()
	select {
	case <-dbg.Done():
	case <-time.After(60 * time.Second):
		t.Fatal("the debugger's session outlived a stalled link")
	}
	require.ErrorIs(t, <-farDone, transport.ErrTunnelLost)
	err = <-ended
	require.ErrorIs(t, err, transport.ErrTunnelLost, "the near half's session")
	require.ErrorContains(t, err, "the far half sent nothing for")

	// The VM was released (it runs on) and the near half takes the next
	// far half.
	require.False(t, vm.Wait(0), "the VM still runs")
	// HotSpot's agent listens again (on a new port) once the debugger
	// has detached.
	require.Eventually(t, func() bool { return vm.ListeningAddr() != vm.Addr }, 30*time.Second, time.Millisecond,
		"the VM's agent listens again: %s", vm.Output())
	dbg2, farDone2, err := farSession(near)
	require.NoError(t, err)
	var version jdwp.VMVersionReply
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, dbg2.Call(ctx, &jdwp.VMVersionCommand{}, &version))
	require.NotEmpty(t, version.VMName)
	dbg2.Close()
	require.NoError(t, <-farDone2)
}

// fakeNear accepts one far half on ln and answers its hello: the test plays
// the near half, frame by frame.
func fakeNear(t *testing.T, ln net.Listener) (net.Conn, *tunnel.Reader) {
	c, err := ln.Accept()
	require.NoError(t, err)
	offer, err := tunnel.ReadFarHello(c)
	require.NoError(t, err)
	_, err = c.Write(tunnel.NearHello(tunnel.StatusOn, offer, ""))
	require.NoError(t, err)
	return c, tunnel.NewReader(c, 0)
}

// When the near half dies right after sending the VM's last replies (the
// tunnel closes without an end frame), the debugger still receives every
// reply the far half had read in full: small ones and large ones.
func TestRepliesReadBeforeTheTunnelDiesReachTheDebugger(t *testing.T) {
	for _, size := range []int{0, 200 << 10} {
		nearLn, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		farLn, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		farDone := make(chan error, 1)
		go func() {
			d, err := farLn.Accept()
			farLn.Close()
			if err != nil {
				farDone <- err
				return
			}
			up, err := net.Dial("tcp", nearLn.Addr().String())
			if err != nil {
				farDone <- err
				return
			}
			farDone <- newRelay(t, transport.WithSplit(transport.FarHalf)).Run(context.Background(), d, up)
		}()
		dbg, err := net.Dial("tcp", farLn.Addr().String())
		require.NoError(t, err)
		defer dbg.Close()
		_, err = dbg.Write(jdwp.HandshakeBytes)
		require.NoError(t, err)
		near, frames := fakeNear(t, nearLn)
		require.NoError(t, jdwp.ReadHandshake(dbg, "proxy"))
		const n = 20
		// The debugger sends n commands (a kind the far half forwards).
		for i := 1; i <= n; i++ {
			_, err := dbg.Write(jdwp.AppendCommand(nil, uint32(i), jdwp.CmdVirtualMachineClassPaths, nil))
			require.NoError(t, err)
		}
		for got := 0; got < n; {
			b, err := frames.Read()
			require.NoError(t, err)
			if b[0] == tunnel.Packet {
				got++
			}
		}
		// The near half sends every reply, then dies without an end frame.
		var out []byte
		for i := 1; i <= n; i++ {
			out = append(out, tunnel.NewFrame(tunnel.Packet, jdwp.AppendReply(nil, uint32(i), jdwp.ErrNone, make([]byte, size)))...)
		}
		_, err = near.Write(out)
		require.NoError(t, err)
		near.Close()
		nearLn.Close()
		fr := jdwp.NewFramer(nil, dbg)
		_ = dbg.SetReadDeadline(time.Now().Add(30 * time.Second))
		for i := 1; i <= n; i++ {
			p, err := fr.ReadPacket()
			require.NoError(t, err, "reply %d of %d (%d bytes each)", i, n, size)
			require.Equal(t, uint32(i), jdwp.PacketID(p))
		}
		require.ErrorIs(t, <-farDone, transport.ErrTunnelLost)
	}
}

// Each way a split session ends reaches the other half's log with its
// reason: the VM's death (at the far half), a shutdown of either half, and
// a debugger's reset (at the near half, which does not blame the tunnel).
func TestEveryEndCarriesItsReason(t *testing.T) {
	type halves struct {
		nearLog, farLog *logtest.Buffer
		far             string
		cancelNear      context.CancelFunc
		cancelFar       context.CancelFunc
		vm              *jvmtest.VM
	}
	start := func(t *testing.T) *halves {
		h := &halves{nearLog: &logtest.Buffer{}, farLog: &logtest.Buffer{}, vm: jvmtest.Start(t, "Debuggee", "1")}
		serve := func(log *logtest.Buffer, half transport.Half, target string) (string, context.CancelFunc) {
			addr, cancel, stop := serveHalfUntil(t, log, half, target)
			t.Cleanup(stop)
			return addr, cancel
		}
		var near string
		near, h.cancelNear = serve(h.nearLog, transport.NearHalf, h.vm.Addr)
		h.far, h.cancelFar = serve(h.farLog, transport.FarHalf, near)
		return h
	}
	attach := func(t *testing.T, h *halves) *jdwp.Conn {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		dbg, err := jdwp.Dial(ctx, h.far)
		require.NoError(t, err)
		require.NoError(t, dbg.Call(ctx, &jdwp.VMIDSizesCommand{}, nil))
		return dbg
	}
	eventually := func(t *testing.T, b *logtest.Buffer, text string) {
		require.Eventually(t, func() bool { return contains(b.String(), text) }, 30*time.Second, time.Millisecond, "%q in %s", text, b.String())
	}
	t.Run("the VM dies", func(t *testing.T) {
		h := start(t)
		dbg := attach(t, h)
		defer dbg.Close()
		h.vm.Kill()
		eventually(t, h.farLog, "the split session ended: the near half ended the session: the VM")
		require.NotContains(t, h.farLog.String(), "tunnel failed")
	})
	t.Run("the near half shuts down", func(t *testing.T) {
		h := start(t)
		dbg := attach(t, h)
		defer dbg.Close()
		h.cancelNear()
		eventually(t, h.farLog, "the near half ended the session: the near half is shutting down")
	})
	t.Run("the far half shuts down", func(t *testing.T) {
		h := start(t)
		dbg := attach(t, h)
		defer dbg.Close()
		h.cancelFar()
		eventually(t, h.nearLog, "the far half ended the session: the far half is shutting down")
	})
	t.Run("the debugger resets its connection", func(t *testing.T) {
		h := start(t)
		c, err := net.Dial("tcp", h.far)
		require.NoError(t, err)
		require.NoError(t, jdwp.DebuggerHandshake(c, 30*time.Second))
		_, err = c.Write(jdwp.AppendCommand(nil, 1, jdwp.CmdVirtualMachineIDSizes, nil))
		require.NoError(t, err)
		_, err = io.ReadFull(c, make([]byte, jdwp.HeaderSize))
		require.NoError(t, err)
		require.NoError(t, c.(*net.TCPConn).SetLinger(0))
		c.Close() // a reset
		require.Eventually(t, func() bool { return contains(h.nearLog.String(), "the far half ended the session: the debugger") }, 30*time.Second, time.Millisecond,
			"the near half logged:\n%s\nthe far half:\n%s", h.nearLog, h.farLog)
		require.NotContains(t, h.nearLog.String(), "tunnel failed", "the near half does not blame the tunnel")
	})
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
