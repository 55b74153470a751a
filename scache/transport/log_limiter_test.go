package transport

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A flood of refusals logs a line per period, and the next line counts
// those held back: none is lost from the count.
func TestLogLimiterCountsWhatItHoldsBack(t *testing.T) {
	now := time.Unix(0, 0)
	l := logLimiter{every: time.Second, now: func() time.Time { return now }}
	ok, muted := l.allow()
	require.True(t, ok)
	require.Zero(t, muted)
	for range 99 {
		now = now.Add(time.Millisecond)
		ok, _ = l.allow()
		require.False(t, ok)
	}
	now = now.Add(time.Second)
	ok, muted = l.allow()
	require.True(t, ok)
	require.Equal(t, 99, muted)
}
