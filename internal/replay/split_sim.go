package replay

import (
	"fmt"

	"github.com/jdwpscache/scache/scache"
)

// halves are a split proxy as the simulation runs it: the far half at the
// debugger's end of the link, the near half at the VM's. Tunnel frames take
// RTT/2 to cross, in order; the VM's packets reach the near half, and the
// far half's packets the debugger, at once.
type halves struct {
	near *scache.Near
	far  *scache.Far
}

// newHalves makes the two halves with the Speculator options opts; the far
// half journals to journalAt, if set.
func newHalves(opts []scache.Option, journalAt func(scache.JournalEntry)) (*halves, error) {
	near, err := scache.NewNear(opts...)
	if err != nil {
		return nil, err
	}
	if journalAt != nil {
		opts = append(opts[:len(opts):len(opts)], scache.WithJournal(journalAt))
	}
	far, err := scache.NewFar(opts...)
	if err != nil {
		return nil, err
	}
	return &halves{near: near, far: far}, nil
}

func (h *halves) stats() scache.Stats { return SplitStats(h.near.Stats(), h.far.Stats()) }

// SplitStats are a split proxy's counters as one proxy's: what was
// speculated and pushed is the near half's, what the debugger sent and what
// answered it the far half's.
func SplitStats(near, far scache.Stats) scache.Stats {
	st := near
	st.PacketsUp = far.PacketsUp
	st.Hits, st.Belayed, st.Misses = far.Hits, far.Belayed, far.Misses
	st.AnsweredAhead, st.AheadContradicted = far.AnsweredAhead, far.AheadContradicted
	st.PushedDropped = far.PushedDropped
	return st
}

func (h *halves) close() {
	_ = h.near.Speculator().Close()
	_ = h.far.Speculator().Close()
}

// farFromDebugger hands debugger command i to the far half: what it answers
// reaches the debugger, its frames cross the link to the near half.
func (sim *simulation) farFromDebugger(i int) {
	t := sim.split.far.FromDebugger(sim.s.cmds[i].packet)
	sim.farOut(t, i)
}

// farOut delivers a far half's Traffic: packets to the debugger, frames
// across the link; cause is the debugger command they carry (-1: none).
func (sim *simulation) farOut(t scache.Traffic, cause int) {
	if len(t.Upstream) > 0 {
		frames := t.Upstream
		sim.at(sim.cross(frameBytes(frames), true), func() { sim.nearFromFar(frames, cause) })
	}
	for _, p := range t.Downstream {
		sim.toDebugger(p)
	}
}

// nearFromFar hands the near half the frames the far half sent on
// debugger command cause's account (-1: none).
func (sim *simulation) nearFromFar(frames [][]byte, cause int) {
	if cause >= 0 {
		sim.speculatorSees(cause)
	}
	for _, f := range frames {
		t, err := sim.split.near.FromFar(f)
		if err != nil {
			sim.out.mismatches = append(sim.out.mismatches, fmt.Sprintf("the near half: %v", err))
			continue
		}
		sim.nearOut(t)
	}
}

// nearFromVM hands the near half a packet from the VM.
func (sim *simulation) nearFromVM(p []byte) {
	sim.speculatorSeesVM(p)
	sim.nearOut(sim.split.near.FromVM(p))
}

// nearOut delivers a near half's Traffic: packets to the VM, frames across
// the link to the far half.
func (sim *simulation) nearOut(t scache.Traffic) {
	for _, p := range t.Upstream {
		sim.noteSynthetic(p)
		sim.toVM(p)
	}
	if len(t.Downstream) > 0 {
		frames := t.Downstream
		sim.at(sim.cross(frameBytes(frames), false), func() { sim.farFromNear(frames) })
	}
}

// farFromNear hands the far half frames from the near half.
func (sim *simulation) farFromNear(frames [][]byte) {
	for _, f := range frames {
		t, err := sim.split.far.FromNear(f)
		if err != nil {
			sim.out.mismatches = append(sim.out.mismatches, fmt.Sprintf("the far half: %v", err))
			continue
		}
		sim.farOut(t, -1)
	}
}
