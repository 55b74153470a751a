package latency

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var t0 = time.Unix(1000, 0)

func at(ms float64) time.Time { return t0.Add(time.Duration(ms * float64(time.Millisecond))) }

// Bytes cost time: on a 1 MB/s link two megabytes handed over at once
// arrive one and two seconds after the delay, and what follows waits its
// turn behind them.
func TestBandwidthQueuesWhatFollows(t *testing.T) {
	p := &Profile{Delay: 10 * time.Millisecond, Bandwidth: 1_000_000}
	s := &shaper{p: p, rnd: rand.New(rand.NewPCG(1, 1))}
	require.Equal(t, at(1010), s.due(t0, 1_000_000))
	require.Equal(t, at(2010), s.due(t0, 1_000_000), "queued behind the first")
	require.Equal(t, at(2011), s.due(at(500), 1000), "a kilobyte, a millisecond, behind both")
	require.Equal(t, at(5010), s.due(at(5000), 0), "an idle link carries at once")
}

// Jitter delays each chunk by at most its bound, and never reorders bytes.
func TestJitterKeepsOrder(t *testing.T) {
	p := &Profile{Delay: 5 * time.Millisecond, Jitter: 3 * time.Millisecond}
	s := &shaper{p: p, rnd: rand.New(rand.NewPCG(1, 2))}
	var last time.Time
	spread := false
	for i := 0; i < 1000; i++ {
		now := at(float64(i) / 10)
		due := s.due(now, 100)
		require.False(t, due.Before(last), "chunk %d before the one ahead of it", i)
		require.False(t, due.Before(now.Add(p.Delay)), "chunk %d early", i)
		if due.Sub(now) > p.Delay {
			spread = true
		}
		last = due
	}
	require.True(t, spread, "some chunks were delayed more")
}

// A device in power save: what comes for it while its radio sleeps waits
// for the next beacon; traffic keeps it awake for a while, then it sleeps
// again; replies it sends go at once.
func TestPowerSaveHoldsTrafficUntilTheBeacon(t *testing.T) {
	p := &Profile{PowerSave: PowerSave{Every: 100 * time.Millisecond, Idle: 50 * time.Millisecond}}
	r := &radio{ps: p.PowerSave, phase: t0}
	rnd := rand.New(rand.NewPCG(1, 3))
	toDev := &shaper{p: p, rnd: rnd, radio: r, toDev: true}
	back := &shaper{p: p, rnd: rnd, radio: r}
	require.Equal(t, at(100), toDev.due(at(30), 10), "asleep: held until the beacon at 100 ms")
	require.Equal(t, at(120), toDev.due(at(120), 10), "awake after it: at once")
	require.Equal(t, at(160), back.due(at(160), 10), "the device's reply goes at once")
	require.Equal(t, at(300), toDev.due(at(211), 10), "idle 51 ms since the reply: asleep again, held until the beacon at 300 ms")
}

// Now and then the device wakes late: a heavy-tailed delay from one beacon
// interval up to its bound. With every wake-up late, the draws reach well
// past a few intervals and never past the bound.
func TestPowerSaveSpikesAreHeavyTailed(t *testing.T) {
	ps := PowerSave{Every: 100 * time.Millisecond, Spike: 1, Shape: 1.2, Max: 4 * time.Second}
	r := &radio{ps: ps}
	rnd := rand.New(rand.NewPCG(1, 4))
	var over1s, atMax int
	for i := 0; i < 10000; i++ {
		d := r.spike(rnd)
		require.GreaterOrEqual(t, d, ps.Every)
		require.LessOrEqual(t, d, ps.Max)
		if d > time.Second {
			over1s++
		}
		if d == ps.Max {
			atMax++
		}
	}
	require.Greater(t, over1s, 100, "a heavy tail: over 1 s often enough (Pareto 1.2: about 6%)")
	require.Positive(t, atMax, "and bounded")
}

// Every named profile has its numbers and where they come from.
func TestProfilesSayWhereTheirNumbersComeFrom(t *testing.T) {
	for _, name := range []string{"usb", "wifi", "wifi-powersave", "cloud", "ocean"} {
		p, ok := Profiles[name]
		require.True(t, ok, name)
		require.Equal(t, name, p.Name)
		require.Positive(t, p.Delay, name)
		require.Positive(t, p.Bandwidth, name)
		require.NotEmpty(t, p.Sources, name)
	}
	require.Positive(t, Profiles["wifi-powersave"].PowerSave.Every)
}
