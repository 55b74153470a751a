//go:build !linux

package latency

import "time"

// sleepUntil blocks until due, on the runtime's timer (see sleep_linux.go
// for why Linux sleeps otherwise).
func sleepUntil(due time.Time) {
	if d := time.Until(due); d > 0 {
		time.Sleep(d)
	}
}
