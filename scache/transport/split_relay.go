package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

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
//
// However the session ends, the other side learns why and loses nothing
// read in full: an end of the JDWP side, an error or a shutdown sends the
// other half an end frame with the reason before the tunnel closes; an end
// frame received, or a tunnel lost or silent, first writes out what is
// queued for the debugger or the VM, then closes its connection.
type splitRun struct {
	r        *Relay
	half     splitHalf
	down, up io.ReadWriteCloser
	tunnelUp bool // the tunnel is up (far half) or down (near half)

	tunnel, jdwpConn io.ReadWriteCloser
	features         tunnel.Features // what the halves agreed on
	// link, with Resume agreed on: the tunnel, across lost connections;
	// ackSent is the count of bytes received that the last 'K' frame said.
	link    *resumableLink
	ackSent atomic.Uint64
	// gotEnd: the other half's end frame was read; sentEnd: ours was queued.
	gotEnd, sentEnd atomic.Bool
	jdwpPeer        string // "debugger" or "VM": who is at the JDWP side
	otherHalf       string // "near half" or "far half"

	mu             sync.Mutex // the order of the half's calls and of what they put
	downW, upW     *queueWriter
	tunnelW, jdwpW *queueWriter // the same two writers, by side
	ending         atomic.Bool  // an end frame was sent or received, or the tunnel is gone
	closeOnce      sync.Once
	// sideEndTimer bounds the reading of a side whose writes failed
	// (jdwpSideEnded); made once.
	sideEndOnce  sync.Once
	sideEndTimer *time.Timer
	errMu        sync.Mutex
	first        error
	reason       string        // why the session ended: the other half's end frame, or ours
	heard        atomic.Int64  // when the last frame from the other half arrived (Unix ns)
	quit         chan struct{} // closed when both readers are done
}

// heartbeatFrame is the frame a half sends to say it is alive.
var heartbeatFrame = tunnel.NewFrame(tunnel.Heartbeat)

// resumable makes the tunnel's side of the session a resumableLink.
func (s *splitRun) resumable(token tunnel.Token) *resumableLink {
	side, written := &s.down, []byte(nil)
	if s.tunnelUp {
		// FarOpening's heartbeat, behind the hello: the stream's first bytes.
		side, written = &s.up, heartbeatFrame
	}
	l := newResumableLink((*side).(net.Conn), s.r.resume, s.r.splitHalf, s.features, token, written)
	l.endReceived, l.endSent = s.gotEnd.Load, s.sentEnd.Load
	l.onResumed = func() {
		s.heard.Store(time.Now().UnixNano())
		s.acknowledgeNow()
	}
	*side = l
	s.r.link.Store(l)
	return l
}

func (r *Relay) runSplit(ctx context.Context, down, up io.ReadWriteCloser) error {
	s := &splitRun{r: r, down: down, up: up, half: r.split, tunnelUp: r.splitHalf == FarHalf, quit: make(chan struct{})}
	s.otherHalf = "near half"
	if !s.tunnelUp {
		s.otherHalf = "far half"
	}
	r.endMu.Lock()
	r.endReason = ""
	r.endMu.Unlock()
	// During the handshake a shutdown closes both sides; once the session
	// is committed (its last handshake write, after which the other side
	// takes the session as on), a shutdown ends it with a reason (below).
	var commitMu sync.Mutex
	committed, aborted := false, false
	stopHandshake := context.AfterFunc(ctx, func() {
		commitMu.Lock()
		defer commitMu.Unlock()
		if !committed {
			aborted = true
			s.closeBoth()
		}
	})
	commit := func() error {
		commitMu.Lock()
		defer commitMu.Unlock()
		if aborted {
			return ctx.Err()
		}
		committed = true
		return nil
	}
	var err error
	var opened tunnelOpened
	if s.tunnelUp {
		opened, err = r.farHandshake(down, up, commit)
	} else {
		opened, err = r.nearHandshake(down, up, commit)
	}
	stopHandshake()
	if err != nil {
		s.closeBoth()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	r.handshakeThrough()
	s.features = opened.features
	if s.features&tunnel.Resume != 0 {
		s.link = s.resumable(opened.token)
	}
	var pack func([][]byte) [][]byte
	if s.features&tunnel.Deflate != 0 {
		pack = tunnel.NewPacker().Pack
	}
	down, up = s.down, s.up // the tunnel's side may be a resumable link now
	if s.tunnelUp {
		s.upW = newQueueWriter(up, DefaultTunnelQueueBytes, pack)
		s.downW = newQueueWriter(down, DefaultTunnelQueueBytes, nil)
		s.tunnel, s.tunnelW, s.jdwpConn, s.jdwpW, s.jdwpPeer = up, s.upW, down, s.downW, "debugger"
	} else {
		s.downW = newQueueWriter(down, DefaultTunnelQueueBytes, pack)
		s.upW = newQueueWriter(up, DefaultTunnelQueueBytes, nil)
		s.tunnel, s.tunnelW, s.jdwpConn, s.jdwpW, s.jdwpPeer = down, s.downW, up, s.upW, "VM"
	}
	r.tunnelW.Store(s.tunnelW)
	s.heard.Store(time.Now().UnixNano())
	start := s.half.started(opened.helloRoundTrip) // the near half's speculation ahead of the debugger's first command
	s.upW.put(start.Upstream)
	s.downW.put(start.Downstream)
	var backstop *time.Timer
	var bmu sync.Mutex
	stop := context.AfterFunc(ctx, func() { // at once if ctx has ended already
		s.endHere("the "+r.splitHalf.String()+" half is shutting down", nil, true)
		bmu.Lock()
		backstop = time.AfterFunc(shutdownGrace, s.closeBoth)
		bmu.Unlock()
	})
	defer stop()
	var readers, alive sync.WaitGroup
	readers.Add(2)
	alive.Add(1)
	go func() { defer readers.Done(); s.readTunnel() }()
	go func() { defer readers.Done(); s.readJDWP() }()
	go func() { defer alive.Done(); s.keepAlive() }()
	readers.Wait() // the readers alone make the timer (jdwpSideEnded)
	if s.sideEndTimer != nil {
		s.sideEndTimer.Stop()
	}
	close(s.quit)
	alive.Wait()
	s.closeBoth()
	s.downW.abort(io.ErrClosedPipe)
	s.upW.abort(io.ErrClosedPipe)
	<-s.downW.done
	<-s.upW.done
	bmu.Lock()
	if backstop != nil {
		backstop.Stop()
	}
	bmu.Unlock()
	r.endMu.Lock()
	r.endReason = s.reason
	r.endMu.Unlock()
	held := r.spec.Close()
	if ctx.Err() != nil {
		return ctx.Err() // the connections were closed here
	}
	if s.first == nil && !s.ending.Load() {
		return held
	}
	return s.first
}

// shutdownGrace bounds how long a half that is shut down waits for its end
// frame to leave before it closes both sides.
const shutdownGrace = time.Second

func (s *splitRun) closeBoth() {
	s.closeOnce.Do(func() {
		s.down.Close()
		s.up.Close()
	})
}

// record keeps the session's first error, and the reason of its end.
func (s *splitRun) record(err error, reason string) {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	if s.first == nil && err != nil {
		s.first = err
	}
	if s.reason == "" {
		s.reason = reason
	}
}

// sendEnd queues the end frame with reason for the other half, unless the
// session is already ending; it reports whether it did.
func (s *splitRun) sendEnd(reason string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ending.Load() {
		return false
	}
	// Marked before it is queued: the writer may send it at once, and the
	// other half end and close before this goroutine runs on; the link
	// that sees that close must know the end left, or it would wait for
	// the other half to come back (CI saw a near half wait 3 minutes).
	s.sentEnd.Store(true)
	s.tunnelW.put([][]byte{tunnel.EndFrame(reason)})
	s.ending.Store(true)
	s.record(nil, reason)
	return true
}

// endHere ends the session from this side: err, if any, is kept as the
// session's error; the other half gets an end frame with reason after
// everything queued before it; with closeJDWP the debugger's or the VM's
// connection closes now (the VM is released as a debugger's disconnect
// would). It serves a shutdown, an error of the half's own (a frame or
// packet it cannot take) and the JDWP side's end, clean or not.
func (s *splitRun) endHere(reason string, err error, closeJDWP bool) {
	s.record(err, "")
	if s.sendEnd(reason) {
		s.tunnelW.finish(func() { jdwp.CloseAfterDrain(s.tunnel) })
	}
	if closeJDWP {
		s.jdwpConn.Close()
	}
}

// endFromJDWP ends the session because the debugger's or the VM's side
// ended: cleanly (err nil) or on an error (a reset, say) reading from it
// or, with a jdwpWriteError, writing to it. The other half is told why,
// after everything read before.
func (s *splitRun) endFromJDWP(err error) {
	if err == nil {
		s.endHere("the "+s.jdwpPeer+" closed the connection", nil, false)
		return
	}
	op := "reading from"
	if w, ok := errors.AsType[*jdwpWriteError](err); ok {
		op, err = "writing to", w.err
	}
	s.endHere(fmt.Sprintf("the %s's connection failed: %v", s.jdwpPeer, err),
		fmt.Errorf("scache: %s the %s: %w", op, s.jdwpPeer, err), true)
}

// jdwpWriteError is a failure to write to the debugger's or the VM's
// connection: that side ended (a reset read first or written first, as
// the two goroutines happen to meet it), not this half.
type jdwpWriteError struct{ err error }

func (e *jdwpWriteError) Error() string { return e.err.Error() }
func (e *jdwpWriteError) Unwrap() error { return e.err }

// jdwpSideEnded reports whether err is a write to the debugger's or the
// VM's connection that failed because that connection had ended (reset,
// or closed for writing). The side may have ended the session first with
// packets not yet read (a VM's VMDeath, behind what this half is still
// presenting): readJDWP reads it to its end and ends the session then,
// cleanly if what it read ended it (Speculator.Ended). Should the side's
// reads not end, its connection is closed after vmEndWait.
func (s *splitRun) jdwpSideEnded(err error) bool {
	if _, ok := errors.AsType[*jdwpWriteError](err); !ok || !connEnded(err) {
		return false
	}
	s.sideEndOnce.Do(func() {
		s.sideEndTimer = time.AfterFunc(vmEndWait, func() { s.jdwpConn.Close() })
	})
	return true
}

// endOnPresent ends the session on present's error: the JDWP side's end
// where writing to it failed, else an error of the half's own.
func (s *splitRun) endOnPresent(err error) {
	if _, ok := errors.AsType[*jdwpWriteError](err); ok {
		s.endFromJDWP(err)
		return
	}
	s.failOn(err)
}

// endFromTunnel ends the session because the tunnel ended: by the other
// half's end frame (reason), or lost (err). What is queued for the debugger
// or the VM is written first, then its connection closes.
func (s *splitRun) endFromTunnel(reason string, err error) {
	s.mu.Lock()
	already := s.ending.Swap(true)
	s.mu.Unlock()
	if already && err != nil {
		return // our own end: the other half closed the tunnel after it
	}
	if reason != "" {
		reason = "the " + s.otherHalf + " ended the session: " + reason
	} else if err != nil {
		reason = err.Error()
	}
	s.record(err, reason)
	s.jdwpW.finish(func() { jdwp.CloseAfterDrain(s.jdwpConn) })
	if err != nil {
		s.tunnel.Close()
	}
}

// failOn ends the session on an error of the half's own (a frame or packet
// it cannot take): the other half is told, and both sides close.
func (s *splitRun) failOn(err error) { s.endHere(err.Error(), err, true) }

// readJDWP reads the debugger's or the VM's packets until its connection
// ends, presenting each to the half.
func (s *splitRun) readJDWP() {
	f := jdwp.NewFramer(nil, s.jdwpConn)
	if s.r.maxPacketSize > 0 {
		f.SetMaxPacketSize(s.r.maxPacketSize)
	}
	var presentErr, writeEnd error
	err := f.ReadEach(func(p []byte) error {
		if err := s.present(p, !s.tunnelUp); err != nil {
			if s.jdwpSideEnded(err) {
				writeEnd = err // read on: what the side sent before it ended
				return nil
			}
			presentErr = err
			return err
		}
		return nil
	})
	switch {
	case presentErr != nil:
		if !s.ending.Load() {
			s.endOnPresent(presentErr)
		}
	case writeEnd != nil && !s.r.spec.Ended():
		if !s.ending.Load() {
			s.endFromJDWP(writeEnd)
		}
	case writeEnd == nil && err != nil && !resetAtTheEnd(s.r.spec, err):
		if !s.ending.Load() {
			s.endFromJDWP(err)
		}
	default:
		// The debugger or the VM closed its connection (or reset it as
		// the session ended): the other half ends the session once it
		// has everything read so far.
		s.endFromJDWP(nil)
	}
}

// readTunnel reads frames from the other half until its end frame or the
// tunnel's end.
func (s *splitRun) readTunnel() {
	fr := tunnel.NewReader(s.tunnel, s.r.maxPacketSize)
	fr.Accept(s.features)
	for {
		b, err := fr.Read()
		if err != nil {
			switch {
			case s.ending.Load():
			case errors.Is(err, tunnel.ErrOversized): // the connection still works: say why
				s.failOn(err)
				s.drainTunnel()
			case errors.Is(err, ErrTunnelLost): // a resumable link that gave up
				s.endFromTunnel("", err)
			case jdwp.IsCleanClose(err):
				s.endFromTunnel("", fmt.Errorf("%w: the %s closed it without an end frame", ErrTunnelLost, s.otherHalf))
			default:
				s.endFromTunnel("", fmt.Errorf("%w: %w", ErrTunnelLost, err))
			}
			return
		}
		s.heard.Store(time.Now().UnixNano())
		if s.link != nil {
			s.acknowledge(ackEvery)
		}
		switch b[0] {
		case tunnel.Heartbeat:
			continue
		case tunnel.Received:
			if s.tookReceived(b) {
				continue
			}
		case tunnel.End:
			// Known before the other half can learn it arrived: once it
			// reads the 'K' below it closes the tunnel, and the link, lost
			// then, must take that for the session's end, not a cut.
			s.gotEnd.Store(true)
			if s.link != nil {
				// The other half learns its end frame arrived, before this
				// half closes the tunnel (a whole frame: the writer's
				// frames and this one do not interleave).
				_, _ = s.link.Write(tunnel.ReceivedFrame(s.link.receivedBytes()))
			}
			s.endFromTunnel(string(b[tunnel.HeaderSize:min(len(b), tunnel.HeaderSize+tunnel.MaxText)]), nil)
			return
		}
		if err := s.present(b, s.tunnelUp); err != nil {
			if s.jdwpSideEnded(err) {
				continue // readJDWP ends the session at that side's end
			}
			if !s.ending.Load() {
				s.endOnPresent(err)
			}
			s.drainFrames(fr)
			return
		}
	}
}

// endLinger bounds how long a half that ended the session on its own
// error keeps the tunnel open for its end frame to leave (behind what was
// queued before it) and the other half to close its side.
const endLinger = 10 * time.Second

// drainTunnel reads and drops what the other half still sends, after this
// half ended the session on its own error, until the other half closes the
// tunnel (it has read the end frame) or endLinger passes. Closing a socket
// with unread bytes in it resets the connection, and a reset can discard
// the end frame before the other half reads it.
func (s *splitRun) drainTunnel() {
	t := time.AfterFunc(endLinger, func() { s.tunnel.Close() })
	defer t.Stop()
	_, _ = io.Copy(io.Discard, s.tunnel)
}

// drainFrames is drainTunnel where the frames can still be read: the 'K'
// frame that says the end frame arrived is taken (a resumable link that
// is lost then knows it owes nothing).
func (s *splitRun) drainFrames(fr *tunnel.Reader) {
	if s.link == nil {
		s.drainTunnel()
		return
	}
	t := time.AfterFunc(endLinger, func() { s.tunnel.Close() })
	defer t.Stop()
	for {
		b, err := fr.Read()
		if err != nil {
			return
		}
		s.tookReceived(b)
	}
}

// tookReceived takes frame b if it is the other half's 'K' frame (with a
// resumable link): what this half sent up to its count arrived.
func (s *splitRun) tookReceived(b []byte) bool {
	if s.link == nil || b[0] != tunnel.Received || len(b) != tunnel.HeaderSize+8 {
		return false
	}
	s.link.acknowledged(tunnel.ReceivedOf(b[tunnel.HeaderSize:]))
	return true
}

// keepAlive sends a heartbeat every third of the silence timeout, and ends
// the session when the other half has sent nothing for the timeout, until
// the readers are done. Silence is checked every silenceChecks-th of the
// timeout: a silent session ends between the timeout and a fifteenth more
// (15 to 16 s at the default).
func (s *splitRun) keepAlive() {
	every := s.r.silence / 3
	check := max(s.r.silence/silenceChecks, time.Millisecond)
	t := time.NewTicker(check)
	defer t.Stop()
	lastBeat := time.Now()
	for {
		select {
		case <-s.quit:
			return
		case <-t.C:
		}
		if s.ending.Load() || (s.link != nil && s.link.down()) {
			continue // a link that is down is silent: it waits to resume
		}
		if quiet := time.Since(time.Unix(0, s.heard.Load())); quiet > s.r.silence {
			err := fmt.Errorf("%w: the %s sent nothing for %v (it sends a heartbeat every %v): the link stalled, or the %s hangs",
				ErrTunnelLost, s.otherHalf, quiet.Round(100*time.Millisecond), every, s.otherHalf)
			if s.link != nil {
				s.link.drop(err)
			} else {
				s.endFromTunnel("", err)
			}
			continue
		}
		if s.link != nil {
			s.acknowledge(1)
		}
		if time.Since(lastBeat) < every-check/2 {
			continue
		}
		lastBeat = time.Now()
		s.mu.Lock()
		if !s.ending.Load() {
			s.tunnelW.put([][]byte{heartbeatFrame})
		}
		s.mu.Unlock()
	}
}

// acknowledge sends the other half a 'K' frame with the bytes received,
// if at least least of them arrived since the last one.
func (s *splitRun) acknowledge(least uint64) {
	n := s.link.receivedBytes()
	if n < s.ackSent.Load()+least {
		return
	}
	s.sendReceived(n, false)
}

// acknowledgeNow sends the other half a 'K' frame with the bytes received,
// even if the last one said as much: after a resume it is the first thing
// a far half sends once it read the near half's answer, which tells the
// near half it may forget the session's previous token (resumableLink's
// previousUntil), and lets it forget what it sent again at once.
func (s *splitRun) acknowledgeNow() { s.sendReceived(s.link.receivedBytes(), true) }

// sendReceived queues the 'K' frame saying n bytes were received, unless
// the session ends or (without again) the last one said as much.
func (s *splitRun) sendReceived(n uint64, again bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ending.Load() || !again && n <= s.ackSent.Load() {
		return
	}
	s.ackSent.Store(max(n, s.ackSent.Load()))
	s.tunnelW.put([][]byte{tunnel.ReceivedFrame(n)})
}

// silenceChecks is how many times per silence timeout a half checks
// whether the other half has gone silent.
const silenceChecks = 15

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
		return s.writeFailed("upstream", s.upW, err)
	}
	if err := s.downW.wait(); err != nil && !s.ending.Load() {
		return s.writeFailed("downstream", s.downW, err)
	}
	return nil
}

// writeFailed returns the error of writer w, which writes dir: the JDWP
// side's end (jdwpWriteError) for the debugger's or the VM's connection,
// the tunnel's failure for the tunnel.
func (s *splitRun) writeFailed(dir string, w *queueWriter, err error) error {
	if w == s.jdwpW {
		return &jdwpWriteError{err: err}
	}
	return fmt.Errorf("scache: writing %s: %w", dir, err)
}

// tunnelOpened is what a half's handshake agreed on: the tunnel's
// features, the session's token (with Resume) and, at a far half, how
// long the near half took to answer its hello.
type tunnelOpened struct {
	features       tunnel.Features
	token          tunnel.Token
	helloRoundTrip time.Duration
}

// farHandshake takes the debugger's JDWP handshake, opens the tunnel with
// the near half (which reaches the VM) and answers the debugger, once
// commit lets the session on. It times the hello: the link's round trip
// and the near half's handshake with the VM.
func (r *Relay) farHandshake(debugger, tun io.ReadWriter, commit func() error) (tunnelOpened, error) {
	var o tunnelOpened
	defer r.handshakeDeadline(debugger, tun)()
	if err := jdwp.ReadHandshake(debugger, "debugger"); err != nil {
		return o, err
	}
	offer := r.featuresOn(tun)
	sent := time.Now()
	if _, err := tun.Write(tunnel.FarOpening(offer)); err != nil {
		return o, fmt.Errorf("%w: sending the hello to the near half: %w", scache.ErrTunnel, err)
	}
	accepted, err := tunnel.ReadNearHello(tun)
	if err != nil {
		if errors.Is(err, tunnel.ErrNoAnswer) {
			return o, tunnel.Errorf("%s answered like a JDWP VM, not a near half (it closed the connection at the tunnel's hello without a word): use -split far only towards a near half (scache proxy -split near)", peerName(tun))
		}
		return o, err
	}
	o.helloRoundTrip = time.Since(sent)
	if accepted&^offer != 0 {
		return o, tunnel.Errorf("the near half accepted features %#x of the %#x offered", byte(accepted), byte(offer))
	}
	o.features = accepted
	if accepted&tunnel.Resume != 0 {
		if o.token, err = tunnel.ReadToken(tun); err != nil {
			return o, err
		}
	}
	if err := commit(); err != nil {
		return o, err
	}
	if _, err := debugger.Write(jdwp.HandshakeBytes); err != nil {
		return o, fmt.Errorf("scache: answering the debugger's handshake: %w", err)
	}
	return o, nil
}

// nearHandshake takes the far half's hello, does the JDWP handshake with
// the VM and answers the far half, once commit lets the session on.
func (r *Relay) nearHandshake(tun, vm io.ReadWriter, commit func() error) (tunnelOpened, error) {
	var o tunnelOpened
	defer r.handshakeDeadline(tun, vm)()
	offered, err := tunnel.ReadFarHello(tun)
	if err != nil {
		refuseFar(tun, err)
		return o, err
	}
	if _, err := vm.Write(jdwp.HandshakeBytes); err != nil {
		err = fmt.Errorf("scache: sending the handshake to the VM at %s: %w", peerName(vm), err)
		_, _ = tun.Write(tunnel.NearHello(tunnel.StatusVM, 0, err.Error()))
		return o, err
	}
	if err := jdwp.ReadHandshake(vm, "VM"); err != nil {
		err = fmt.Errorf("scache: the VM at %s: %w", peerName(vm), err)
		_, _ = tun.Write(tunnel.NearHello(tunnel.StatusVM, 0, err.Error()))
		return o, err
	}
	if err := commit(); err != nil {
		return o, err
	}
	o.features = offered & r.featuresOn(tun)
	answer := tunnel.NearHello(tunnel.StatusOn, o.features, "")
	if o.features&tunnel.Resume != 0 {
		o.token = newToken()
		answer = append(answer, o.token[:]...)
	}
	if _, err := tun.Write(answer); err != nil {
		return o, fmt.Errorf("%w: answering the far half: %w", scache.ErrTunnel, err)
	}
	return o, nil
}

// featuresOn returns the features this half can use on the tunnel tun:
// Resume only on a connection of a Proxy's session, which has a way to
// the next connection (the far half dials it, the near half's Proxy takes
// it).
func (r *Relay) featuresOn(tun io.ReadWriter) tunnel.Features {
	if _, ok := tun.(net.Conn); !ok || r.resume == nil {
		return r.features &^ tunnel.Resume
	}
	return r.features
}

// refuseFar tells a peer that is not a far half of this version why the
// near half will not serve it.
func refuseFar(tun io.Writer, err error) {
	switch {
	case errors.Is(err, tunnel.ErrJDWPAtNear):
		_, _ = tun.Write([]byte(tunnel.NotATunnelMessage))
	case errors.Is(err, tunnel.ErrKeyedFar):
		_, _ = tun.Write(tunnel.NearHello(tunnel.StatusKey, 0, "this near half has no tunnel key: give it -key FILE, the far half's"))
	case errors.As(err, new(*tunnel.VersionError)):
		_, _ = tun.Write(tunnel.NearHello(tunnel.StatusVersion, 0, err.Error()))
	}
}

// peerName names the far end of a connection by its address, when it has one.
func peerName(c any) string {
	if nc, ok := c.(interface{ RemoteAddr() net.Addr }); ok && nc.RemoteAddr() != nil {
		return nc.RemoteAddr().String()
	}
	return "the peer"
}
