package transport_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/logtest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/internal/tunnel"
	"github.com/jdwpscache/scache/scache/transport"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ownErrorTries is how many times each half is made to fail on a frame of
// its peer's: the end frame must reach the peer every time, not most.
const ownErrorTries = 50

// A half that ends on its own protocol error (a frame of a type it does not
// know, or one longer than its bound) writes its end frame, with the
// reason, before its connections close: the other half reads it every
// time, then the end of the stream.
func TestAHalfsOwnErrorReachesTheOtherHalf(t *testing.T) {
	bad := map[string][]byte{
		"unknown type": tunnel.NewFrame(0x7e, []byte("junk")),
		"too long":     {tunnel.Packet, 0x7f, 0xff, 0xff, 0xff},
	}
	reasons := map[string]string{"unknown type": "a frame of unknown type 0x7e", "too long": "a frame whose length field says"}
	for name, frame := range bad {
		t.Run("near half/"+name, func(t *testing.T) {
			for range ownErrorTries {
				far, done := startNearRelay(t)
				_, err := far.Write(frame)
				require.NoError(t, err)
				requireEndFrame(t, far, reasons[name])
				require.ErrorIs(t, <-done, tunnel.ErrTunnel)
			}
		})
		t.Run("far half/"+name, func(t *testing.T) {
			for range ownErrorTries {
				near, done := startFarRelay(t)
				_, err := near.Write(frame)
				require.NoError(t, err)
				requireEndFrame(t, near, reasons[name])
				require.ErrorIs(t, <-done, tunnel.ErrTunnel)
			}
		})
	}
}

// requireEndFrame reads frames from c until the end frame, which must carry
// reason, then the end of the stream.
func requireEndFrame(t *testing.T, c net.Conn, reason string) {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(30*time.Second)))
	fr := tunnel.NewReader(c, 0)
	for {
		b, err := fr.Read()
		require.NoError(t, err, "the peer's end frame, before the end of the stream")
		if b[0] == tunnel.End {
			require.Contains(t, string(b[tunnel.HeaderSize:]), reason)
			break
		}
	}
	_, err := fr.Read()
	require.True(t, errors.Is(err, io.EOF), "the end of the stream after the end frame, not %v", err)
	c.Close()
}

// startNearRelay runs a near half's relay between a far half the test plays
// (returned, past its hello) and a VM that only shakes hands.
func startNearRelay(t *testing.T) (net.Conn, <-chan error) {
	farSide, nearSide := tcpPair(t)
	vmSide, vm := tcpPair(t)
	go func() {
		if jdwp.ReadHandshake(vm, "debugger") == nil {
			_, _ = vm.Write(jdwp.HandshakeBytes)
		}
		_, _ = io.Copy(io.Discard, vm)
		vm.Close()
	}()
	done := make(chan error, 1)
	go func() {
		done <- newRelay(t, transport.WithSplit(transport.NearHalf)).Run(context.Background(), nearSide, vmSide)
	}()
	_, err := farSide.Write(tunnel.FarOpening(tunnel.Supported))
	require.NoError(t, err)
	_, err = tunnel.ReadNearHello(farSide)
	require.NoError(t, err)
	return farSide, done
}

// startFarRelay runs a far half's relay between a debugger (past its
// handshake, and then silent) and a near half the test plays (returned,
// past its hello).
func startFarRelay(t *testing.T) (net.Conn, <-chan error) {
	dbg, farDown := tcpPair(t)
	farUp, nearSide := tcpPair(t)
	done := make(chan error, 1)
	go func() {
		done <- newRelay(t, transport.WithSplit(transport.FarHalf)).Run(context.Background(), farDown, farUp)
	}()
	_, err := dbg.Write(jdwp.HandshakeBytes)
	require.NoError(t, err)
	offer, err := tunnel.ReadFarHello(nearSide)
	require.NoError(t, err)
	_, err = nearSide.Write(tunnel.NearHello(tunnel.StatusOn, offer, ""))
	require.NoError(t, err)
	require.NoError(t, jdwp.ReadHandshake(dbg, "proxy"))
	t.Cleanup(func() { dbg.Close() })
	return nearSide, done
}

// tcpPair returns the two ends of a loopback TCP connection.
func tcpPair(t *testing.T) (net.Conn, net.Conn) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	a, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	b := <-accepted
	require.NotNil(t, b)
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// The same through two real halves, with the bad frame put on the link
// between them: the other half's log names the reason, every time.
func TestAHalfsOwnErrorIsLoggedByTheOtherHalf(t *testing.T) {
	vm := handshakeOnlyVM(t)
	nearLog, farLog := &logtest.Buffer{}, &logtest.Buffer{}
	near := serveHalf(t, nearLog, transport.NearHalf, vm)
	link := startTap(t, near)
	far := serveHalf(t, farLog, transport.FarHalf, link.addr)
	for _, toNear := range []bool{false, true} {
		log, culprit := farLog, "near"
		if !toNear {
			log, culprit = nearLog, "far"
		}
		for try := range ownErrorTries {
			told := "the " + culprit + " half ended the session: scache: tunnel: a frame of unknown type 0x7e"
			before := strings.Count(log.String(), told)
			ended := func() int {
				return strings.Count(nearLog.String(), "scache: session ended") + strings.Count(farLog.String(), "scache: session ended")
			}
			endedBefore := ended()
			dbg, err := net.Dial("tcp", far)
			require.NoError(t, err)
			require.NoError(t, jdwp.DebuggerHandshake(dbg, 30*time.Second))
			link.Inject(t, toNear, tunnel.NewFrame(0x7e, []byte("junk")))
			_, err = io.Copy(io.Discard, dbg) // the session ends
			require.NoError(t, err)
			dbg.Close()
			require.Eventually(t, func() bool {
				return strings.Count(log.String(), told) > before
			}, 30*time.Second, time.Millisecond, "try %d: the %s half's reason in the other's log", try, culprit)
			// Both halves are done before the next try: else the near half
			// is rightly busy.
			require.Eventually(t, func() bool { return ended() == endedBefore+2 }, 30*time.Second, time.Millisecond)
		}
	}
}

// handshakeOnlyVM listens for debuggers that it answers the JDWP handshake
// and nothing more, and returns its address.
func handshakeOnlyVM(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if jdwp.ReadHandshake(c, "debugger") == nil {
					_, _ = c.Write(jdwp.HandshakeBytes)
				}
				_, _ = io.Copy(io.Discard, c)
			}()
		}
	}()
	return ln.Addr().String()
}

// serveHalf serves one half of a split proxy towards target, logging to
// log, until the test ends, and returns its address.
func serveHalf(t *testing.T, log *logtest.Buffer, half transport.Half, target string, opts ...scache.Option) string {
	addr, _, stop := serveHalfUntil(t, log, half, target, opts...)
	t.Cleanup(stop)
	return addr
}

// Every way a split session ends reaches the other half's log with its
// reason, in every one of ownErrorTries tries: the VM's death, a shutdown
// of either half, a debugger's reset (TestEveryEndCarriesItsReason does
// each once with a real VM; a half's own error is above).
func TestEveryEndReachesTheOtherHalfEveryTime(t *testing.T) {
	cases := []struct {
		name   string
		end    func(t *testing.T, s *splitSession)
		inFar  bool // the reason is in the far half's log (else the near's)
		reason string
	}{
		{"the VM dies", func(t *testing.T, s *splitSession) { s.vm.killLast(t) }, true, "the near half ended the session: the VM"},
		{"the near half shuts down", func(t *testing.T, s *splitSession) { s.cancelNear() }, true, "the near half ended the session: the near half is shutting down"},
		{"the far half shuts down", func(t *testing.T, s *splitSession) { s.cancelFar() }, false, "the far half ended the session: the far half is shutting down"},
		{"the debugger resets", func(t *testing.T, s *splitSession) {
			require.NoError(t, s.dbg.(*net.TCPConn).SetLinger(0))
			s.dbg.Close()
		}, false, "the far half ended the session: the debugger"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vm := startKillableVM(t)
			for try := range ownErrorTries {
				s := startSplitSession(t, vm)
				c.end(t, s)
				log := s.nearLog
				if c.inFar {
					log = s.farLog
				}
				if !assert.Eventually(t, func() bool { return strings.Contains(log.String(), c.reason) }, 20*time.Second, time.Millisecond) {
					t.Fatalf("try %d: %q not in the log; far:\n%s\nnear:\n%s", try, c.reason, s.farLog.String(), s.nearLog.String())
				}
				s.stop()
			}
		})
	}
}

// A splitSession is a debugger's session through two halves of their own,
// each logging to a buffer, to a VM that only shakes hands.
type splitSession struct {
	vm                    *killableVM
	dbg                   net.Conn
	nearLog, farLog       *logtest.Buffer
	cancelNear, cancelFar context.CancelFunc
	stop                  func()
}

func startSplitSession(t *testing.T, vm *killableVM) *splitSession {
	s := &splitSession{vm: vm, nearLog: &logtest.Buffer{}, farLog: &logtest.Buffer{}}
	var stopNear, stopFar func()
	var near, far string
	near, s.cancelNear, stopNear = serveHalfUntil(t, s.nearLog, transport.NearHalf, vm.addr)
	far, s.cancelFar, stopFar = serveHalfUntil(t, s.farLog, transport.FarHalf, near)
	dbg, err := net.Dial("tcp", far)
	require.NoError(t, err)
	require.NoError(t, jdwp.DebuggerHandshake(dbg, 30*time.Second))
	s.dbg = dbg
	go func() { // as a debugger does, it closes its side once the proxy's ends
		_, _ = io.Copy(io.Discard, dbg)
		dbg.Close()
	}()
	s.stop = func() {
		dbg.Close()
		stopFar()
		stopNear()
	}
	return s
}

// serveHalfUntil serves one half towards target, logging to log; it
// returns its address, the cancel that shuts it down, and a function that
// shuts it down and waits for it (once; the test must call it).
func serveHalfUntil(t testing.TB, log *logtest.Buffer, half transport.Half, target string, opts ...scache.Option) (string, context.CancelFunc, func()) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p, err := transport.NewProxy(func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", target)
	}, append([]scache.Option{transport.WithSplit(half), scache.WithLogger(slog.New(slog.NewTextHandler(log, nil)))}, opts...)...)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, ln) }()
	var once sync.Once
	return ln.Addr().String(), cancel, func() {
		once.Do(func() {
			cancel()
			require.NoError(t, <-done)
		})
	}
}

// A killableVM answers the JDWP handshake of each connection and then
// reads; killLast closes the latest connection, as a VM that dies.
type killableVM struct {
	addr  string
	mu    sync.Mutex
	conns []net.Conn
}

func startKillableVM(t *testing.T) *killableVM {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	vm := &killableVM{addr: ln.Addr().String()}
	t.Cleanup(func() {
		ln.Close()
		vm.mu.Lock()
		for _, c := range vm.conns {
			c.Close()
		}
		vm.mu.Unlock()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if jdwp.ReadHandshake(c, "debugger") != nil {
				c.Close()
				continue
			}
			vm.mu.Lock()
			vm.conns = append(vm.conns, c) // before the debugger's session can start
			vm.mu.Unlock()
			_, _ = c.Write(jdwp.HandshakeBytes)
			go func() {
				_, _ = io.Copy(io.Discard, c)
				c.Close() // as a VM closes its side when the debugger's ends
			}()
		}
	}()
	return vm
}

func (vm *killableVM) killLast(t *testing.T) {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	require.NotEmpty(t, vm.conns)
	vm.conns[len(vm.conns)-1].Close()
}
