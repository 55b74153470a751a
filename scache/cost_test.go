package scache

import (
	"testing"
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache/internal/tunnel"
	"github.com/stretchr/testify/require"
)

// fakeClock is a clock the test moves.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// session plays commands through a cost model on a link of round trip
// link to a VM that serves one command per service: alone commands one at
// a time, then bursts of burst commands sent together.
func costSession(link, service time.Duration, burst int) (*costModel, *fakeClock) {
	clock := &fakeClock{t: time.Unix(1000, 0)}
	c := &costModel{now: clock.now}
	for round := 0; round < 8; round++ {
		// One command alone: its reply after the link and one service.
		p := &inFlight{}
		c.sending(p)
		c.sent(commandPacket)
		clock.t = clock.t.Add(link + service)
		at, prev := c.arrival()
		c.answered(p, at, prev)
		// A burst: the replies come one service apart.
		sent := make([]*inFlight, burst)
		for i := range sent {
			sent[i] = &inFlight{}
			c.sending(sent[i])
			c.sent(commandPacket)
		}
		clock.t = clock.t.Add(link)
		for _, p := range sent {
			clock.t = clock.t.Add(service)
			at, prev := c.arrival()
			c.answered(p, at, prev)
		}
		clock.t = clock.t.Add(time.Second) // the debugger looks
	}
	return c, clock
}

var commandPacket = []byte{0, 0, 0, 11, 0, 0, 0, 1, 0, 1, 1}

// TestTheLinkAndTheVMAreMeasured: the round trip of commands sent alone
// and the gaps between replies to commands queued at the VM give the
// link's round trip and the VM's service time.
func TestTheLinkAndTheVMAreMeasured(t *testing.T) {
	for _, tc := range []struct{ link, service time.Duration }{
		{0, 2 * time.Millisecond}, {2 * time.Millisecond, 500 * time.Microsecond}, {20 * time.Millisecond, 2 * time.Millisecond},
		{20 * time.Millisecond, 20 * time.Microsecond},
	} {
		c, _ := costSession(tc.link, tc.service, 6)
		require.Equal(t, tc.service, c.service.estimate(), "service %v over %v", tc.service, tc.link)
		require.Equal(t, tc.link, c.link(), "link %v with service %v", tc.link, tc.service)
		require.Zero(t, c.outstanding, "every command answered")
	}
}

// TestSpeculationPaysOnlyWhereItSaves: a fast VM (HotSpot) is never gated;
// next to a slow VM (RTT 0, 2 ms a command) a command goes only if it is
// sure to be used; over 20 ms, one used one time in ten pays; the bound of
// what is in flight keeps the VM busy for a round trip.
func TestSpeculationPaysOnlyWhereItSaves(t *testing.T) {
	fast, _ := costSession(20*time.Millisecond, 20*time.Microsecond, 6)
	require.False(t, fast.slow())
	require.True(t, fast.pays(0.01))
	require.Equal(t, 64, fast.inFlightBound(64))

	local, _ := costSession(0, 2*time.Millisecond, 6)
	require.True(t, local.slow())
	require.False(t, local.pays(0.9))
	require.True(t, local.pays(1))
	require.Equal(t, 2, local.inFlightBound(64))

	far, _ := costSession(20*time.Millisecond, 2*time.Millisecond, 6)
	require.True(t, far.pays(0.1))
	require.False(t, far.pays(0.05))
	require.Equal(t, 12, far.inFlightBound(64))
	require.Equal(t, 5, far.inFlightBound(5), "never above the configured bound")
}

// TestANearHalfWeighsWithTheFarLink: next to the VM a near half's own
// round trip is about zero; it weighs nothing until the far half tells it
// the link between the halves, then weighs with that.
func TestANearHalfWeighsWithTheFarLink(t *testing.T) {
	near, _ := costSession(0, 2*time.Millisecond, 6)
	near.near = true
	require.False(t, near.slow(), "nothing weighed before the far half's round trip")
	require.True(t, near.pays(0.01))
	near.farRoundTrip = 22 * time.Millisecond // the far half's: 20 ms of link, the VM's 2 ms
	require.Equal(t, 20*time.Millisecond, near.link())
	require.True(t, near.pays(0.1))
	require.False(t, near.pays(0.05))
}

// TestNoClockNoEstimates: a Speculator without a clock measures nothing
// and gates nothing.
func TestNoClockNoEstimates(t *testing.T) {
	c := &costModel{}
	p := &inFlight{}
	c.sending(p)
	at, prev := c.arrival()
	c.answered(p, at, prev)
	require.False(t, c.slow())
	require.Zero(t, c.roundTrip.n)
	require.Zero(t, c.service.samples)
}

// TestTheFarHalfTellsTheNearHalfItsRoundTrip: once the far half has
// measured its round trip to the VM it sends it in an 'R' frame, and the
// near half weighs its pushes with it.
func TestTheFarHalfTellsTheNearHalfItsRoundTrip(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1000, 0)}
	cfg := defaultConfig()
	cfg.clock = clock.now
	far := newFar(cfg)
	var told []byte
	for id := uint32(1); id <= minSamples && told == nil; id++ {
		up := far.FromDebugger(jdwp.AppendCommandPacket(nil, id, &jdwp.VMAllThreadsCommand{}, jdwp.DefaultIDSizes))
		require.Len(t, up.Upstream, 1)
		clock.t = clock.t.Add(22 * time.Millisecond)
		down, err := far.FromNear(tunnel.NewFrame(tunnel.Packet, jdwp.AppendReplyPacket(nil, id, &jdwp.ObjectIDsReply{}, jdwp.DefaultIDSizes)))
		require.NoError(t, err)
		for _, f := range down.Upstream {
			if f[0] == tunnel.RoundTrip {
				told = f
			}
		}
	}
	require.NotNil(t, told, "an 'R' frame once the round trip is known")

	near := newNear(defaultConfig())
	_, err := near.FromFar(told)
	require.NoError(t, err)
	require.Equal(t, 22*time.Millisecond, near.spec.cost.farRoundTrip)
}

// TestBurstyRepliesStillGiveTheServiceTime: replies to commands queued at
// a VM of 500 µs reach the Speculator in bursts, and the VM pauses now and
// then; the estimate keeps the rate. Three shapes of run: gaps of nearly
// nothing and of two service times in turn; one long gap, then two replies
// back to back (a link that wakes late); eight replies coalesced, then a
// gap of eight service times (a reader that fell behind: single gaps, even
// their mean without the long ones, read nearly nothing there). Every third
// run holds a 50 ms pause.
func TestBurstyRepliesStillGiveTheServiceTime(t *testing.T) {
	for name, gaps := range map[string][]time.Duration{
		"alternating":               {20 * time.Microsecond, 980 * time.Microsecond},
		"one late, two catching up": {1440 * time.Microsecond, 30 * time.Microsecond, 30 * time.Microsecond},
		"eight coalesced":           {4000 * time.Microsecond, 0, 0, 0, 0, 0, 0, 0},
	} {
		var s serviceRuns
		at := time.Unix(1000, 0)
		for run := 0; run < 20; run++ {
			at = at.Add(time.Second) // the debugger looks: the run before ends
			prev := at
			for i := 0; i < 4*len(gaps); i++ {
				gap := gaps[i%len(gaps)]
				if run%3 == 2 && i == 1 {
					gap += 50 * time.Millisecond // a pause
				}
				at = prev.Add(gap)
				s.add(at, prev)
				prev = at
			}
		}
		require.InDelta(t, float64(500*time.Microsecond), float64(s.estimate()), float64(25*time.Microsecond), name)
	}
}

// A debugger's command sent while speculated commands are outstanding at
// the VM waits there until the last of them is served: its reply's
// arrival, less the link. The longest such wait is kept; a command sent
// with nothing speculated ahead waits behind nothing.
func TestWaitBehindSpeculationIsMeasuredFromTheLastReplyAhead(t *testing.T) {
	var b behindSpeculation
	t0 := time.Unix(1000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	first, second := b.synthetic(), b.synthetic()
	b.debugger(ms(1), 2) // behind both
	b.debugger(ms(2), 0) // nothing ahead: not followed
	link := 19 * time.Millisecond
	b.answered(first, ms(20), link, true)
	require.Zero(t, b.longest, "the second synthetic command is still ahead")
	require.Len(t, b.pending, 1)
	b.answered(second, ms(26), link, true)
	require.Equal(t, 6*time.Millisecond, b.longest, "26 ms less the 1 ms it was sent at and the 19 ms link")
	require.Empty(t, b.pending)
	third := b.synthetic()
	b.debugger(ms(30), 1)
	b.answered(third, ms(50), link, true)
	require.Equal(t, 6*time.Millisecond, b.longest, "1 ms behind: the longest stays")
	// Before the link is known, the commands are let go unmeasured: not
	// kept to be measured much later against a reply they never waited for.
	fourth := b.synthetic()
	b.debugger(ms(60), 1)
	b.answered(fourth, ms(500), link, false)
	require.Empty(t, b.pending)
	require.Equal(t, 6*time.Millisecond, b.longest)
}

// However many commands the VM would take in a round trip, the speculation
// in flight never holds more of the VM's time than maxWaitBehind.
func TestSpeculationInFlightIsBoundedByTheWaitItCauses(t *testing.T) {
	now := time.Unix(1000, 0)
	c := costModel{now: func() time.Time { return now }}
	for i := 0; i < 8; i++ { // a VM that serves one command per 5 ms
		c.service.add(now.Add(time.Duration(i+1)*5*time.Millisecond), now.Add(time.Duration(i)*5*time.Millisecond))
	}
	require.True(t, c.service.known())
	require.Equal(t, int(maxWaitBehind/(5*time.Millisecond)), c.inFlightBound(64), "64 allowed, 10 fit in 50 ms")
	require.Equal(t, int(maxWaitBehind/(5*time.Millisecond)), c.inFlightBound(0), "even unbounded")
}
