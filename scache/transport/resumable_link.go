package transport

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jdwpscache/scache/scache/internal/tunnel"
)

// A resumableLink is the tunnel of a split session that survives the loss
// of its connection (tunnel.Resume): the stream of bytes between the two
// halves, over one connection after another.
//
// It counts the bytes it sent and received, and keeps what it sent until
// the other half says, in a 'K' frame, that it received them. When the
// connection fails (a reset, an end without an end frame, or the silence
// that the split run reports with drop), the link is down: reads wait,
// writes are kept. The far half dials again with backoff and sends its
// ResumeHello, and right behind it, without waiting for the answer, what
// the near half has not acknowledged; the near half waits for it at its
// Proxy, drops what of that had arrived, and answers with what it
// received and sends again what the far half lacks. Reads go on where they
// stopped: the split run's frame reader never sees the cut. Past the
// grace time, or when what is kept would pass the bound, the link gives
// up: reads and writes return an error wrapping ErrTunnelLost.
type resumableLink struct {
	cfg      *resumeConfig
	half     Half
	features tunnel.Features
	// endReceived and endSent report whether the other half's end frame
	// was read, and whether this half's was queued: a connection lost
	// after the first, or after the second is in the stream (writeEnded)
	// and the other half said it received everything, is the session's
	// end, not a cut.
	endReceived, endSent func() bool
	// onResumed is called after each resume (the split run restarts its
	// silence clock).
	onResumed func()
	ctx       context.Context // ended by Close: stops a far half's dialling
	cancel    context.CancelFunc

	writeMu sync.Mutex // held for each write to a connection, and for a resume's replay

	mu   sync.Mutex
	cond *sync.Cond
	conn net.Conn // nil while the link is down
	gen  uint64   // the connection's number: a read of an older one is dropped
	// writeDead: a write to conn failed. What is written is kept, and the
	// reader goes on reading what arrived until conn fails there too:
	// what it reads is what the other half need not send again.
	writeDead bool
	// writeEnded: CloseWrite was called, so everything this half writes,
	// its end frame last, is in the stream (sent counts it). Until then a
	// queued end frame may not be: the other half saying it received
	// everything says nothing about it.
	writeEnded bool
	sent       uint64 // bytes written into the stream
	acked      uint64 // bytes the other half said it received
	kept       []byte // the stream's bytes [acked, sent)
	// received: bytes read from the stream; written under mu, read
	// without it (the split run asks it at every frame it reads).
	received atomic.Uint64
	token    tunnel.Token
	// previous is the near half's token before the last resume, still
	// taken until the far half shows it read the new one (its first byte
	// on the new connection): the answer that carried it may have been cut.
	previous    tunnel.Token
	hasPrevious bool
	// previousUntil: the far half read the new token once this half
	// received more than this of the stream (what it sent again before
	// it read the answer ends there).
	previousUntil uint64
	// skip is what the connection brings first that arrived already: the
	// far half sends again, before it reads the answer, everything this
	// half had not acknowledged (a pipelined resume); it is dropped as read.
	skip     uint64
	err      error // the link gave up or closed: reads and writes return it
	lostAt   time.Time
	lostWhy  error
	expiry   *time.Timer
	resumes  int
	replayed int64
	// attempts numbers the resumes begun: one that a newer one began
	// after is stale (the far half dials a new connection only once it
	// gave the last one up), and never brings its connection up.
	attempts uint64
}

// resumeConfig is how a Proxy's split sessions resume: set on each
// session's Relay by the Proxy (a Relay run alone has no way to a new
// connection, and does not offer Resume).
type resumeConfig struct {
	within  time.Duration // the grace time
	maxKept int           // the bound on what a half keeps for the other
	log     *slog.Logger
	timeout time.Duration // of a resume's handshake
	// endWait bounds how long a near half whose end frame left waits for
	// the link to come back (endLinger).
	endWait  time.Duration
	dial     func(ctx context.Context) (net.Conn, error)
	register func(tunnel.Token, *resumableLink) // the near half's Proxy
	forget   func(tunnel.Token)
}

// DefaultResumeWithin is how long the halves of a split session wait for
// a lost link to come back before they end the session (WithResume).
const DefaultResumeWithin = 3 * time.Minute

// DefaultResumeBytes bounds what each half of a split session keeps for
// the other until it says it received it: what crosses while the link is
// down, and what was in flight when it went. Past it the session ends
// (WithResumeBytes sets another bound).
const DefaultResumeBytes = 64 << 20

// Backoff of a far half's dialling while the link is down.
const (
	redialFirst = 20 * time.Millisecond
	redialMost  = 500 * time.Millisecond
)

// refusedFor is how long a far half's dials must be refused (nothing
// listens where the near half did) before it takes the near half as gone.
const refusedFor = 5 * time.Second

// redialsPerLine: a far half that dials again logs every so many
// attempts (the first, then about every 10 s).
const redialsPerLine = 20

// ackEvery is how many bytes a half reads before it says so in a 'K'
// frame, on top of one every silence check.
const ackEvery = 256 << 10

// newResumableLink returns the link of a session on c. written is what
// this half wrote of the stream before (the heartbeat behind a far half's
// hello).
func newResumableLink(c net.Conn, cfg *resumeConfig, half Half, features tunnel.Features, token tunnel.Token, written []byte) *resumableLink {
	ctx, cancel := context.WithCancel(context.Background())
	l := &resumableLink{cfg: cfg, half: half, features: features, conn: c, token: token, ctx: ctx, cancel: cancel,
		endReceived: func() bool { return false }, endSent: func() bool { return false }, onResumed: func() {},
		kept: append([]byte(nil), written...), sent: uint64(len(written))}
	l.cond = sync.NewCond(&l.mu)
	if cfg.register != nil {
		cfg.register(token, l)
	}
	return l
}

// newToken returns a random resume token.
func newToken() tunnel.Token {
	var t tunnel.Token
	_, _ = rand.Read(t[:]) // crypto/rand.Read does not fail
	return t
}

// Read reads the stream, across resumes.
func (l *resumableLink) Read(p []byte) (int, error) {
	for {
		l.mu.Lock()
		for l.conn == nil && l.err == nil {
			l.cond.Wait()
		}
		if l.err != nil {
			l.mu.Unlock()
			return 0, l.err
		}
		c, gen := l.conn, l.gen
		l.mu.Unlock()
		n, err := c.Read(p)
		l.mu.Lock()
		if gen != l.gen {
			l.mu.Unlock()
			continue // a resume replaced the connection: the other half sends these bytes again
		}
		if d := min(uint64(n), l.skip); d > 0 {
			l.skip -= d
			n = copy(p, p[d:n])
		}
		l.received.Add(uint64(n))
		if l.hasPrevious && l.received.Load() > l.previousUntil {
			l.hasPrevious = false // the far half holds the new token
			l.cfg.forget(l.previous)
		}
		if err != nil {
			l.lostLocked(gen, err)
		}
		l.mu.Unlock()
		if n > 0 {
			return n, nil
		}
	}
}

// Write adds p to the stream: written now while the link is up, kept for
// the other half until it says it received it, and sent again on resume.
// While the link is up and the kept bytes are at their bound, it waits for
// the other half's 'K' frames; while it is down, it fails the session.
func (l *resumableLink) Write(p []byte) (int, error) {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	l.mu.Lock()
	for l.err == nil && l.conn != nil && len(l.kept) > 0 && len(l.kept)+len(p) > l.cfg.maxKept {
		l.cond.Wait()
	}
	if l.err == nil && len(l.kept)+len(p) > l.cfg.maxKept {
		l.giveUpLocked(fmt.Errorf("%w: the link to the %s is down and what this half keeps for it passed %d bytes",
			ErrTunnelLost, l.otherHalf(), l.cfg.maxKept))
	}
	if l.err != nil {
		err := l.err
		l.mu.Unlock()
		return 0, err
	}
	l.kept = append(l.kept, p...)
	l.sent += uint64(len(p))
	c, gen := l.conn, l.gen
	if l.writeDead {
		c = nil
	}
	l.mu.Unlock()
	if c != nil {
		if _, err := c.Write(p); err != nil {
			l.mu.Lock()
			if gen == l.gen {
				l.writeDead = true // the reader ends the connection once it has read what came
			}
			l.mu.Unlock()
		}
	}
	return len(p), nil
}

// CloseWrite half-closes the connection once everything before it was
// written: the stream is complete. While the link is down it waits for the
// resume (which writes the end frame again), or for the link to give up;
// unless the connection was lost as the session's end (endOwed): then the
// link ends here.
func (l *resumableLink) CloseWrite() error {
	l.mu.Lock()
	l.writeEnded = true
	if l.conn == nil && l.err == nil && !l.endOwed(l.lostWhy) {
		l.giveUpLocked(net.ErrClosed)
	}
	for l.conn == nil && l.err == nil {
		l.cond.Wait()
	}
	c, err := l.conn, l.err
	l.mu.Unlock()
	if err != nil {
		return err
	}
	return closeWrite(c)
}

// Close ends the link for good.
func (l *resumableLink) Close() error {
	l.mu.Lock()
	l.giveUpLocked(net.ErrClosed)
	l.mu.Unlock()
	return nil
}

// acknowledged takes the other half's 'K' frame: it received n bytes.
func (l *resumableLink) acknowledged(n uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.trimLocked(n)
}

// trimLocked forgets what the other half received, up to n.
func (l *resumableLink) trimLocked(n uint64) {
	if n <= l.acked || n > l.sent {
		return // an old count (sent again at a resume), or none we sent
	}
	l.kept = l.kept[n-l.acked:]
	l.acked = n
	if cap(l.kept) > 2*len(l.kept)+ackEvery {
		l.kept = append([]byte(nil), l.kept...)
	}
	l.cond.Broadcast()
}

// receivedBytes returns the bytes read from the stream so far.
func (l *resumableLink) receivedBytes() uint64 { return l.received.Load() }

// down reports whether the link waits for a resume.
func (l *resumableLink) down() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.conn == nil && l.err == nil
}

// drop takes the link down: the split run heard nothing for its silence
// timeout (a link that stalled keeps its socket open).
func (l *resumableLink) drop(why error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lostLocked(l.gen, why)
}

// takenOver gives the link up if it is still down, for a new far half's
// session that takes the VM, and reports how long it was down.
func (l *resumableLink) takenOver() (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn != nil || l.err != nil {
		return 0, false
	}
	downFor := time.Since(l.lostAt)
	l.giveUpLocked(fmt.Errorf("%w: the link to the far half was lost (%v), and a new far half's session took the VM", ErrTunnelLost, l.lostWhy))
	return downFor, true
}

// counts returns the resumes so far and the bytes sent again at them.
func (l *resumableLink) counts() (int, int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.resumes, l.replayed
}

func (l *resumableLink) otherHalf() string {
	if l.half == NearHalf {
		return "far half"
	}
	return "near half"
}

// lostLocked takes the link down after its connection of number gen
// failed with why, unless a resume replaced it already. A session that is
// ending ends with it.
func (l *resumableLink) lostLocked(gen uint64, why error) {
	if gen != l.gen || l.conn == nil || l.err != nil {
		return
	}
	old := l.conn
	l.conn, l.gen = nil, l.gen+1
	go old.Close()     // a write blocked on a stalled link returns
	l.cond.Broadcast() // a write waiting for room decides again
	if !l.endOwed(why) {
		l.giveUpLocked(net.ErrClosed)
		return
	}
	l.lostAt, l.lostWhy = time.Now(), why
	within := l.cfg.within
	if l.endSent() && l.half == NearHalf {
		// Our end frame left, and the link went before the far half's
		// 'K' frame said it arrived. Most likely it did, and the far half
		// is gone; had it not, the far half sees the loss and dials again
		// at once. Either way this is decided well within endWait.
		within = min(within, l.cfg.endWait)
	}
	until := l.lostAt.Add(within)
	l.expiry = time.AfterFunc(within, func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		switch {
		case l.conn != nil:
		case l.endSent() && l.half == NearHalf:
			l.giveUpLocked(net.ErrClosed) // the session had ended
		default:
			l.giveUpLocked(fmt.Errorf("%w: the link to the %s was lost (%v) and did not come back within %v",
				ErrTunnelLost, l.otherHalf(), l.lostWhy, within))
		}
	})
	l.cfg.log.Warn("scache: the link to the "+l.otherHalf()+" was lost; the session waits for it to come back",
		"half", l.half.String(), "err", why, "until", until.Format(time.TimeOnly))
	if l.half == FarHalf {
		go l.redial()
	}
}

// endOwed reports whether a connection lost with why leaves the other half
// owed something of the session: it does unless the session ended with
// nothing owed. That is when the other half's end frame was read; or when
// ours is in the stream (writeEnded) and the other half said it received
// everything, or closed its side cleanly after it (a forwarder between the
// halves may not pass on the 'K' frame that follows a half-close). An end
// frame only queued is owed: the other half may have acknowledged all that
// came before it, and a cut may come before it leaves.
func (l *resumableLink) endOwed(why error) bool {
	if l.endReceived() {
		return false
	}
	return !l.writeEnded || (l.acked != l.sent && !errors.Is(why, io.EOF))
}

// giveUpLocked ends the link with err: reads and writes return it.
func (l *resumableLink) giveUpLocked(err error) {
	if l.err != nil {
		return
	}
	l.err = err
	if l.conn != nil {
		go l.conn.Close()
		l.conn = nil
	}
	l.gen++
	if l.expiry != nil {
		l.expiry.Stop()
	}
	l.cancel()
	if l.cfg.forget != nil {
		l.cfg.forget(l.token)
		if l.hasPrevious {
			l.cfg.forget(l.previous)
		}
	}
	if !errors.Is(err, net.ErrClosed) {
		l.cfg.log.Error("scache: the split session gives up its link", "half", l.half.String(), "err", err)
	}
	l.cond.Broadcast()
}

// redial is the far half's: it dials the near half again, with backoff,
// until a resume succeeds, the near half says it holds the session no
// more, or the link gives up.
func (l *resumableLink) redial() {
	wait := time.Duration(0) // the first at once: a reset link is often back already
	var refusedSince time.Time
	for attempt := 1; ; attempt++ {
		select {
		case <-l.ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(max(2*wait, redialFirst), redialMost)
		err := l.resumeFar(attempt == 1)
		if err == nil {
			return
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			refusedSince = time.Time{}
		} else if refusedSince.IsZero() {
			refusedSince = time.Now()
		} else if time.Since(refusedSince) >= refusedFor {
			// Nothing listens where the near half did: its process ended,
			// and the session with it.
			l.mu.Lock()
			l.giveUpLocked(fmt.Errorf("%w: the near half refuses connections (for %v): it is no longer running: %w", ErrTunnelLost, refusedFor, err))
			l.mu.Unlock()
			return
		}
		var refusal *tunnel.RefusalError
		if errors.As(err, &refusal) || errors.Is(err, errResumeRefused) {
			l.mu.Lock()
			if l.endSent() {
				// The near half read the end frame and closed: its 'K'
				// frame was cut on the way.
				l.giveUpLocked(net.ErrClosed)
			} else {
				l.giveUpLocked(fmt.Errorf("%w: the near half refused to resume the session: %w", ErrTunnelLost, err))
			}
			l.mu.Unlock()
			return
		}
		level := slog.LevelDebug
		if attempt%redialsPerLine == 1 {
			level = slog.LevelInfo // a line about every 10 s while it lasts
		}
		l.cfg.log.Log(l.ctx, level, "scache: the near half is not reachable yet; dialing again", "attempt", attempt, "err", err)
	}
}

// errResumeRefused: the near half answered, and the session cannot go on.
var errResumeRefused = errors.New("the session cannot resume")

// errStaleResume: a newer resume began while this one was under way; its
// connection is closed without an answer (the far half gave it up; if it
// had not, it dials again).
var errStaleResume = errors.New("a newer connection resumes the session")

// resumeFar dials the near half and resumes the session on that
// connection. It does not wait for the answer to send again what the near
// half has not acknowledged: right behind its hello, the debugger's
// commands held while the link was down go on to the VM (the near half
// drops what of it had arrived). A refusal reads none of it.
//
// Only the first attempt after a loss sends again ahead of the answer: on
// a link that drops after every few hundred bytes, a replay ahead of it
// would keep the answer from ever arriving, and nothing would shrink.
func (l *resumableLink) resumeFar(pipeline bool) error {
	ctx, cancel := context.WithTimeout(l.ctx, l.cfg.timeout)
	defer cancel()
	c, err := l.cfg.dial(ctx)
	if err != nil {
		return err
	}
	up := false // c became the link's connection
	defer func() {
		if !up {
			c.Close()
		}
	}()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	l.mu.Lock()
	if l.conn != nil || l.err != nil {
		l.mu.Unlock()
		return nil // resumed or given up meanwhile
	}
	// kept is never written into, only appended to or cut from the
	// front: it can be written out after the lock.
	from, again, written := l.acked, l.kept, l.sent
	if !pipeline {
		again, written = nil, l.acked // From == To: nothing ahead of the answer
	}
	hello := tunnel.ResumeHello(l.features, l.token, l.received.Load(), from, written)
	l.mu.Unlock()
	if _, err := (&net.Buffers{hello, again}).WriteTo(c); err != nil {
		return err
	}
	if _, err := tunnel.ReadNearHello(c); err != nil {
		return err
	}
	theirs, next, err := tunnel.ReadResumeAnswer(c)
	if err != nil {
		return err
	}
	if !stop() {
		return ctx.Err()
	}
	l.mu.Lock()
	l.token = next // the near half took it on as it answered
	l.mu.Unlock()
	if err := l.resume(c, theirs, written, int64(len(again)), nil, func() {}); err != nil {
		return err
	}
	up = true
	return nil
}

// resumeNear resumes the session on c, a far half's new connection whose
// ResumeHello h says it received h.Received bytes, and that it sends again
// its stream from h.From to h.To right behind: the near half answers, then
// sends again what the far half lacks, and drops what it receives twice.
func (l *resumableLink) resumeNear(c net.Conn, h tunnel.Hello) error {
	next := newToken()
	return l.resume(c, h.Received, 0, 0, func(received uint64) ([]byte, error) {
		if h.From > received || h.To < h.From {
			return nil, fmt.Errorf("%w: the far half sends again bytes %d to %d of its stream, and this half received %d",
				errResumeRefused, h.From, h.To, received)
		}
		l.skip, l.previousUntil = received-h.From, max(received, h.To)
		if h.To == h.From {
			l.skip = 0 // nothing ahead of the answer: the far half sends from what this half received
		}
		return append(tunnel.NearHello(tunnel.StatusOn, l.features, ""), tunnel.ResumeAnswer(received, next)...), nil
	}, func() {
		if l.hasPrevious && h.Token == l.previous {
			// The far half never read the last answer: its token stays
			// the previous one until it reads this one's.
			l.cfg.forget(l.token)
		} else {
			if l.hasPrevious {
				l.cfg.forget(l.previous)
			}
			l.previous, l.hasPrevious = l.token, true
		}
		l.token = next
		l.cfg.register(next, l)
	})
}

// resume makes c the link's connection: the other half received theirs
// bytes of the stream, and this half wrote it on c up to written already
// (sentAgain bytes of it again; a far half's pipelined resume). preface,
// if set, returns what to write first, given the bytes this half received,
// or why the session cannot resume; agreed runs under the link's lock
// before it is written; then what the other half lacks is written again,
// and the link is up. A failed write leaves it down.
func (l *resumableLink) resume(c net.Conn, theirs, written uint64, sentAgain int64, preface func(received uint64) ([]byte, error), agreed func()) error {
	l.mu.Lock()
	if err := l.err; err != nil {
		l.mu.Unlock()
		return err
	}
	l.attempts++
	attempt := l.attempts
	if theirs < l.acked || theirs > l.sent {
		err := fmt.Errorf("%w: the %s received %d bytes of the stream, and this half keeps bytes %d to %d",
			errResumeRefused, l.otherHalf(), theirs, l.acked, l.sent)
		l.mu.Unlock()
		return err
	}
	old := l.conn
	l.conn, l.gen, l.writeDead = nil, l.gen+1, false // what an older connection reads from here on is dropped
	l.cond.Broadcast()                               // a write waiting for room, holding the writes, decides again
	l.mu.Unlock()
	if old != nil {
		old.Close() // the other half saw the loss first
	}
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	l.mu.Lock()
	if err := l.err; err != nil {
		l.mu.Unlock()
		return err
	}
	if attempt != l.attempts {
		l.mu.Unlock()
		return errStaleResume
	}
	// What is kept from theirs on is what the other half lacks. Writes
	// wait for writeMu, held here, and trimming never writes into kept's
	// array: it can be written out after the lock.
	l.trimLocked(theirs)
	again := l.kept
	if written > l.acked {
		again = again[min(written-l.acked, uint64(len(again))):]
	}
	var first []byte
	l.skip = 0 // what an older connection had yet to drop is not this one's
	if preface != nil {
		var err error
		if first, err = preface(l.received.Load()); err != nil {
			l.mu.Unlock()
			return err
		}
	}
	agreed() // before the write: the other half may read the answer even if the write fails
	l.mu.Unlock()
	_, werr := (&net.Buffers{first, again}).WriteTo(c)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	if attempt != l.attempts {
		// A newer connection came while this one's answer was written:
		// the other half gave this one up. Bringing it up would count what
		// it still reads after the newer answer said what this half had.
		return errStaleResume
	}
	// Up even if the write failed: what the other half sent on c is read
	// until c fails there too, and counts for the next resume.
	l.conn, l.writeDead = c, werr != nil
	l.gen++
	if l.expiry != nil {
		l.expiry.Stop()
	}
	l.resumes++
	l.replayed += sentAgain + int64(len(again))
	after := time.Duration(0)
	if !l.lostAt.IsZero() {
		after = time.Since(l.lostAt)
	}
	l.cfg.log.Info("scache: the link to the "+l.otherHalf()+" is back: the session goes on",
		"half", l.half.String(), "down_for", after.Round(time.Millisecond), "sent_again_bytes", sentAgain+int64(len(again)), "remote", peerName(c))
	l.lostAt = time.Time{}
	l.cond.Broadcast()
	go l.onResumed()
	return nil
}
