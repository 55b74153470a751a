package scache_test

import (
	"fmt"
	"testing"

	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// throughSplit is a middle of a split proxy: a far half next to the
// debugger, a near half next to the VM, and the tunnel between them, a wire
// each way that holds frames in order for as long as the session draws.
type throughSplit struct {
	near   *scache.Near
	far    *scache.Far
	sess   *raceSession
	toNear [][]byte // tunnel frames the far half sent, not yet read
	toFar  [][]byte // tunnel frames the near half sent, not yet read
}

func newThroughSplit(t *rapid.T, opts []scache.Option) func(*raceSession) middle {
	return func(s *raceSession) middle {
		near, err := scache.NewNear(opts...)
		require.NoError(t, err)
		far, err := scache.NewFar(opts...)
		require.NoError(t, err)
		return &throughSplit{near: near, far: far, sess: s}
	}
}

func (m *throughSplit) fromDebugger(p []byte) {
	out := m.far.FromDebugger(p)
	m.toNear = append(m.toNear, out.Upstream...)
	for _, p := range out.Downstream {
		m.sess.toDebugger(p)
	}
}

func (m *throughSplit) fromVM(p []byte) {
	out := m.near.FromVM(p)
	m.sess.up = append(m.sess.up, out.Upstream...)
	m.toFar = append(m.toFar, out.Downstream...)
}

// tunnelStep lets the next frame of one direction (drawn) arrive.
func (m *throughSplit) tunnelStep() bool {
	if len(m.toNear) == 0 && len(m.toFar) == 0 {
		return false
	}
	if len(m.toFar) == 0 || (len(m.toNear) > 0 && rapid.Bool().Draw(m.sess.t, "tunnelUp")) {
		f := m.toNear[0]
		m.toNear = m.toNear[1:]
		out, err := m.near.FromFar(f)
		require.NoError(m.sess.t, err)
		m.sess.up = append(m.sess.up, out.Upstream...)
		m.toFar = append(m.toFar, out.Downstream...)
		return true
	}
	f := m.toFar[0]
	m.toFar = m.toFar[1:]
	out, err := m.far.FromNear(f)
	require.NoError(m.sess.t, err)
	m.toNear = append(m.toNear, out.Upstream...)
	for _, p := range out.Downstream {
		m.sess.toDebugger(p)
	}
	return true
}

func (m *throughSplit) idle() bool { return len(m.toNear) == 0 && len(m.toFar) == 0 }

func (m *throughSplit) stats() ([]scache.Stats, []error) {
	return []scache.Stats{m.near.Stats(), m.far.Stats()},
		[]error{m.near.Speculator().DisabledReason(), m.far.Speculator().DisabledReason()}
}

// TestNeverStaleThroughSplit holds a split proxy to the transparency
// promise: the race sessions of TestNeverStaleUnderRaces, with the far half
// next to the debugger, the near half next to the VM and a tunnel between
// them that delays each frame as long as the session draws. Every reply the
// debugger gets equals what the VM answered in some state between the
// command reaching the far half and the reply leaving it.
func TestNeverStaleThroughSplit(t *testing.T) {
	for name, opts := range propertyModes {
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				s := newRaceSessionThrough(t, newThroughSplit(t, opts))
				s.on = sequentialMode(opts)
				s.nameFirst = rapid.Bool().Draw(t, "nameFirst")
				s.run()
				s.check()
				near := s.m.(*throughSplit).near.Stats()
				require.LessOrEqual(t, near.PushedUsed, near.Synthetic, "what the far half used was pushed")
			})
		})
	}
}

// TestRunningThreadsThroughSplit is TestRunningThreadsUnderRaces, and
// with workers TestParkedWorkersUnderRaces, through a split proxy: the far
// half keeps the sequential promise about running threads, and serves a
// parked thread's state as long as its own suspension says the thread
// stays parked, from what the near half pushed.
func TestRunningThreadsThroughSplit(t *testing.T) {
	for _, workers := range []bool{false, true} {
		for _, name := range []string{"default", "no belay", "unbounded", "linearizable"} {
			opts := propertyModes[name]
			t.Run(fmt.Sprintf("%s/workers=%v", name, workers), func(t *testing.T) {
				rapid.Check(t, func(t *rapid.T) {
					s := runningThreadsIn(t, newRaceSessionThrough(t, newThroughSplit(t, opts)), opts)
					s.workers = workers
					s.run()
					s.check()
				})
			})
		}
	}
}

// TestPausesThroughSplit is TestPausesUnderRaces through a split proxy:
// the far half adopts what the near half read behind the debugger's
// Suspend only as the near half does, and only what it sent after it saw
// the Suspend.
func TestPausesThroughSplit(t *testing.T) {
	for _, name := range []string{"default", "no belay", "linearizable"} {
		opts := propertyModes[name]
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				s := runningThreadsIn(t, newRaceSessionThrough(t, newThroughSplit(t, opts)), opts)
				s.pauses = true
				s.eventThread = rapid.Bool().Draw(t, "eventThread")
				s.run()
				s.check()
			})
		})
	}
}
