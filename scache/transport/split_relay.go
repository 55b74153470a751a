package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/internal/tunnel"
)

// DefaultTunnelQueueBytes bounds the bytes a split relay queues for one
// connection: what the near half pushes ahead of the far half's reading it,
// and what waits for the VM or the debugger.
const DefaultTunnelQueueBytes = 8 << 20

// ErrTunnelLost is returned when the tunnel between the halves of a split
// proxy ends without either half ending the session.
var ErrTunnelLost = errors.New("scache: the tunnel between the halves of the split proxy was lost")

// splitRun is one session of a split relay: a half between its two
// connections, down (the far half's debugger, or the near half's tunnel)
// and up (the far half's tunnel, or the near half's VM). The tunnel side
// and the JDWP side are resolved once, at the start.
type splitRun struct {
	r        *Relay
	half     splitHalf
	down, up io.ReadWriteCloser
	tunnelUp bool // the tunnel is up (far half) or down (near half)

	tunnel, jdwpConn io.ReadWriteCloser
	jdwpPeer         string // "debugger" or "VM": who is at the JDWP side

	mu             sync.Mutex // the order of the half's calls and of what they put
	downW, upW     *queueWriter
	tunnelW, jdwpW *queueWriter // the same two writers, by side
	ending         atomic.Bool  // an end frame was sent or received
	closeOnce      sync.Once
	errMu          sync.Mutex
	first          error
}

func (r *Relay) runSplit(ctx context.Context, down, up io.ReadWriteCloser) error {
	s := &splitRun{r: r, down: down, up: up, half: r.split, tunnelUp: r.splitHalf == FarHalf}
	stop := context.AfterFunc(ctx, s.closeBoth)
	defer stop()
	var err error
	if s.tunnelUp {
		err = r.farHandshake(down, up)
	} else {
		err = r.nearHandshake(down, up)
	}
	if err != nil {
		s.closeBoth()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	s.downW = newQueueWriter(down, DefaultTunnelQueueBytes)
	s.upW = newQueueWriter(up, DefaultTunnelQueueBytes)
	if s.tunnelUp {
		s.tunnel, s.tunnelW, s.jdwpConn, s.jdwpW, s.jdwpPeer = up, s.upW, down, s.downW, "debugger"
	} else {
		s.tunnel, s.tunnelW, s.jdwpConn, s.jdwpW, s.jdwpPeer = down, s.downW, up, s.upW, "VM"
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); s.readTunnel() }()
	go func() { defer wg.Done(); s.readJDWP() }()
	wg.Wait()
	s.closeBoth()
	s.downW.abort(io.ErrClosedPipe)
	s.upW.abort(io.ErrClosedPipe)
	<-s.downW.done
	<-s.upW.done
	held := r.spec.Close()
	if ctx.Err() != nil {
		return ctx.Err() // the connections were closed here
	}
	if s.first == nil && !s.ending.Load() {
		return held
	}
	return s.first
}

func (s *splitRun) closeBoth() {
	s.closeOnce.Do(func() {
		s.down.Close()
		s.up.Close()
	})
}

// fail records the session's first error and ends it.
func (s *splitRun) fail(err error) {
	s.errMu.Lock()
	if s.first == nil {
		s.first = err
	}
	s.errMu.Unlock()
	s.closeBoth()
}

// readJDWP reads the debugger's or the VM's packets until its connection
// ends, presenting each to the half.
func (s *splitRun) readJDWP() {
	f := jdwp.NewFramer(nil, s.jdwpConn)
	if s.r.maxPacketSize > 0 {
		f.SetMaxPacketSize(s.r.maxPacketSize)
	}
	err := f.ReadEach(func(p []byte) error { return s.present(p, !s.tunnelUp) })
	if err != nil {
		if !s.ending.Load() {
			s.fail(fmt.Errorf("scache: reading from the %s: %w", s.jdwpPeer, err))
		}
		return
	}
	// The debugger or the VM closed its connection: the other half ends the
	// session once it has everything read so far.
	s.mu.Lock()
	s.tunnelW.put([][]byte{tunnel.NewFrame(tunnel.End, []byte("the "+s.jdwpPeer+" closed the connection"))})
	s.ending.Store(true)
	s.mu.Unlock()
	s.tunnelW.finish(func() { jdwp.CloseAfterDrain(s.tunnel) })
}

// readTunnel reads frames from the other half until its end frame or the
// tunnel's end.
func (s *splitRun) readTunnel() {
	fr := tunnel.NewReader(s.tunnel, s.r.maxPacketSize)
	for {
		b, err := fr.Read()
		if err != nil {
			switch {
			case s.ending.Load():
			case jdwp.IsCleanClose(err):
				s.fail(ErrTunnelLost)
			default:
				s.fail(fmt.Errorf("%w: %w", ErrTunnelLost, err))
			}
			return
		}
		if b[0] == tunnel.End {
			// The other half ended the session: what is queued for the
			// debugger or the VM is written, then its connection closes.
			s.ending.Store(true)
			s.jdwpW.finish(func() { jdwp.CloseAfterDrain(s.jdwpConn) })
			return
		}
		if err := s.present(b, s.tunnelUp); err != nil {
			s.fail(err)
			return
		}
	}
}

// present gives the half one packet or frame and queues what it returns;
// then it waits while either queue is over its bound.
func (s *splitRun) present(b []byte, up bool) error {
	s.mu.Lock()
	var (
		t   scache.Traffic
		err error
	)
	if up {
		t, err = s.half.fromUp(b)
	} else {
		t, err = s.half.fromDown(b)
	}
	if err == nil {
		s.upW.put(t.Upstream)
		s.downW.put(t.Downstream)
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if err := s.upW.wait(); err != nil && !s.ending.Load() {
		return fmt.Errorf("scache: writing upstream: %w", err)
	}
	if err := s.downW.wait(); err != nil && !s.ending.Load() {
		return fmt.Errorf("scache: writing downstream: %w", err)
	}
	return nil
}

// farHandshake takes the debugger's JDWP handshake, opens the tunnel with
// the near half (which reaches the VM) and answers the debugger.
func (r *Relay) farHandshake(debugger, tun io.ReadWriter) error {
	defer r.handshakeDeadline(debugger, tun)()
	if err := jdwp.ReadHandshake(debugger, "debugger"); err != nil {
		return err
	}
	if _, err := tun.Write(tunnel.FarHello()); err != nil {
		return fmt.Errorf("%w: sending the hello to the near half: %w", scache.ErrTunnel, err)
	}
	if err := tunnel.ReadNearHello(tun); err != nil {
		if errors.Is(err, tunnel.ErrNoAnswer) {
			return tunnel.Errorf("%s answered like a JDWP VM, not a near half (it closed the connection at the tunnel's hello without a word): use -split far only towards a near half (proxy -split near)", peerName(tun))
		}
		return err
	}
	if _, err := debugger.Write(jdwp.HandshakeBytes); err != nil {
		return fmt.Errorf("scache: answering the debugger's handshake: %w", err)
	}
	return nil
}

// nearHandshake takes the far half's hello, does the JDWP handshake with
// the VM and answers the far half.
func (r *Relay) nearHandshake(tun, vm io.ReadWriter) error {
	defer r.handshakeDeadline(tun, vm)()
	if err := tunnel.ReadFarHello(tun); err != nil {
		refuseFar(tun, err)
		return err
	}
	if _, err := vm.Write(jdwp.HandshakeBytes); err != nil {
		err = fmt.Errorf("scache: sending the handshake to the VM at %s: %w", peerName(vm), err)
		_, _ = tun.Write(tunnel.NearHello(tunnel.StatusVM, err.Error()))
		return err
	}
	if err := jdwp.ReadHandshake(vm, "VM"); err != nil {
		err = fmt.Errorf("scache: the VM at %s: %w", peerName(vm), err)
		_, _ = tun.Write(tunnel.NearHello(tunnel.StatusVM, err.Error()))
		return err
	}
	if _, err := tun.Write(tunnel.NearHello(tunnel.StatusOn, "")); err != nil {
		return fmt.Errorf("%w: answering the far half: %w", scache.ErrTunnel, err)
	}
	return nil
}

// refuseFar tells a peer that is not a far half of this version why the
// near half will not serve it.
func refuseFar(tun io.Writer, err error) {
	switch {
	case errors.Is(err, tunnel.ErrJDWPAtNear):
		_, _ = tun.Write([]byte(tunnel.NotATunnelMessage))
	case errors.As(err, new(*tunnel.VersionError)):
		_, _ = tun.Write(tunnel.NearHello(tunnel.StatusVersion, err.Error()))
	}
}

// peerName names the far end of a connection by its address, when it has one.
func peerName(c any) string {
	if nc, ok := c.(interface{ RemoteAddr() net.Addr }); ok && nc.RemoteAddr() != nil {
		return nc.RemoteAddr().String()
	}
	return "the peer"
}
