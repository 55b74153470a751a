package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/internal/option"
	"github.com/jdwpscache/scache/scache/internal/tunnel"
)

// A Proxy accepts debugger connections and relays each, through a new
// Speculator, to a VM it dials. Make one with NewProxy. It serves one session at a time: a VM's JDWP
// agent accepts one debugger. Every connection must first send the JDWP
// handshake (within jdwp.HandshakeTimeout); one that sends anything else is
// closed without the VM being dialled, and while one is still sending its
// handshake others are accepted: the first complete handshake gets the
// session. A debugger that completes its handshake while a session runs is
// closed at once, and logged.
//
// With WithSplit the Proxy serves one half of a split proxy: the near half
// accepts the far half's tunnel (its hello in place of the JDWP handshake)
// and dials the VM; the far half accepts debuggers and dials the near half.
// A near half serves a JDWP debugger that connects to it by mistake as one
// proxy next to the VM would (and logs where the debugger should go), and
// answers every refusal of a far half (busy, the VM unreachable, another
// version) with a status and a message the far half logs.
//
// JDWP gives whoever connects code execution in the VM: listen on loopback
// (127.0.0.1) unless the network between debugger and proxy is trusted. The
// tunnel carries JDWP too: the same holds for the near half's address.
type Proxy struct {
	dialVM func(ctx context.Context) (net.Conn, error)
	st     *settings
	log    *slog.Logger

	mu     sync.Mutex
	active bool
	// starting, while the active session has not finished its handshake
	// (the VM dialled and shaken hands with), is closed when it has, or has
	// failed to start: a connection that comes meanwhile waits for which,
	// and is told busy only if a session is really in progress.
	starting chan struct{}
	claims   uint64 // the sessions claimed so far: the active one's number
	// idle, while a session is active, is closed when it is released.
	idle chan struct{}
	wg   sync.WaitGroup
	// links: a near half's sessions that can resume, by their token.
	links map[tunnel.Token]*resumableLink
	// rendezvous, with WithRendezvous, is where this near half's sessions
	// resume besides its listener (set while Serve runs); noRendezvous:
	// it could not be opened, and sessions do not resume.
	rendezvous   *rendezvous
	noRendezvous atomic.Bool

	gate      *handshakeGate // the connections still in their handshake
	lingering chan struct{}  // a token per refusal at the door still being read out
	junk      logLimiter     // the log lines about refused connections
}

// MaxPendingHandshakes is the default bound on the connections a Proxy
// holds while they send their handshake (DefaultHandshakeLimits.Full); past
// it a new connection only takes the place of another.
const MaxPendingHandshakes = 64

// junkLogEvery is the least time between two log lines about connections
// refused at their handshake: the others are counted in the next line.
const junkLogEvery = time.Second

// NewProxy returns a Proxy that dials the VM with dialVM for each session.
// Its options: those of a Speculator (each session's), WithJournal,
// WithMaxPacketSize, WithHandshakeTimeout, WithSessionEnded and WithLogger
// (one line per session and the refusals; default slog.Default()). Its
// sessions share one scache.AttachMemory (scache.WithAttachMemory gives
// it another): what a debugger listed as it attached, the next session
// asks ahead.
func NewProxy(dialVM func(ctx context.Context) (net.Conn, error), opts ...scache.Option) (*Proxy, error) {
	if dialVM == nil {
		return nil, errors.New("scache: NewProxy needs a function that dials the VM")
	}
	st, err := collect(option.Proxy, opts)
	if err != nil {
		return nil, err
	}
	if st.AttachMemory == nil {
		// The sessions follow each other on one program: what the debugger
		// listed as it attached, the next attach asks ahead.
		memory := scache.NewAttachMemory()
		st.AttachMemory, st.opts = memory, append(st.opts[:len(st.opts):len(st.opts)], scache.WithAttachMemory(memory))
	}
	if st.tunnelKey() != nil && st.half() == Whole {
		return nil, errors.New("scache: WithTunnelKey keys the tunnel of a split proxy: give WithSplit too")
	}
	log := st.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Proxy{dialVM: dialVM, st: st, log: log, gate: newHandshakeGate(st.handshakeLimits()),
		lingering: make(chan struct{}, maxLingering), junk: logLimiter{every: junkLogEvery, now: time.Now}}, nil
}

// Serve accepts connections on ln until ctx is cancelled or ln fails, and
// returns after every connection it accepted has been dealt with.
func (p *Proxy) Serve(ctx context.Context, ln net.Listener) error {
	log := p.log
	if dir := p.st.Rendezvous; dir != "" && p.st.half() == NearHalf && p.st.resumeWithin() > 0 {
		r, err := openRendezvous(dir)
		if err != nil {
			// Serve the session all the same, as one the channel's end
			// ends: with no way to be reached again, it cannot resume.
			log.Warn("scache: the session will end with the command's channel, not resume after it", "err", err)
			p.noRendezvous.Store(true)
		} else {
			p.rendezvous = r
			served := make(chan struct{})
			go func() { defer close(served); p.serveRendezvous(r, log) }()
			defer func() { r.close(); <-served }() // after the sessions (the next defer) are done
		}
	}
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	defer p.wg.Wait()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("scache: accepting debuggers: %w", err)
		}
		pc, err := p.gate.admit(conn, p.handshakeTimeout())
		if err != nil {
			p.refuseAtTheDoor(log, conn, err)
			continue
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.serveConn(ctx, pc, log)
		}()
	}
}

// handshakeTimeout bounds a connection's whole handshake.
func (p *Proxy) handshakeTimeout() time.Duration {
	if p.st.HandshakeTimeout > 0 {
		return p.st.HandshakeTimeout
	}
	return jdwp.HandshakeTimeout
}

// refuseAtTheDoor closes a connection the handshake limits refused; a near
// half first tells it why, in the tunnel's own answer.
func (p *Proxy) refuseAtTheDoor(log *slog.Logger, conn net.Conn, why error) {
	p.refused(log, conn, why, "scache: refusing a connection at the handshake limits (see HandshakeLimits)")
	if p.st.half() != NearHalf {
		conn.Close()
		return
	}
	_ = conn.SetDeadline(time.Now().Add(doorLinger))
	_, _ = conn.Write(tunnel.NearHello(tunnel.StatusBusy, 0, "the near half refused the connection: "+why.Error()+"; try again"))
	select {
	case p.lingering <- struct{}{}:
	default:
		conn.Close() // too many refusals under way: no time for this one's
		return
	}
	// Closing with the far half's hello unread in the socket would reset
	// the connection, and a reset can discard the refusal before the far
	// half reads it: end writing, read what it sent, then close.
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer func() { <-p.lingering }()
		_ = closeWrite(conn) // the deadline above bounds the read
		_, _ = io.Copy(io.Discard, conn)
		conn.Close()
	}()
}

// doorLinger bounds how long a refusal at the door is written and the
// refused peer's bytes read; maxLingering bounds how many at once.
const (
	doorLinger   = 200 * time.Millisecond
	maxLingering = 64
)

// serveConn reads a connection's handshake and, if it is the first complete
// one while no session runs, serves the session.
func (p *Proxy) serveConn(ctx context.Context, pc *pendingConn, log *slog.Logger) {
	var conn net.Conn = pc
	// pc, not conn: conn becomes the TLS connection over pc below, while
	// this may run (closing pc closes both).
	stop := context.AfterFunc(ctx, func() { pc.Close() })
	var err error
	var h tunnel.Hello // a near half's: the far half's hello
	st, hello, peer := p.st, jdwp.HandshakeBytes, "a JDWP debugger"
	if key := p.st.tunnelKey(); p.st.half() == NearHalf {
		hello, peer = nil, "the far half of a split proxy"
		if key != nil {
			peer = "a far half holding this tunnel key (" + key.Fingerprint() + ")"
			conn, err = p.keyedNear(ctx, conn, key)
		}
		if err == nil {
			h, err = tunnel.ReadHello(conn)
		}
		switch {
		case err == nil && h.Resume: // handed to its session below
		case err == nil:
			hello = tunnel.FarOpening(h.Features) // as the far half sent it
			err = tunnel.ReadHeartbeat(conn)      // the VM is dialled only for a far half that goes on
		case errors.Is(err, tunnel.ErrJDWPAtNear) && key == nil:
			// A debugger pointed here by mistake: serve it as one proxy
			// next to the VM would, rather than fail its handshake with
			// a text no debugger shows. (A keyed near half refuses it:
			// serving it would bypass the key.)
			st, hello, err = p.st.whole(), jdwp.HandshakeBytes, nil
			log.Warn("scache: a JDWP debugger connected to the near half of a split proxy: serving it as one proxy next to the VM; "+
				"for the split's speed, point the debugger at a far half (scache proxy -split far -vm THIS_ADDRESS)", "remote", conn.RemoteAddr().String())
		default:
			refuseFar(conn, err)
		}
	} else {
		err = jdwp.ReadHandshake(conn, "debugger")
	}
	_ = conn.SetDeadline(time.Time{})
	p.gate.done(pc)
	if !stop() {
		conn.Close()
		return // shutting down
	}
	if err != nil {
		p.refused(log, conn, err, "scache: closing a connection that is not "+peer)
		conn.Close()
		return
	}
	if h.Resume {
		p.resumeSession(conn, h, log) // a session of this Proxy's, not a new one
		return
	}
	claim, ok := p.claim(ctx)
	if !ok && st.half() == NearHalf && p.takeOver(ctx, log, conn) {
		claim, ok = p.claim(ctx)
	}
	if !ok {
		who := "a second debugger"
		if st.half() == NearHalf {
			who = "a second far half"
			why := "the near half is busy: it serves another session, and the VM accepts one JDWP session at a time"
			if p.waitingForLink() {
				why = "the near half is busy: its session waits for its far half's link to come back (-resume-within), and the VM accepts one JDWP session at a time"
			}
			_, _ = conn.Write(tunnel.NearHello(tunnel.StatusBusy, 0, why))
		}
		log.Warn("scache: refusing "+who+": the VM accepts one JDWP session at a time",
			"remote", conn.RemoteAddr().String())
		conn.Close()
		return
	}
	// The relay passes the handshake on: it reads it again from here.
	stats, err := p.session(ctx, st, &handshakeRead{Conn: conn, pending: hello}, log, claim)
	p.release(claim) // free before the callback: the next session may start from within it
	if ended := st.sessionEnded(); ended != nil {
		ended(stats, err)
	}
}

// claim makes the Proxy's one session this connection's, and reports
// whether it could (with the claim's number): not while another session
// is in progress. While another is still starting, it waits up to
// startingWait to see whether that one starts (a VM that is not there is
// known at once; one that takes its time to answer keeps the newcomer
// waiting no longer than that).
func (p *Proxy) claim(ctx context.Context) (uint64, bool) {
	wait := time.NewTimer(startingWait)
	defer wait.Stop()
	for {
		p.mu.Lock()
		if !p.active {
			p.claims++
			p.active, p.starting, p.idle = true, make(chan struct{}), make(chan struct{})
			p.mu.Unlock()
			return p.claims, true
		}
		starting := p.starting
		p.mu.Unlock()
		if starting == nil {
			return 0, false // a session is in progress
		}
		select {
		case <-starting:
		case <-wait.C:
			return 0, false // still starting: busy
		case <-ctx.Done():
			return 0, false
		}
	}
}

// startingWait bounds how long a connection waits for another session's
// start to see whether it is busy.
const startingWait = time.Second

// started marks claim's session as in progress: its handshake is through.
func (p *Proxy) started(claim uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.claims == claim && p.starting != nil {
		close(p.starting)
		p.starting = nil
	}
}

// release frees the Proxy for the next session: claim's ended, or never
// started. A session that cannot start releases it before its refusal is
// written, so that the far half that reads it and opens again is served.
func (p *Proxy) release(claim uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.active || p.claims != claim {
		return
	}
	p.active = false
	close(p.idle)
	if p.starting != nil {
		close(p.starting)
		p.starting = nil
	}
}

// keyedNear makes conn the near half's end of a keyed tunnel: a TLS 1.3
// handshake in which the far half must prove it holds key. A far half that
// sends its hello in the clear (it has no key) is told so in the tunnel's
// own answer; anything else is an error, and the VM is not dialled.
func (p *Proxy) keyedNear(ctx context.Context, conn net.Conn, key *TunnelKey) (net.Conn, error) {
	first := make([]byte, 1)
	if _, err := io.ReadFull(conn, first); err != nil {
		return conn, err
	}
	peeked := &handshakeRead{Conn: conn, pending: first}
	if first[0] != tlsHandshakeRecord {
		if _, err := tunnel.ReadHello(peeked); err == nil { // a new session's hello, or a resume's
			_, _ = conn.Write(tunnel.NearHello(tunnel.StatusKey, 0, "this near half requires a tunnel key: run the far half with -key FILE, the file the near half was given ("+key.Fingerprint()+")"))
			return conn, fmt.Errorf("%w: a far half came without a key", ErrWrongTunnelKey)
		}
		return conn, fmt.Errorf("not a TLS handshake (first byte %#x)", first[0])
	}
	tc := key.Server(peeked)
	if err := tc.HandshakeContext(ctx); err != nil {
		return conn, handshakeFailure(err)
	}
	return tc, nil
}

// tlsHandshakeRecord is the first byte of a TLS connection: a handshake
// record.
const tlsHandshakeRecord = 0x16

// refused logs a connection closed at its handshake, at most once per
// junkLogEvery: a flood of junk connections writes a line a second, with
// the count of those not logged.
func (p *Proxy) refused(log *slog.Logger, conn net.Conn, err error, msg string) {
	ok, muted := p.junk.allow()
	if !ok {
		return
	}
	args := []any{"remote", conn.RemoteAddr().String(), "err", err}
	if muted > 0 {
		args = append(args, "also_refused_since_last_line", muted)
	}
	log.Info(msg, args...)
}

// A logLimiter lets a line through at most once per every, and counts
// those it holds back.
type logLimiter struct {
	every time.Duration
	now   func() time.Time

	mu    sync.Mutex
	last  time.Time
	muted int
}

// allow reports whether to log now, and how many were held back since the
// last line logged.
func (l *logLimiter) allow() (bool, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if !l.last.IsZero() && now.Sub(l.last) < l.every {
		l.muted++
		return false, 0
	}
	muted := l.muted
	l.last, l.muted = now, 0
	return true, muted
}

// handshakeRead is a debugger connection whose handshake the proxy has
// already read: reads return the handshake first.
type handshakeRead struct {
	net.Conn
	pending []byte
}

func (c *handshakeRead) Read(b []byte) (int, error) {
	if len(c.pending) > 0 {
		n := copy(b, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	return c.Conn.Read(b)
}

// CloseWrite half-closes the connection when it can (see jdwp.CloseAfterDrain).
func (c *handshakeRead) CloseWrite() error { return closeWrite(c.Conn) }

// session serves one debugger (or far half) with the settings st, and
// returns the session's stats and error. A session that cannot start
// closes the connection and logs why.
func (p *Proxy) session(ctx context.Context, st *settings, debugger net.Conn, log *slog.Logger, claim uint64) (scache.Stats, error) {
	start := time.Now()
	vm, err := p.dialVM(ctx)
	if err != nil {
		party := "the VM"
		if st.half() == FarHalf {
			party = "the near half"
		}
		if addr := dialedAddr(err); addr != "" {
			party += " at " + addr
		}
		err = fmt.Errorf("scache: cannot reach %s: %w", party, err)
		if st.half() == NearHalf {
			p.release(claim) // the far half that reads this and opens again is served, not told busy
			_, _ = debugger.Write(tunnel.NearHello(tunnel.StatusVM, 0, err.Error()))
		}
		return notStarted(debugger, log, err)
	}
	if key := st.tunnelKey(); key != nil && st.half() == FarHalf {
		if vm, err = keyedFar(ctx, vm, key, p.st.HandshakeTimeout); err != nil {
			return notStarted(debugger, log, err)
		}
	}
	r, err := st.newRelay()
	if err != nil { // the options were checked by NewProxy: not seen
		vm.Close()
		return notStarted(debugger, log, fmt.Errorf("scache: cannot start a session: %w", err))
	}
	r.started = func() { p.started(claim) }
	r.resume = p.resumeConfig(st, log)
	err = r.Run(ctx, debugger, vm)
	p.release(claim) // before the session's line: who reads it and connects again is served, not told busy
	stats := r.Stats()
	level := slog.LevelInfo
	if err != nil && ctx.Err() == nil {
		level = slog.LevelWarn // the session ended on an error, not a clean close or shutdown
	}
	log.Log(ctx, level, "scache: session ended", "duration", time.Since(start).Round(time.Millisecond),
		"packets_up", stats.PacketsUp, "packets_down", stats.PacketsDown, "synthetic", stats.Synthetic,
		"hits", stats.Hits, "belayed", stats.Belayed, "misses", stats.Misses, "wasted", stats.Wasted,
		"round_trip", stats.RoundTrip.Round(time.Microsecond), "vm_service", stats.ServiceTime.Round(time.Microsecond),
		"bandwidth_kib_s", int64(stats.Bandwidth/1024), "err", err)
	if reason := r.EndReason(); reason != "" && st.half() != Whole {
		log.Log(ctx, level, "scache: the split session ended: "+reason, "half", st.half().String(),
			"link_resumes", stats.TunnelResumes, "sent_again_bytes", stats.TunnelSentAgainBytes)
	}
	if errors.Is(err, ErrTunnelLost) || errors.Is(err, scache.ErrTunnel) {
		log.Error("scache: the split proxy's tunnel failed; the debugger's session ended", "half", st.half().String(), "err", err)
	}
	return stats, err
}

// notStarted ends a session that could not start: the debugger's (or far
// half's) connection closes and the error is logged.
func notStarted(debugger net.Conn, log *slog.Logger, err error) (scache.Stats, error) {
	debugger.Close()
	log.Error(err.Error())
	return scache.Stats{}, err
}

// dialedAddr returns the address a failed dial was for, when the error
// says it.
func dialedAddr(err error) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Addr != nil {
		return op.Addr.String()
	}
	return ""
}
