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
		c.answered(p, 11, at, prev)
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
			c.answered(p, 11, at, prev)
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
	require.True(t, fast.pays(0.01, fast.costOf(jdwp.CmdThreadReferenceFrames)))
	require.Equal(t, 64, fast.inFlightBound(64))

	local, _ := costSession(0, 2*time.Millisecond, 6)
	require.True(t, local.slow())
	require.False(t, local.pays(0.9, local.costOf(jdwp.CmdThreadReferenceFrames)))
	require.True(t, local.pays(1, local.costOf(jdwp.CmdThreadReferenceFrames)))
	require.Equal(t, 2, local.inFlightBound(64))

	far, _ := costSession(20*time.Millisecond, 2*time.Millisecond, 6)
	require.True(t, far.pays(0.1, far.costOf(jdwp.CmdThreadReferenceFrames)))
	require.False(t, far.pays(0.05, far.costOf(jdwp.CmdThreadReferenceFrames)))
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
	require.True(t, near.pays(0.01, near.costOf(jdwp.CmdThreadReferenceFrames)))
	near.farRoundTrip = 22 * time.Millisecond // the far half's: 20 ms of link, the VM's 2 ms
	require.Equal(t, 20*time.Millisecond, near.link())
	require.True(t, near.pays(0.1, near.costOf(jdwp.CmdThreadReferenceFrames)))
	require.False(t, near.pays(0.05, near.costOf(jdwp.CmdThreadReferenceFrames)))
}

// TestANearHalfMeasuresItsVMOnceToldTheFarLink: a near half told the far
// half's round trip (20 ms) still measures its VM's service from the
// replies queued there, over its own link of about 0: the far link is
// what its speculation saves, not what its commands cross.
func TestANearHalfMeasuresItsVMOnceToldTheFarLink(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1000, 0)}
	c := &costModel{now: clock.now, near: true, farRoundTrip: 20 * time.Millisecond}
	for range 8 {
		sent := make([]*inFlight, 6)
		for i := range sent {
			sent[i] = &inFlight{}
			c.sending(sent[i])
			c.sent(commandPacket)
		}
		for _, p := range sent {
			clock.t = clock.t.Add(500 * time.Microsecond)
			at, prev := c.arrival()
			c.answered(p, 11, at, prev)
		}
		clock.t = clock.t.Add(time.Second)
	}
	require.True(t, c.service.known())
	require.Equal(t, 500*time.Microsecond, c.service.estimate())
	require.True(t, c.fast() == false && c.slow(), "a VM of 500 µs is slow")
}

// TestNoClockNoEstimates: a Speculator without a clock measures nothing
// and gates nothing.
func TestNoClockNoEstimates(t *testing.T) {
	c := &costModel{}
	p := &inFlight{}
	c.sending(p)
	at, prev := c.arrival()
	c.answered(p, 11, at, prev)
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
	told := measureFarRoundTrip(t, far, clock, 22*time.Millisecond)
	require.NotNil(t, told, "an 'R' frame once the round trip is known")

	near := newNear(defaultConfig())
	_, err := near.FromFar(told)
	require.NoError(t, err)
	require.Equal(t, 22*time.Millisecond, near.spec.cost.farRoundTrip)
}

// TestTheNearHalfWeighsFromTheTunnelsHello: the far half tells the near
// half the round trip of the tunnel's hello at once, before any debugger
// command (a parallel client may send none alone for many stops), and
// its own measurement once it differs by an eighth. On a VM serving one
// command per 2 ms, the near half's speculation in flight is then bounded
// by that link, not by the wait it may cause (25 commands, 50 ms).
func TestTheNearHalfWeighsFromTheTunnelsHello(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1000, 0)}
	cfg := defaultConfig()
	cfg.clock = clock.now
	far := newFar(cfg)
	opened := far.OnTunnelOpen(3 * time.Millisecond)
	require.Len(t, opened.Upstream, 1)
	require.Equal(t, tunnel.RoundTrip, opened.Upstream[0][0])
	require.Empty(t, far.OnTunnelOpen(4*time.Millisecond).Upstream, "told once")

	near := newNear(cfg)
	for i := 0; i < 8; i++ { // its VM serves one command per 2 ms
		near.spec.cost.service.add(clock.t.Add(time.Duration(i+1)*2*time.Millisecond), clock.t.Add(time.Duration(i)*2*time.Millisecond))
	}
	require.False(t, near.spec.cost.slow(), "nothing weighed before the far half tells its round trip")
	require.Equal(t, int(maxWaitBehind/(2*time.Millisecond)), near.spec.cost.inFlightBound(DefaultMaxInFlight))
	_, err := near.FromFar(opened.Upstream[0])
	require.NoError(t, err)
	require.Equal(t, 3*time.Millisecond, near.spec.cost.farRoundTrip)
	require.True(t, near.spec.cost.slow())
	require.Equal(t, 2, near.spec.cost.inFlightBound(DefaultMaxInFlight), "1 ms of link: the command in service and one behind it")

	// The far half's own measurement, 22 ms, is told once known.
	told := measureFarRoundTrip(t, far, clock, 22*time.Millisecond)
	require.NotNil(t, told)
	_, err = near.FromFar(told)
	require.NoError(t, err)
	require.Equal(t, 22*time.Millisecond, near.spec.cost.farRoundTrip)
}

// measureFarRoundTrip sends the far half the debugger's commands alone,
// each answered roundTrip later, until it tells the near half a round
// trip, and returns that 'R' frame (nil if minSamples did not give one).
func measureFarRoundTrip(t *testing.T, far *Far, clock *fakeClock, roundTrip time.Duration) []byte {
	for id := uint32(1); id <= minSamples; id++ {
		up := far.FromDebugger(jdwp.AppendCommandPacket(nil, id, &jdwp.VMAllThreadsCommand{}, jdwp.DefaultIDSizes))
		require.Len(t, up.Upstream, 1)
		clock.t = clock.t.Add(roundTrip)
		down, err := far.FromNear(tunnel.NewFrame(tunnel.Packet, jdwp.AppendReplyPacket(nil, id, &jdwp.ObjectIDsReply{}, jdwp.DefaultIDSizes)))
		require.NoError(t, err)
		for _, f := range down.Upstream {
			if f[0] == tunnel.RoundTrip {
				return f
			}
		}
	}
	return nil
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

// A near half sits next to the VM: a debugger's command it forwards
// crosses its own short link to wait behind speculation, not the far
// half's. The wait is measured over that link, or over none before the
// near half measured it (it seldom sends a command alone); over the far
// half's 20 ms, a wait of 5 ms read as none (the stat a split proxy
// reports).
func TestANearHalfMeasuresTheWaitBehindOverItsOwnLink(t *testing.T) {
	for _, own := range []bool{false, true} {
		now := time.Unix(1000, 0)
		c := costModel{now: func() time.Time { return now }, near: true, farRoundTrip: 20 * time.Millisecond}
		for i := 0; own && i < minSamples; i++ { // its own round trip: 1 ms
			p := &inFlight{cmd: jdwp.CmdThreadReferenceName}
			c.sending(p)
			now = now.Add(time.Millisecond)
			c.answered(p, 20, now, time.Time{})
		}
		c.outstanding = 1 // the first ahead is not alone: no round trip sample
		ahead := &inFlight{cmd: jdwp.CmdThreadReferenceName, synthetic: true}
		c.sending(ahead)
		c.sentBehind(1) // the debugger's command, behind it
		now = now.Add(6 * time.Millisecond)
		c.answered(ahead, 20, now, time.Time{})
		want := 6 * time.Millisecond
		if own {
			want -= time.Millisecond
		}
		require.Equal(t, want, c.behind.longest, "its own link measured: %v", own)
	}
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

// A VM known to serve one command per 2 ms is weighed from the first round
// trip measured, not once enough were: a debugger whose commands seldom go
// alone leaves the link unknown for many stops. Across a link of 0 (the
// round trip is the service), a command the debugger uses at even odds
// does not pay, and what is in flight is the command in service and the
// one behind it; before any round trip, only maxWaitBehind bounds it.
func TestASlowVMIsWeighedFromItsFirstRoundTrip(t *testing.T) {
	now := time.Unix(1000, 0)
	c := costModel{now: func() time.Time { return now }}
	for i := 0; i < 8; i++ {
		c.service.add(now.Add(time.Duration(i+1)*2*time.Millisecond), now.Add(time.Duration(i)*2*time.Millisecond))
	}
	require.True(t, c.service.known())
	require.False(t, c.slow(), "no round trip measured yet")
	require.Equal(t, int(maxWaitBehind/(2*time.Millisecond)), c.inFlightBound(64), "only the wait it causes bounds it")
	c.roundTrip.add(2 * time.Millisecond)
	require.False(t, c.roundTrip.known())
	require.True(t, c.slow(), "weighed from the first round trip")
	require.Equal(t, 2*time.Millisecond, c.costOf(jdwp.CmdThreadReferenceName))
	require.False(t, c.pays(0.5, c.costOf(jdwp.CmdThreadReferenceName)), "at even odds, across a link of 0")
	require.True(t, c.pays(1, c.costOf(jdwp.CmdThreadReferenceName)), "a sure one pays its service")
	require.Equal(t, 2, c.inFlightBound(64))
}

// bytesSession plays, on a link of round trip link and rate bytesPerSecond
// (0: unlimited) to a VM serving one command per service, commands alone
// with small replies (the round trip), then commands alone whose replies
// (to ThreadReference.Frames) take size bytes.
func bytesSession(link, service time.Duration, bytesPerSecond float64, size int) (*costModel, *fakeClock) {
	clock := &fakeClock{t: time.Unix(1000, 0)}
	c := &costModel{now: clock.now}
	reply := func(cmd jdwp.Command, n int) {
		p := &inFlight{cmd: cmd}
		c.sending(p)
		c.sent(commandPacket)
		d := link + service
		if bytesPerSecond > 0 {
			d += time.Duration(float64(n) / bytesPerSecond * float64(time.Second))
		}
		clock.t = clock.t.Add(d)
		at, prev := c.arrival()
		c.answered(p, n, at, prev)
		clock.t = clock.t.Add(time.Second)
	}
	for range 6 {
		reply(jdwp.CmdThreadReferenceName, 30)
	}
	for range 4 {
		reply(jdwp.CmdThreadReferenceFrames, size)
	}
	return c, clock
}

// TestBytesAreWeighedOnASlowLink: on a link of 1 MB/s the big replies
// give its rate, a command whose reply takes 8 ms to cross goes out only
// at odds that pay for it, and one of a few bytes is not weighed; on a
// link whose transfers never show (loopback, a fast LAN) nothing is.
func TestBytesAreWeighedOnASlowLink(t *testing.T) {
	const rate = 1 << 20
	slow, _ := bytesSession(20*time.Millisecond, 50*time.Microsecond, rate, 8<<10)
	require.InDelta(t, rate, slow.bytes.rate(), rate*0.01, "the link's rate, from its big replies")
	require.False(t, slow.slow(), "the VM is fast")
	require.InDelta(t, float64(7812*time.Microsecond), float64(slow.costOf(jdwp.CmdThreadReferenceFrames)), float64(100*time.Microsecond), "8 KiB at 1 MiB/s")
	require.False(t, slow.pays(0.1, slow.costOf(jdwp.CmdThreadReferenceFrames)), "0.1 × 20 ms does not pay for 8 ms of link")
	require.True(t, slow.pays(0.5, slow.costOf(jdwp.CmdThreadReferenceFrames)))
	require.Zero(t, slow.costOf(jdwp.CmdThreadReferenceName), "30 bytes cross in 29 µs: not weighed")
	require.True(t, slow.pays(0.01, slow.costOf(jdwp.CmdThreadReferenceName)))
	require.Zero(t, slow.costOf(jdwp.CmdVirtualMachineVersion), "a command never answered yet is not weighed")

	fast, _ := bytesSession(20*time.Millisecond, 50*time.Microsecond, 0, 8<<10)
	require.Zero(t, fast.bytes.rate(), "no transfer showed")
	require.Zero(t, fast.costOf(jdwp.CmdThreadReferenceFrames))
	require.True(t, fast.pays(0.01, fast.costOf(jdwp.CmdThreadReferenceFrames)))

	// The usb profile's rate: 8 KiB cross in 217 µs, a fifth of its 1 ms
	// round trip: a command used one time in four pays, one in twenty not.
	usb, _ := bytesSession(time.Millisecond, 50*time.Microsecond, 36<<20, 8<<10)
	require.True(t, usb.pays(0.25, usb.costOf(jdwp.CmdThreadReferenceFrames)))
	require.False(t, usb.pays(0.05, usb.costOf(jdwp.CmdThreadReferenceFrames)))
}

// TestTheBytesInFlightAreBounded: on the 1 MB/s link, synthetic commands
// whose replies take 8 KB each go while what is in flight crosses within
// maxWaitBehind (50 ms: 6 of them, and the one that reaches it), and room
// comes back as replies arrive; with the rate unknown, bytes bound nothing.
func TestTheBytesInFlightAreBounded(t *testing.T) {
	c, clock := bytesSession(20*time.Millisecond, 50*time.Microsecond, 1<<20, 8<<10)
	var sent []*inFlight
	for c.bytesRoom() && len(sent) < 100 {
		p := &inFlight{cmd: jdwp.CmdThreadReferenceFrames, synthetic: true}
		c.sending(p)
		c.sent(commandPacket)
		sent = append(sent, p)
	}
	require.Len(t, sent, 7, "50 ms of the link's bytes in flight, and the one that reaches it")
	require.LessOrEqual(t, c.bytes.transfer(c.bytes.inFlight), maxWaitBehind+8*time.Millisecond)
	clock.t = clock.t.Add(30 * time.Millisecond)
	at, prev := c.arrival()
	c.answered(sent[0], 8<<10, at, prev)
	require.True(t, c.bytesRoom(), "a reply's arrival makes room")

	fast, _ := bytesSession(20*time.Millisecond, 50*time.Microsecond, 0, 8<<10)
	for range 100 {
		p := &inFlight{cmd: jdwp.CmdThreadReferenceFrames, synthetic: true}
		fast.sending(p)
	}
	require.True(t, fast.bytesRoom(), "a link whose transfers never showed bounds nothing by bytes")
}

// TestTheFarHalfTellsTheNearHalfTheTunnelsRate: the far half measures the
// rate of the link from the near half on the debugger's big replies and
// tells it in an 'R' frame; the near half weighs its pushes' bytes with it.
func TestTheFarHalfTellsTheNearHalfTheTunnelsRate(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1000, 0)}
	cfg := defaultConfig()
	cfg.clock = clock.now
	far := newFar(cfg)
	var told []byte
	threads := make([]jdwp.ObjectID, 1024) // 8 KiB of thread ids
	for i := range threads {
		threads[i] = jdwp.ObjectID(i + 1)
	}
	for id := uint32(1); id <= 20; id++ {
		big := id > minSamples // the round trip first, on small replies
		far.FromDebugger(jdwp.AppendCommandPacket(nil, id, &jdwp.VMAllThreadsCommand{}, jdwp.DefaultIDSizes))
		reply := &jdwp.ObjectIDsReply{}
		clock.t = clock.t.Add(22 * time.Millisecond)
		if big {
			reply.IDs = threads
			clock.t = clock.t.Add(8 * time.Millisecond) // 8 KiB and a few bytes at about 1 MB/s
		}
		down, err := far.FromNear(tunnel.NewFrame(tunnel.Packet, jdwp.AppendReplyPacket(nil, id, reply, jdwp.DefaultIDSizes)))
		require.NoError(t, err)
		for _, f := range down.Upstream {
			if f[0] == tunnel.RoundTrip {
				told = f
			}
		}
		clock.t = clock.t.Add(time.Second)
	}
	require.NotNil(t, told)
	rt, rate := tunnel.RoundTripOf(told[tunnel.HeaderSize:])
	require.Equal(t, 22*time.Millisecond, rt)
	size := len(jdwp.AppendReplyPacket(nil, 1, &jdwp.ObjectIDsReply{IDs: threads}, jdwp.DefaultIDSizes))
	require.InDelta(t, float64(size)/0.008, rate, 1, "the link's rate, from the big replies")

	near := newNear(defaultConfig())
	_, err := near.FromFar(told)
	require.NoError(t, err)
	require.Equal(t, rate, near.Stats().Bandwidth, "the near half weighs with the far half's rate")
}

// TestAFastVMIsKnownFromItsService: copies of likely speculation (a
// parallel client's reads, askReadsAgain) go out only where the VM is known
// to serve below slowVM; not before its service is measured, not on a slow
// VM; and, as everything, ungated without a clock.
func TestAFastVMIsKnownFromItsService(t *testing.T) {
	c, _ := costSession(20*time.Millisecond, 50*time.Microsecond, 6)
	require.True(t, c.fast())
	c, _ = costSession(2*time.Millisecond, 500*time.Microsecond, 6)
	require.False(t, c.fast())
	clock := &fakeClock{t: time.Unix(1000, 0)}
	require.False(t, (&costModel{now: clock.now}).fast(), "not measured yet")
	require.True(t, (&costModel{}).fast(), "no clock: nothing gated")
}
