package scache_test

import (
	"fmt"
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
)

// TestMillionPacketSessionStaysBounded runs a long session (a million
// packets) over many classes, stops and threads, with a small cache: the
// cache never exceeds its bound, and nothing else grows with the session.
func TestMillionPacketSessionStaysBounded(t *testing.T) {
	const bound = 64 << 10
	vm := scachetest.NewModelVM(sizes8)
	var classes []*scachetest.ModelClass
	for i := 0; i < 200; i++ {
		classes = append(classes, vm.AddClass(fmt.Sprintf("LC%d;", i), 3, false, false))
	}
	h := newHarness(t, vm, scache.WithCacheBytes(bound))
	h.send(&jdwp.VMIDSizesCommand{})
	h.drain()
	packets := func() int64 { st := h.s.Stats(); return st.PacketsUp + st.PacketsDown }
	for round := 0; packets() < 1_000_000; round++ {
		// A stop in a new place: frames over ten classes.
		var frames []scachetest.ModelFrame
		for j := 0; j < 10; j++ {
			c := classes[(round*7+j*13)%len(classes)]
			frames = append(frames, scachetest.ModelFrame{Class: c.ID, Method: c.Methods[j%3], Index: uint64(j)})
		}
		vm.SetThread(1, frames)
		vm.Thread(1).Suspends = 0
		ev, ok := vm.Stop(1, jdwp.SuspendPolicyAll)
		require.True(t, ok)
		h.event(ev)
		h.send(&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1})
		for _, f := range frames[:3] {
			h.send(&jdwp.MethodLineTableCommand{RefType: f.Class, Method: f.Method})
			h.send(&jdwp.RefTypeSourceFileCommand{RefType: f.Class})
		}
		h.send(&jdwp.VMResumeCommand{})
		h.drain()
		st := h.s.Stats()
		require.LessOrEqual(t, st.CacheBytes, int64(bound), "round %d", round)
		require.Zero(t, st.Held)
		require.Zero(t, st.InFlight)
		// The harness keeps every packet for its checks: forget them.
		h.toDebugger, h.toVM = h.toDebugger[:0], h.toVM[:0]
		if round%50 == 0 {
			vm.Unload(classes[round%len(classes)].Signature)
		}
	}
	st := h.s.Stats()
	require.True(t, st.Enabled)
	require.Positive(t, st.Hits+st.Belayed)
	t.Logf("%d packets, %d synthetic, %d hits, %d belayed, cache %d entries / %d bytes",
		packets(), st.Synthetic, st.Hits, st.Belayed, st.CacheEntries, st.CacheBytes)
}
