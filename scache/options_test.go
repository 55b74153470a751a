package scache

import (
	"testing"

	"github.com/jdwpscache/scache/scache/internal/option"
	"github.com/stretchr/testify/require"
)

// A bad value, an option for another type, two presets: an error from the
// constructor, never a silent default.
func TestOptionsAreCheckedByTheConstructor(t *testing.T) {
	for name, opts := range map[string][]Option{
		"cache of 0 bytes":      {WithCacheBytes(0)},
		"negative frames":       {WithMaxFrames(-1)},
		"negative in flight":    {WithMaxInFlight(-2)},
		"nil logger":            {WithLogger(nil)},
		"unknown family":        {WithFamilies(1 << 15)},
		"two presets":           {Classic(), PassThrough()},
		"a zero option":         {{}},
		"a journal for a relay": {WithJournal(func(JournalEntry) {})},
	} {
		_, err := New(opts...)
		require.Error(t, err, name)
	}
	_, err := NewNear(WithJournal(nil))
	require.ErrorContains(t, err, "nil function")
	_, err = NewFar(WithJournal(func(JournalEntry) {}), WithCacheBytes(1<<20))
	require.NoError(t, err, "a half takes a journal and a Speculator's options")
}

// Presets set a whole policy; options beside them refine it in any order.
func TestPresetsDoNotDependOnOrder(t *testing.T) {
	config := func(opts ...Option) config {
		st, err := option.Collect(option.Speculator, opts)
		require.NoError(t, err)
		c := configOf(st)
		c.logger = nil
		return c
	}
	a := config(Classic(), WithMaxInFlight(3), WithBelay(true))
	b := config(WithBelay(true), WithMaxInFlight(3), Classic())
	require.Equal(t, a, b)
	require.True(t, a.classic)
	require.Equal(t, 3, a.maxInFlight)
	require.True(t, a.belay)
	require.Equal(t, FamilyClass, a.families)
	require.Equal(t, config(PassThrough(), WithCacheBytes(100)), config(WithCacheBytes(100), PassThrough()))
	require.Equal(t, 0, config(Classic()).maxInFlight, "Classic's own: unbounded")
}
