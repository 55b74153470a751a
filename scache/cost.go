package scache

import (
	"time"

	"github.com/jdwpscache/scache/jdwp"
)

// What speculation costs, and what it saves. A VM serves its commands one
// at a time: HotSpot in some tens of microseconds, an Android device's
// runtime in half a millisecond to a few. A speculated command takes that
// service time from the VM whether or not the debugger uses it, and a
// debugger command queued behind it waits as long; a used one saves the
// debugger a round trip to the VM (the link's and the VM's service). So,
// with a clock (WithClock; the transports give theirs), the Speculator
// measures both, per session:
//
//   - the round trip, from a command sent while nothing else was
//     outstanding at the VM: the least delay of its last replies (as TCP
//     takes a path's least round trip: the others waited somewhere), the
//     VM's service taken out;
//   - the VM's service time, from the gap between two replies when the
//     second command reached the VM before the first was answered (it
//     waited its turn there);
//
// (Stats.RoundTrip, Stats.ServiceTime; the service time from runs of such
// replies, cost_estimates.go: replies reach the Speculator in bursts, and a
// run's span keeps the rate where single gaps do not). Once the
// VM is known to be slow (a service time of slowVM or more), a command
// goes out only if its odds of being used (the learner's count of this
// debugger's use of its kind) times what it saves pay for what it costs:
// p·(link + service) ≥ service; and what is in flight is bounded by time,
// the link's round trip and a service time of VM work, instead of a count.
// A fast VM (HotSpot) is never gated: speculating costs it next to nothing.

// slowVM is the service time from which speculation is weighed: below it
// a command costs the VM less than any link's round trip saves.
const slowVM = 200 * time.Microsecond

// minSamples is how many samples of each kind the estimates need before
// they are trusted.
const minSamples = 4

// costModel owns a session's estimates of the link and the VM; only its
// methods change them (the far half's round trip comes in through
// SetFarLink). The Speculator tells it what goes out and what comes
// back; the queue's gate (queue.go: admit) asks it whether a speculated
// command pays, and pump how many may be in flight.
type costModel struct {
	now         func() time.Time  // nil: no clock, no estimates, nothing gated
	outstanding int               // commands sent to the VM and not answered
	lastReply   time.Time         // when the last reply from the VM arrived
	roundTrip   sampleWindow      // the replies to commands sent alone, service included: the least counts
	service     serviceRuns       // replies to commands queued at the VM, in runs (cost_estimates.go)
	behind      behindSpeculation // the debugger's commands' wait behind speculation (cost_behind.go)
	// farRoundTrip is the round trip from the far half of a split proxy to
	// the VM, service included, as the far half measures it
	// (SetFarLink): a near half next to the VM saves the debugger that
	// one, not its own, and takes out the service time it measures itself.
	farRoundTrip time.Duration
	near         bool       // the near half of a split proxy: weighs nothing before farRoundTrip is told
	bytes        bytesModel // the link's bandwidth and the replies' sizes (cost_bytes.go)
}

// link returns the estimated round trip to the VM without its service, or
// the far half's link for a near half.
func (c *costModel) link() time.Duration {
	if c.farRoundTrip > 0 {
		return max(0, c.farRoundTrip-c.service.estimate())
	}
	return c.ownLink()
}

// ownLink returns the estimated round trip from this half to the VM
// without its service, from what it measured itself (0: nothing yet).
func (c *costModel) ownLink() time.Duration {
	return max(0, c.roundTrip.least()-c.service.estimate())
}

// vmLink returns the estimated round trip from this half to the VM
// without its service, the link a command crosses to wait in the VM's
// queue, and whether it is known. For a near half it is its own, not the
// far half's that link returns; before it measured its own (a near half
// seldom sends a command alone), 0: it sits next to the VM, and a wait
// read a little long is better than one not read.
func (c *costModel) vmLink() (time.Duration, bool) {
	if c.roundTrip.known() {
		return c.ownLink(), true
	}
	return 0, c.near
}

// weighs reports whether the model weighs anything: with a clock, and for
// a near half once the far half told it the round trip its pushes save.
func (c *costModel) weighs() bool {
	return c.now != nil && !(c.near && c.farRoundTrip == 0)
}

// slow reports whether the VM is known to serve its commands slowly enough
// for speculation to be weighed: from the first round trip measured (the
// least so far), not only once enough were. A debugger whose commands
// seldom go alone (a parallel client, one answered mostly from
// speculation) leaves the link unknown for many stops, and on a VM that
// serves one command per 2 ms across a link of 0 a stop's whole view went
// out ahead of its commands, 50 ms of the VM's time.
func (c *costModel) slow() bool {
	return c.weighs() && c.service.known() && (c.roundTrip.n > 0 || c.farRoundTrip > 0) && c.service.estimate() >= slowVM
}

// fast reports whether the VM is known to serve its commands quickly
// (below slowVM), or nothing is gated (no clock): where speculation that
// is likely, but not sure, to be used may go out in several copies
// without the debugger's commands waiting behind their service.
func (c *costModel) fast() bool {
	return c.now == nil || c.service.known() && c.service.estimate() < slowVM
}

// sending notes that p goes to the VM now.
func (c *costModel) sending(p *inFlight) {
	if c.now == nil {
		return
	}
	p.sentAt, p.alone = c.now(), c.outstanding == 0
	if p.synthetic {
		p.seq = c.behind.synthetic()
		p.expectBytes = c.bytes.expected(p.cmd)
		c.bytes.inFlight += p.expectBytes
	}
}

// sentBehind notes the debugger's command going to the VM while inFlight
// synthetic commands are outstanding there.
func (c *costModel) sentBehind(inFlight int) {
	if c.now != nil && inFlight > 0 {
		c.behind.debugger(c.now(), inFlight)
	}
}

// sent counts a packet that went to the VM, and reports whether it was a
// command (not the reply to one of the VM's).
func (c *costModel) sent(packet []byte) (command bool) {
	if len(packet) >= jdwp.HeaderSize && packet[8]&jdwp.FlagReply == 0 {
		c.outstanding++
		return true
	}
	return false
}

// arrival takes a reply from the VM arriving now, and returns when it
// arrived and when the one before it did (zero without a clock).
func (c *costModel) arrival() (at, prev time.Time) {
	c.outstanding = max(0, c.outstanding-1)
	if c.now == nil {
		return time.Time{}, time.Time{}
	}
	at, prev = c.now(), c.lastReply
	c.lastReply = at
	return at, prev
}

// answered samples the estimates with the reply to p, of size bytes,
// which arrived at, after the one before it at prev.
func (c *costModel) answered(p *inFlight, size int, at, prev time.Time) {
	if p.synthetic {
		c.bytes.inFlight -= p.expectBytes
	}
	if p.sentAt.IsZero() || at.IsZero() {
		return
	}
	c.bytes.replied(p.cmd, size)
	if p.synthetic {
		link, known := c.vmLink()
		c.behind.answered(p.seq, at, link, known)
	}
	switch {
	case p.alone:
		if c.roundTrip.known() { // what it took beyond the least round trip was its transfer
			if d := at.Sub(p.sentAt) - c.roundTrip.least(); d >= slowBytes {
				c.bytes.sample(size, d)
			}
		}
		c.roundTrip.add(at.Sub(p.sentAt))
	case !prev.IsZero() && p.sentAt.Add(c.ownLink()).Before(prev):
		// It reached the VM before the last reply left it: it waited its
		// turn, and its reply took one service time more, or its
		// transfer, whichever was the longer. (Over this half's own
		// link: a near half's, next to the VM, not the far half's.)
		c.service.add(at, prev)
		if gap := at.Sub(prev); gap > 2*c.service.estimate() { // the link was the slower
			c.bytes.sample(size, gap)
		}
	}
}

// costOf returns what speculating cmd costs the debugger, where that is
// worth weighing: the VM's service on a slow VM, and the transfer of its
// reply on a link where that takes slowBytes or more; 0 when nothing is.
func (c *costModel) costOf(cmd jdwp.Command) time.Duration {
	var cost time.Duration
	if c.slow() {
		cost = c.service.estimate()
	}
	if c.weighs() {
		cost += c.bytes.weighed(cmd)
	}
	return cost
}

// pays reports whether a speculated command the debugger uses with odds p
// is worth its cost (costOf): p·(link + service) ≥ cost.
func (c *costModel) pays(p float64, cost time.Duration) bool {
	return cost == 0 || p*float64(c.link()+c.service.estimate()) >= float64(cost)
}

// bytesRoom reports whether another synthetic command may go with the
// replies already in flight (cost_bytes.go).
func (c *costModel) bytesRoom() bool { return c.now == nil || c.bytes.room(0) }

// inFlightBound returns how many synthetic commands may be in flight: as
// many as the VM serves in a round trip of the link and one service time
// (what keeps it busy while the first reply travels), at least one; or
// configured (WithMaxInFlight's bound, 0: none), for a fast VM. Either
// way, no more than the VM serves in maxWaitBehind once its service time
// is known, at least one: a debugger's command sent now waits behind all
// of them (cost_behind.go).
func (c *costModel) inFlightBound(configured int) int {
	n := configured
	if c.slow() {
		n = int((c.link()+c.service.estimate())/c.service.estimate()) + 1
		if configured > 0 {
			n = min(n, configured)
		}
	}
	if s := c.service.estimate(); c.service.known() && s > 0 {
		if limit := max(1, int(maxWaitBehind/s)); n == 0 || n > limit {
			n = limit
		}
	}
	return n
}

// maxWaitBehind bounds the VM's time that the speculation in flight may
// take: what a debugger's command sent now waits behind it at most.
const maxWaitBehind = 50 * time.Millisecond

// measuredLink returns the least round trip to the VM of the last
// commands sent alone, service included, once known, and the link's rate
// (0: unknown; cost_bytes.go): a far half tells them to the near half.
func (s *Speculator) measuredLink() (time.Duration, float64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cost.now == nil || !s.cost.roundTrip.known() {
		return 0, 0, false
	}
	return s.cost.roundTrip.least(), s.cost.bytes.rate(), true
}

// SetFarLink tells the near half of a split proxy the round trip from the
// far half to the VM (service included), which its speculation saves the
// debugger (its own round trip to the VM is about zero), and the rate in
// bytes per second of the link between the halves (0: unknown), which its
// pushes' bytes cost: the far half measures both and sends them across
// the tunnel.
func (s *Speculator) SetFarLink(roundTrip time.Duration, bytesPerSecond float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cost.farRoundTrip = max(0, roundTrip)
	s.cost.bytes.told = max(0, bytesPerSecond)
}
