package scache

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

func TestSyntheticIDsStartAtTheRangeAndWrapSkippingInFlight(t *testing.T) {
	s := newSpeculator(defaultConfig())
	require.Equal(t, uint32(0xA0000000), s.queue.syntheticID(s.inflight.busy))
	require.Equal(t, uint32(0xA0000001), s.queue.syntheticID(s.inflight.busy))

	s.queue.nextID = LastSyntheticID - 1
	s.inflight.pending[LastSyntheticID] = &inFlight{synthetic: true}
	s.inflight.pending[FirstSyntheticID] = &inFlight{synthetic: true}
	require.Equal(t, LastSyntheticID-1, s.queue.syntheticID(s.inflight.busy))
	// LastSyntheticID and FirstSyntheticID are in flight: skipped.
	require.Equal(t, FirstSyntheticID+1, s.queue.syntheticID(s.inflight.busy))
}

func TestSyntheticIDsNeverLeaveTheRange(t *testing.T) {
	s := newSpeculator(defaultConfig())
	s.queue.nextID = LastSyntheticID - 3
	for i := 0; i < 10; i++ {
		id := s.queue.syntheticID(s.inflight.busy)
		require.True(t, IsSyntheticID(id), "%#x", id)
	}
	require.False(t, IsSyntheticID(0x9FFFFFFF))
	require.False(t, IsSyntheticID(0xC0000000))
}

func TestCacheStaysWithinItsByteBound(t *testing.T) {
	wasted := 0
	c := newReplyCache(10_000, func() { wasted++ })
	for i := 0; i < 1000; i++ {
		key := Key(string(rune(i)) + "key")
		c.add(key, &entry{reply: make([]byte, 200), class: jdwp.ReferenceTypeID(i % 7), synthetic: true})
		require.LessOrEqual(t, c.bytes, 10_000)
	}
	require.Equal(t, 1000-c.len(), wasted, "every evicted unused synthetic reply counts as waste")
	// The per-class index follows evictions.
	n := 0
	for _, keys := range c.byClass {
		n += len(keys)
	}
	require.Equal(t, c.len(), n)
	// Too large for the whole cache: not cached.
	c.add("big", &entry{reply: make([]byte, 20_000)})
	require.False(t, c.contains("big"))
	c.removeClass(3)
	require.Empty(t, c.byClass[3])
	c.purge()
	require.Zero(t, c.bytes)
	require.Empty(t, c.byClass)
}
