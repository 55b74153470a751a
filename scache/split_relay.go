package scache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jdwpscache/scache/jdwp"
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
// and up (the far half's tunnel, or the near half's VM).
type splitRun struct {
	r        *Relay
	half     splitHalf
	down, up io.ReadWriteCloser
	tunnelUp bool // the tunnel is up (far half) or down (near half)

	mu           sync.Mutex // the order of the half's calls and of what they put
	downW, upW   *queueWriter
	ending       atomic.Bool // an end frame was sent or received
	closeOnce    sync.Once
	errMu        sync.Mutex
	first        error
	peerEndedWhy string
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
	s.downW = newQueueWriter(down, r.queueBytes())
	s.upW = newQueueWriter(up, r.queueBytes())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); s.readSide(false) }()
	go func() { defer wg.Done(); s.readSide(true) }()
	wg.Wait()
	s.closeBoth()
	s.downW.abort(io.ErrClosedPipe)
	s.upW.abort(io.ErrClosedPipe)
	<-s.downW.done
	<-s.upW.done
	held := r.split.speculator().Close()
	if ctx.Err() != nil {
		return ctx.Err() // the connections were closed here
	}
	if s.first == nil && !s.ending.Load() {
		return held
	}
	return s.first
}

func (r *Relay) queueBytes() int {
	return DefaultTunnelQueueBytes
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

// readSide reads one connection until it ends, presenting each packet or
// frame to the half.
func (s *splitRun) readSide(up bool) {
	conn, name := s.down, "debugger"
	if up {
		conn, name = s.up, "VM"
	}
	if s.tunnelUp == up {
		s.readTunnel(conn)
		return
	}
	if s.tunnelUp {
		name = "debugger"
	} else {
		name = "VM"
	}
	f := jdwp.NewFramer(nil, conn)
	if s.r.maxPacketSize > 0 {
		f.SetMaxPacketSize(s.r.maxPacketSize)
	}
	err := f.ReadEach(func(p []byte) error { return s.present(p, up) })
	if err != nil {
		if !s.ending.Load() {
			s.fail(fmt.Errorf("scache: reading from the %s: %w", name, err))
		}
		return
	}
	// The debugger or the VM closed its connection: the other half ends the
	// session once it has everything read so far.
	s.mu.Lock()
	s.tunnelWriter().put([][]byte{newFrame(frameEnd, []byte("the "+name+" closed the connection"))})
	s.ending.Store(true)
	s.mu.Unlock()
	tunnel := s.tunnelConn()
	s.tunnelWriter().finish(func() { jdwp.CloseAfterDrain(tunnel) })
}

func (s *splitRun) tunnelConn() io.ReadWriteCloser {
	if s.tunnelUp {
		return s.up
	}
	return s.down
}

func (s *splitRun) tunnelWriter() *queueWriter {
	if s.tunnelUp {
		return s.upW
	}
	return s.downW
}

// readTunnel reads frames from the other half until its end frame or the
// tunnel's end.
func (s *splitRun) readTunnel(conn io.Reader) {
	fr := newFrameReader(conn, s.r.maxPacketSize)
	for {
		b, err := fr.read()
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
		if len(b) > 0 && b[0] == frameEnd {
			s.peerEnded(b)
			return
		}
		if err := s.present(b, s.tunnelUp); err != nil {
			s.fail(err)
			return
		}
	}
}

// peerEnded ends the session at the other half's end frame: what is queued
// for the debugger or the VM is written, then its connection closes.
func (s *splitRun) peerEnded(b []byte) {
	f, err := parseFrame(b)
	if err == nil {
		s.peerEndedWhy = string(f.payload)
	}
	s.ending.Store(true)
	w, conn := s.downW, s.down
	if !s.tunnelUp {
		w, conn = s.upW, s.up
	}
	w.finish(func() { jdwp.CloseAfterDrain(conn) })
}

// present gives the half one packet or frame and queues what it returns;
// then it waits while either queue is over its bound.
func (s *splitRun) present(b []byte, up bool) error {
	s.mu.Lock()
	var (
		t   Traffic
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
func (r *Relay) farHandshake(debugger, tunnel io.ReadWriter) error {
	deadline := time.Now().Add(r.handshakeTimeoutOrDefault())
	setDeadline(debugger, deadline)
	setDeadline(tunnel, deadline)
	defer setDeadline(debugger, time.Time{})
	defer setDeadline(tunnel, time.Time{})
	if err := jdwp.ReadHandshake(debugger, "debugger"); err != nil {
		return err
	}
	if _, err := tunnel.Write(farHello()); err != nil {
		return fmt.Errorf("%w: sending the hello to the near half: %w", ErrTunnel, err)
	}
	if err := readNearHello(tunnel); err != nil {
		return err
	}
	if _, err := debugger.Write(jdwp.HandshakeBytes); err != nil {
		return fmt.Errorf("scache: answering the debugger's handshake: %w", err)
	}
	return nil
}

// nearHandshake takes the far half's hello, does the JDWP handshake with
// the VM and answers the far half.
func (r *Relay) nearHandshake(tunnel, vm io.ReadWriter) error {
	deadline := time.Now().Add(r.handshakeTimeoutOrDefault())
	setDeadline(tunnel, deadline)
	setDeadline(vm, deadline)
	defer setDeadline(tunnel, time.Time{})
	defer setDeadline(vm, time.Time{})
	if err := readFarHello(tunnel); err != nil {
		refuseFar(tunnel, err)
		return err
	}
	if _, err := vm.Write(jdwp.HandshakeBytes); err != nil {
		err = fmt.Errorf("scache: sending the handshake to the VM: %w", err)
		_, _ = tunnel.Write(nearHello(2, err.Error()))
		return err
	}
	if err := jdwp.ReadHandshake(vm, "VM"); err != nil {
		_, _ = tunnel.Write(nearHello(2, err.Error()))
		return err
	}
	if _, err := tunnel.Write(nearHello(0, "")); err != nil {
		return fmt.Errorf("%w: answering the far half: %w", ErrTunnel, err)
	}
	return nil
}

// refuseFar tells a peer that is not a far half of this version why the
// near half will not serve it.
func refuseFar(tunnel io.Writer, err error) {
	switch {
	case errors.Is(err, errJDWPAtNear):
		_, _ = tunnel.Write([]byte(notATunnelMessage))
	case errors.As(err, new(*versionError)):
		_, _ = tunnel.Write(nearHello(1, err.Error()))
	}
}

func (r *Relay) handshakeTimeoutOrDefault() time.Duration {
	if r.handshakeTimeout > 0 {
		return r.handshakeTimeout
	}
	return jdwp.HandshakeTimeout
}
