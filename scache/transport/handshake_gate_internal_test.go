package transport

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeConn is a connection from a given address, for the gate's
// bookkeeping: the gate reads nothing of it.
type fakeConn struct {
	net.Conn
	from   *net.TCPAddr
	closed bool
}

func (c *fakeConn) RemoteAddr() net.Addr               { return c.from }
func (c *fakeConn) Close() error                       { c.closed = true; return nil }
func (c *fakeConn) SetDeadline(t time.Time) error      { return nil }
func (c *fakeConn) SetReadDeadline(t time.Time) error  { return nil }
func (c *fakeConn) SetWriteDeadline(t time.Time) error { return nil }

func from(ip string) *fakeConn {
	return &fakeConn{from: &net.TCPAddr{IP: net.ParseIP(ip), Port: 40000}}
}

// The gate's rules, on a clock and a chance of its own: the limit per
// address; random early drop between Start and Full; and a newcomer that
// would be dropped takes the place of the oldest connection that has sent
// nothing, else of the one silent longest among the stale ones, else of one
// drawn at random: a crowd refuses no one.
func TestTheHandshakeGateRules(t *testing.T) {
	l := HandshakeLimits{Start: 2, Rate: 50, Full: 4, PerSource: 2, FirstByte: time.Second, StaleSilence: time.Second, StaleAge: 3 * time.Second}
	g := newHandshakeGate(l)
	now := time.Unix(1000, 0)
	g.now = func() time.Time { return now }
	draw := 0.0
	g.chance = func() float64 { return draw }
	speak := func(cs ...*pendingConn) {
		for _, c := range cs {
			c.heard.Store(now.UnixNano())
		}
	}
	admit := func(ip string) (*pendingConn, error) { return g.admit(from(ip), time.Minute) }

	// Per address: two that speak keep a third out.
	a1, err := admit("127.0.0.2")
	require.NoError(t, err)
	a2, err := admit("127.0.0.2")
	require.NoError(t, err)
	speak(a1, a2)
	_, err = admit("127.0.0.2")
	require.ErrorContains(t, err, "the limit per address")

	// Random early drop: 50% at 2 waiting, 75% at 3, all at Full.
	require.InDelta(t, 0.5, g.dropChance(2), 1e-9)
	require.InDelta(t, 0.75, g.dropChance(3), 1e-9)
	require.InDelta(t, 1, g.dropChance(4), 1e-9)
	draw = 0.6 // 2 waiting: 0.6 ≥ 0.5, admitted
	mute, err := admit("127.0.0.3")
	require.NoError(t, err)

	// Dropped (0.7 < 0.75 at 3 waiting): after its first 250 ms, the
	// newcomer takes the place of the one that has sent nothing.
	draw = 0.7
	now = now.Add(muteGrace)
	speak(a1, a2)
	c, err := admit("127.0.0.4")
	require.NoError(t, err)
	require.NotContains(t, g.pending, mute)
	require.True(t, mute.Conn.(*fakeConn).closed)
	require.Contains(t, *mute.evictedFor.Load(), "closed for a newer connection")
	require.Len(t, g.pending, 3)

	// In its first 250 ms one that has sent nothing may not have been
	// read yet: it is not taken for mute, and with all the others speaking
	// and none stale, the newcomer takes the place of one drawn at random.
	// A crowd never turns a newcomer away.
	fresh, err := admit("127.0.0.6") // 0.7 < 0.75: dropped, takes c's place or another's
	require.NoError(t, err)
	require.Len(t, g.pending, 3, "the table does not grow")
	require.Contains(t, g.pending, fresh)
	for p := range g.pending {
		speak(p)
	}
	draw = 0
	e, err := admit("127.0.0.5")
	require.NoError(t, err, "all speak and none is stale: drawn at random, not refused")
	require.Len(t, g.pending, 3)
	require.Contains(t, g.pending, e)
	drawn := 0
	for _, p := range []*pendingConn{a1, a2, c, fresh} {
		if why := p.evictedFor.Load(); why != nil && strings.Contains(*why, "drawn at random") {
			drawn++
			require.NotContains(t, g.pending, p)
		}
	}
	require.Equal(t, 2, drawn, "one drawn, and told why, for each of the two newcomers")

	// 1.5 s on, e speaks again; the others are silent: a newcomer takes
	// the place of one of them.
	now = now.Add(1500 * time.Millisecond)
	speak(e)
	d, err := admit("127.0.0.7")
	require.NoError(t, err)
	require.Contains(t, g.pending, e, "the one that spoke stays")
	require.Len(t, g.pending, 3)

	// A slow drip is stale once it is StaleAge old, though it speaks.
	now = now.Add(2 * time.Second)
	for p := range g.pending {
		speak(p)
	}
	v := g.victim(now, "")
	require.NotNil(t, v)
	require.NotSame(t, d, v, "2 s old and speaking: not stale")

	// A handshake that ends frees its place.
	g.done(d)
	require.NotContains(t, g.pending, d)
	require.Zero(t, g.bySource["127.0.0.7"])
}
