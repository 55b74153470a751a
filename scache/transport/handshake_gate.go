package transport

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/internal/option"
)

// HandshakeLimits bounds what a Proxy holds for connections that have not
// finished their handshake: before a far half has proved its key, or any
// peer has said it is a debugger or a far half, a connection costs a
// socket and a goroutine and gives nothing. They work as OpenSSH's
// MaxStartups, PerSourceMaxStartups and LoginGraceTime together:
//
//   - Up to Start connections wait for their handshake unhindered. From
//     Start on, a new one is dropped with probability Rate percent, rising
//     linearly to 100% at Full (random early drop): the table grows ever
//     more slowly, and never past Full.
//   - A dropped connection is not refused: it takes the place of the
//     oldest one that has sent nothing at all (in its first 250 ms, the
//     time its reader may take to run, none is taken for mute), or else of
//     a stale one:
//     one that has sent nothing for StaleSilence, or has taken longer than
//     StaleAge. A real far half sends its first bytes as it connects and
//     the rest of its hello within a round trip of the near half's answers
//     (a keyed one its TLS messages), so it is never stale: connections
//     that open and wait, or drip a byte at a time, cannot keep it out.
//   - When none is mute or stale, the newcomer takes the place of one drawn
//     at random: every connection in the table speaks, and the newcomer is
//     as likely a far half as any of them. A far half is never turned away
//     by a crowd, and one that finishes its handshake before as many newer
//     connections arrive as the table holds gets its session whatever the
//     flood holds open.
//   - At most PerSource connections from one IP address wait at once; a
//     newcomer past it takes the place of one of that address's own that
//     is mute or stale, or is refused.
//   - A connection that has sent nothing within FirstByte is closed; the
//     whole handshake still has the handshake timeout (WithHandshakeTimeout).
//
// A near half answers each connection it refuses with a busy status and
// why (its far half logs it); a JDWP proxy closes it. Refusals are logged at
// most once a second, with the count of the others.
type HandshakeLimits struct {
	Start, Rate, Full int
	PerSource         int
	FirstByte         time.Duration
	StaleSilence      time.Duration
	StaleAge          time.Duration
}

// DefaultHandshakeLimits are a Proxy's limits unless WithHandshakeLimits
// gives others: random early drop from 16 connections at 30% to 64, 8 from
// one address, a first byte within 3 s, and stale after 1 s of silence or
// 3 s in all (a keyed handshake over a 230 ms link takes about 350 ms).
var DefaultHandshakeLimits = HandshakeLimits{Start: 16, Rate: 30, Full: MaxPendingHandshakes, PerSource: 8,
	FirstByte: 3 * time.Second, StaleSilence: time.Second, StaleAge: 3 * time.Second}

// WithHandshakeLimits sets a Proxy's limits on connections still in their
// handshake (see HandshakeLimits).
func WithHandshakeLimits(l HandshakeLimits) scache.Option {
	return option.New(fmt.Sprintf("WithHandshakeLimits(%+v)", l), option.Proxy, func(st *option.Settings) error {
		if err := l.check(); err != nil {
			return err
		}
		st.HandshakeLimits = l
		return nil
	})
}

func (l HandshakeLimits) check() error {
	switch {
	case l.Start < 1 || l.Full < l.Start:
		return errors.New("Start must be at least 1 and Full at least Start")
	case l.Rate < 0 || l.Rate > 100:
		return errors.New("Rate is a percentage, 0 to 100")
	case l.PerSource < 1:
		return errors.New("PerSource must be at least 1")
	case l.FirstByte <= 0 || l.StaleSilence <= 0 || l.StaleAge <= 0:
		return errors.New("FirstByte, StaleSilence and StaleAge must be positive")
	}
	return nil
}

// handshakeLimits returns the limits given with WithHandshakeLimits, or
// the defaults.
func (st *settings) handshakeLimits() HandshakeLimits {
	if l, ok := st.HandshakeLimits.(HandshakeLimits); ok {
		return l
	}
	return DefaultHandshakeLimits
}

// A handshakeGate admits connections to their handshake within the limits
// and keeps those still in it.
type handshakeGate struct {
	limits HandshakeLimits
	now    func() time.Time
	chance func() float64 // in [0, 1)

	mu       sync.Mutex
	pending  map[*pendingConn]struct{}
	bySource map[string]int
}

func newHandshakeGate(l HandshakeLimits) *handshakeGate {
	return &handshakeGate{limits: l, now: time.Now, chance: rand.Float64,
		pending: make(map[*pendingConn]struct{}), bySource: make(map[string]int)}
}

// A pendingConn is a connection in its handshake: it notes when its bytes
// arrive, and gives the handshake its whole timeout once the first has.
// Once the handshake is done (settled) it is the connection as it is: the
// session's reads pay nothing for it.
type pendingConn struct {
	net.Conn
	source     string
	accepted   time.Time
	handshake  time.Time    // the handshake's deadline
	heard      atomic.Int64 // Unix ns of the last read that brought bytes; 0: none yet
	evictedFor atomic.Pointer[string]
	settled    atomic.Bool // the handshake is done: nothing more to note
}

// Read reads from the connection and, during the handshake, notes that
// bytes arrived.
func (c *pendingConn) Read(b []byte) (int, error) {
	if c.settled.Load() {
		return c.Conn.Read(b)
	}
	n, err := c.Conn.Read(b)
	if n > 0 && c.heard.Swap(time.Now().UnixNano()) == 0 {
		_ = c.Conn.SetReadDeadline(c.handshake) // the first byte came: the whole handshake's time
	}
	if err != nil {
		if why := c.evictedFor.Load(); why != nil {
			err = fmt.Errorf("%s: %w", *why, err)
		}
	}
	return n, err
}

// CloseWrite half-closes the connection when it can (see jdwp.CloseAfterDrain).
func (c *pendingConn) CloseWrite() error { return closeWrite(c.Conn) }

// closeWrite half-closes c when it can.
func closeWrite(c net.Conn) error {
	if hc, ok := c.(interface{ CloseWrite() error }); ok {
		return hc.CloseWrite()
	}
	return errors.ErrUnsupported
}

// lastHeard is when the connection last brought bytes, or was accepted.
func (c *pendingConn) lastHeard() time.Time {
	if ns := c.heard.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return c.accepted
}

// admit takes conn into its handshake, with the handshake's deadline
// timeout from now, or refuses it and says why.
func (g *handshakeGate) admit(conn net.Conn, timeout time.Duration) (*pendingConn, error) {
	now := g.now()
	source := sourceOf(conn)
	g.mu.Lock()
	defer g.mu.Unlock()
	if n := g.bySource[source]; n >= g.limits.PerSource {
		if !g.evict(now, source, fmt.Sprintf("%d connections from %s in their handshake", n, source)) {
			return nil, fmt.Errorf("%d connections from %s are still in their handshake (the limit per address), none of them stale", n, source)
		}
	} else if n := len(g.pending); n >= g.limits.Start && g.chance() < g.dropChance(n) {
		if !g.evict(now, "", fmt.Sprintf("%d connections in their handshake", n)) {
			g.evictAtRandom(fmt.Sprintf("%d connections in their handshake, none of them mute or stale", n))
		}
	}
	c := &pendingConn{Conn: conn, source: source, accepted: now, handshake: now.Add(timeout)}
	_ = conn.SetDeadline(c.handshake)
	_ = conn.SetReadDeadline(now.Add(min(g.limits.FirstByte, timeout)))
	g.pending[c] = struct{}{}
	g.bySource[source]++
	return c, nil
}

// evict closes the connection whose place a newcomer takes (from source,
// or from any when source is ""), and reports whether there was one: the
// oldest that has sent nothing at all, else the stale one silent longest.
func (g *handshakeGate) evict(now time.Time, source, crowd string) bool {
	victim := g.victim(now, source)
	if victim == nil {
		return false
	}
	g.close(victim, fmt.Sprintf("closed for a newer connection after %v in its handshake, silent for %v (%s)",
		now.Sub(victim.accepted).Round(time.Millisecond), now.Sub(victim.lastHeard()).Round(time.Millisecond), crowd))
	return true
}

// close closes c for a newcomer, and says why to its reader.
func (g *handshakeGate) close(c *pendingConn, why string) {
	c.evictedFor.Store(&why)
	g.forget(c)
	c.Conn.Close()
}

// dropChance is the chance that a new connection is refused (or takes a
// stale one's place) while n wait for their handshake.
func (g *handshakeGate) dropChance(n int) float64 {
	l := g.limits
	if n >= l.Full || l.Full == l.Start {
		return 1
	}
	rate := float64(l.Rate) / 100
	return rate + (1-rate)*float64(n-l.Start)/float64(l.Full-l.Start)
}

// muteGrace is how long a connection that has sent nothing is not taken
// for mute: a far half's first bytes arrive as it connects, but the
// goroutine that reads them may not have run yet.
const muteGrace = 250 * time.Millisecond

// evictAtRandom closes a connection drawn at random: the newcomer is
// dropped and every connection in the table speaks, so it is as likely a
// far half as any of them. A flood of connections that speak can then
// never keep a far half out for good: it needs only finish its handshake
// before as many newcomers as the table holds have come.
func (g *handshakeGate) evictAtRandom(crowd string) {
	k := int(g.chance() * float64(len(g.pending)))
	for c := range g.pending {
		if k--; k < 0 {
			g.close(c, fmt.Sprintf("closed for a newer connection, drawn at random (%s)", crowd))
			return
		}
	}
}

// victim returns the connection whose place a newcomer takes, from source
// (any, when ""), or nil: the oldest that has sent nothing at all (a far
// half sends its first bytes as it connects), else the one silent longest
// among the stale ones. (An evicted far half is told, and says so.)
func (g *handshakeGate) victim(now time.Time, source string) *pendingConn {
	var mute, stale *pendingConn
	for c := range g.pending {
		switch {
		case source != "" && c.source != source:
		case c.heard.Load() == 0:
			if now.Sub(c.accepted) < muteGrace {
				continue // its first bytes may be there, not read yet
			}
			if mute == nil || c.accepted.Before(mute.accepted) {
				mute = c
			}
		case now.Sub(c.lastHeard()) >= g.limits.StaleSilence || now.Sub(c.accepted) >= g.limits.StaleAge:
			if stale == nil || c.lastHeard().Before(stale.lastHeard()) {
				stale = c
			}
		}
	}
	if mute != nil {
		return mute
	}
	return stale
}

// done ends c's handshake: it no longer counts against the limits, and
// its reads are the connection's own.
func (g *handshakeGate) done(c *pendingConn) {
	c.settled.Store(true)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.forget(c)
}

func (g *handshakeGate) forget(c *pendingConn) {
	if _, ok := g.pending[c]; !ok {
		return
	}
	delete(g.pending, c)
	if g.bySource[c.source]--; g.bySource[c.source] <= 0 {
		delete(g.bySource, c.source)
	}
}

// sourceOf names the address a connection comes from, without its port.
func sourceOf(c net.Conn) string {
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return a.IP.String()
	}
	if c.RemoteAddr() == nil {
		return ""
	}
	return c.RemoteAddr().String()
}
