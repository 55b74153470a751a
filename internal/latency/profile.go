package latency

import (
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// Link profiles: the links scache is for, as users have them. A fixed delay
// with unlimited bandwidth and no stall is no real link: bytes cost time
// (bandwidth), round trips vary (jitter), and a phone's Wi-Fi in power
// save sleeps between beacons and sometimes wakes very late. Each profile
// holds its numbers in one place, each with where it comes from
// (../shared/FIELD.md, "Real links", gathers the sources).

// A Profile is a link's behaviour in each direction.
type Profile struct {
	Name string
	// Delay is the one-way delay, each direction: half the round trip.
	Delay time.Duration
	// Bandwidth is the bytes per second each direction carries (0:
	// unlimited): a chunk of n bytes holds the direction n/Bandwidth, and
	// what follows it waits (a queue, as a link's buffer).
	Bandwidth int64
	// Jitter delays each chunk by up to this much more, uniformly drawn;
	// bytes keep their order.
	Jitter time.Duration
	// PowerSave, when Every is set, is a device's Wi-Fi in power save.
	PowerSave PowerSave
	// Sources says where each number comes from.
	Sources string
}

// PowerSave is a Wi-Fi client (the device, at the link's target side) in
// power save: idle for Idle, its radio sleeps and wakes at each beacon,
// every Every; the access point holds what comes for it until then. Now
// and then (Spike, a probability per wake-up) it wakes late, by a
// heavy-tailed delay: Pareto of shape Shape from Every, at most Max.
// Traffic either way keeps it awake.
type PowerSave struct {
	Every time.Duration
	Idle  time.Duration
	Spike float64
	Shape float64
	Max   time.Duration
}

// Profiles are the named links of the benchmarks (WithProfile) and of the
// replay's -link.
var Profiles = map[string]Profile{
	"usb": {Name: "usb", Delay: 500 * time.Microsecond, Bandwidth: 36 << 20,
		Sources: "RTT about 1 ms, unmeasured (H-M-H/Weylus#76); adb push over USB 2.0 36 MB/s (AOSP adb 2f0f9eb)"},
	"wifi": {Name: "wifi", Delay: 3 * time.Millisecond, Bandwidth: 3600 << 10, Jitter: 2 * time.Millisecond,
		Sources: "pings 2-5 ms with power save off (esphome/devices.esphome.io#278); adb over Wi-Fi at 1/10 of USB (openstf/stf#262); jitter assumed"},
	"wifi-powersave": {Name: "wifi-powersave", Delay: 3 * time.Millisecond, Bandwidth: 3600 << 10, Jitter: 2 * time.Millisecond,
		PowerSave: PowerSave{Every: 100 * time.Millisecond, Idle: 100 * time.Millisecond, Spike: 0.05, Shape: 1.2, Max: 4 * time.Second},
		Sources:   "as wifi; a client sleeps between beacons, about 100 ms (MeticulousHome/meticulous-machine#63); pings 101-3978 ms in power save (esphome/devices.esphome.io#278); idle time and spike odds assumed"},
	"cloud": {Name: "cloud", Delay: 36 * time.Millisecond, Bandwidth: 10 << 20, Jitter: time.Millisecond,
		Sources: "AWS us-east-1 to us-west-1 72.7 ms RTT (Latency Between AWS Global Regions, 2017); 10 MB/s and jitter assumed"},
	"ocean": {Name: "ocean", Delay: 72 * time.Millisecond, Bandwidth: 5 << 20, Jitter: 2 * time.Millisecond,
		Sources: "AWS us-east-1 to Tokyo 145 ms RTT (Latency Between AWS Global Regions, 2017); 5 MB/s and jitter assumed"},
}

// WithProfile makes the link behave as profile p: its delay (in place of
// Listen's), bandwidth, jitter and power save. seed draws the jitter and
// the spikes, so that a benchmark can repeat a link.
func WithProfile(p Profile, seed uint64) Option {
	return func(l *Link) {
		l.delay = p.Delay
		l.profile = &p
		l.seed = seed
	}
}

// shaper dates the chunks of one direction of a profiled link.
type shaper struct {
	p     *Profile
	rnd   *rand.Rand
	free  time.Time // when the direction has carried what it was given
	last  time.Time // when the last chunk arrives: order is kept
	radio *radio    // the device's power save, shared by both directions
	toDev bool      // towards the device: held while its radio sleeps
}

// shapers returns the shapers of a new connection's two directions, towards
// the target (the device) and back, or nils without a profile.
func (l *Link) shapers() (toTarget, back *shaper) {
	if l.profile == nil {
		return nil, nil
	}
	l.mu.Lock()
	l.conn++
	n := l.conn
	l.mu.Unlock()
	return newShapers(l.profile, l.seed, n)
}

// newShapers returns the shapers of connection n's two directions on a
// link with profile p.
func newShapers(p *Profile, seed, n uint64) (toTarget, back *shaper) {
	var r *radio
	if p.PowerSave.Every > 0 {
		r = &radio{ps: p.PowerSave}
	}
	toTarget = &shaper{p: p, rnd: rand.New(rand.NewPCG(seed, 2*n)), radio: r, toDev: true}
	back = &shaper{p: p, rnd: rand.New(rand.NewPCG(seed, 2*n+1)), radio: r}
	return toTarget, back
}

// A Clock dates, on a simulated clock, what crosses one connection of a
// link with a profile, both ways, as a live link with the profile would
// deliver it: the replay's link (internal/replay). Its calls must come in
// the order of their times.
type Clock struct {
	toTarget, back *shaper
	epoch          time.Time
}

// NewClock returns the Clock of a connection of a link with profile p,
// its jitter and spikes drawn from seed.
func NewClock(p Profile, seed uint64) *Clock {
	c := &Clock{epoch: time.Unix(0, 0)}
	c.toTarget, c.back = newShapers(&p, seed, 1)
	return c
}

// Arrival returns when n bytes handed to the link at now (simulated time
// since any fixed start) arrive: towards the target (the VM's side) if
// toTarget, else back.
func (c *Clock) Arrival(now time.Duration, n int, toTarget bool) time.Duration {
	s := c.back
	if toTarget {
		s = c.toTarget
	}
	return s.due(c.epoch.Add(now), n).Sub(c.epoch)
}

// due returns when n bytes handed to the direction at now arrive.
func (s *shaper) due(now time.Time, n int) time.Time {
	start := now
	if s.free.After(start) {
		start = s.free
	}
	if s.p.Bandwidth > 0 {
		start = start.Add(time.Duration(float64(n) / float64(s.p.Bandwidth) * float64(time.Second)))
	}
	s.free = start
	at := start.Add(s.p.Delay)
	if s.p.Jitter > 0 {
		at = at.Add(time.Duration(s.rnd.Int64N(int64(s.p.Jitter) + 1)))
	}
	if s.radio != nil {
		at = s.radio.deliver(at, s.toDev, s.rnd)
	}
	if at.Before(s.last) {
		at = s.last
	}
	s.last = at
	return at
}

// radio is the device's Wi-Fi in power save.
type radio struct {
	mu        sync.Mutex
	ps        PowerSave
	phase     time.Time // a beacon
	awakeTill time.Time // traffic keeps it awake until then
}

// deliver returns when what reaches the access point (towards the device,
// toDev) or leaves the device at at is through: towards a sleeping device,
// at its next wake-up; either way it keeps the radio awake.
func (r *radio) deliver(at time.Time, toDev bool, rnd *rand.Rand) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.phase.IsZero() {
		r.phase = at
	}
	if toDev && at.After(r.awakeTill) {
		at = r.nextBeacon(at)
		if rnd.Float64() < r.ps.Spike {
			at = at.Add(r.spike(rnd))
		}
	}
	r.awakeTill = at.Add(r.ps.Idle)
	return at
}

// nextBeacon returns the first beacon at or after t.
func (r *radio) nextBeacon(t time.Time) time.Time {
	since := t.Sub(r.phase) % r.ps.Every
	if since == 0 {
		return t
	}
	return t.Add(r.ps.Every - since)
}

// spike draws how much later than its beacon the device wakes: Pareto of
// shape ps.Shape from one beacon interval, at most ps.Max.
func (r *radio) spike(rnd *rand.Rand) time.Duration {
	u := 1 - rnd.Float64() // (0, 1]
	d := time.Duration(float64(r.ps.Every) / math.Pow(u, 1/r.ps.Shape))
	return min(d, r.ps.Max)
}
