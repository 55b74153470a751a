package replay

import (
	"time"

	"github.com/jdwpscache/scache/internal/latency"
)

// The simulated link: between the one proxy and the VM, or between the
// halves of a split proxy. Without a profile it delays everything by half
// the RTT each way; with one (Config.Link), it dates each crossing as a
// live link with the profile would (latency.Clock): bandwidth queues what
// follows, jitter and a sleeping radio delay it.

// link is a run's link: its RTT, and the profile that shapes it (nil: none).
type link struct {
	rtt     time.Duration
	profile *latency.Profile
}

// linkSeed draws a profiled link's jitter and spikes: the same in every
// run, so that modes and RTTs meet the same link.
const linkSeed = 1

// clock returns the Clock of the link's one connection, or nil without a
// profile.
func (l link) clock() *latency.Clock {
	if l.profile == nil {
		return nil
	}
	p := *l.profile
	p.Delay = l.rtt / 2
	return latency.NewClock(p, linkSeed)
}

// cross returns when n bytes the simulation hands to the link now arrive
// at its other end: towards the VM if up.
func (sim *simulation) cross(n int, up bool) time.Duration {
	if sim.clock == nil {
		return sim.now + sim.rtt/2
	}
	return sim.clock.Arrival(sim.now, n, up)
}

// frameBytes is the size of frames together.
func frameBytes(frames [][]byte) int {
	n := 0
	for _, f := range frames {
		n += len(f)
	}
	return n
}
