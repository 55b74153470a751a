package scache

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A bad value, an option for another type, two presets: an error from the
// constructor, never a silent default.
func TestOptionsAreCheckedByTheConstructor(t *testing.T) {
	for name, opts := range map[string][]Option{
		"cache of 0 bytes":       {WithCacheBytes(0)},
		"negative frames":        {WithMaxFrames(-1)},
		"negative in flight":     {WithMaxInFlight(-2)},
		"nil logger":             {WithLogger(nil)},
		"unknown family":         {WithFamilies(1 << 15)},
		"two presets":            {Classic(), PassThrough()},
		"a relay's option":       {WithMaxPacketSize(1 << 20)},
		"a proxy's option":       {WithSessionEnded(func(Stats, error) {})},
		"a zero option":          {{}},
		"a timeout for a relay":  {WithHandshakeTimeout(time.Second)},
		"a journal for a relay":  {WithJournal(func(JournalEntry) {})},
		"a speculator for relay": {WithSpeculator(&Speculator{})},
	} {
		_, err := New(opts...)
		require.Error(t, err, name)
	}
	_, err := NewRelay(WithMaxPacketSize(5))
	require.ErrorContains(t, err, "at least 11")
	_, err = NewRelay(WithSessionEnded(func(Stats, error) {}))
	require.ErrorContains(t, err, "does not apply to a Relay")
	s, err := New()
	require.NoError(t, err)
	_, err = NewRelay(WithSpeculator(s), Classic())
	require.Error(t, err, "a Speculator given and options for another")
	dial := func(context.Context) (net.Conn, error) { return nil, nil }
	_, err = NewProxy(dial, WithSpeculator(s))
	require.ErrorContains(t, err, "does not apply to a Proxy")
	_, err = NewProxy(nil)
	require.Error(t, err)
	_, err = NewProxy(dial, WithHandshakeTimeout(-time.Second))
	require.Error(t, err)
}

// Presets set a whole policy; options beside them refine it in any order.
func TestPresetsDoNotDependOnOrder(t *testing.T) {
	config := func(opts ...Option) config {
		st, err := collect(forSpeculator, opts)
		require.NoError(t, err)
		c := st.config()
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
