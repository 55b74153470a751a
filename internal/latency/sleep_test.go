package latency

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A link must never deliver before its delay: sleepUntil returns only once
// the time it was given has come, for due times past, near and farther.
func TestSleepUntilNeverWakesEarly(t *testing.T) {
	for _, d := range []time.Duration{-time.Millisecond, 0, 50 * time.Microsecond, time.Millisecond, 3 * time.Millisecond} {
		due := time.Now().Add(d)
		sleepUntil(due)
		require.False(t, time.Now().Before(due), "woke before %v", d)
	}
}
