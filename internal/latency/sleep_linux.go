package latency

import (
	"syscall"
	"time"
)

// sleepUntil blocks until due. The Go runtime's timers wake a sleeper late
// by up to about a millisecond on Linux (a sleep of 300 µs here took 1.1 ms
// at the median, on two busy cores), which would turn a VM that serves a
// command in 0.5 ms into one of 1.3; a nanosleep blocks its thread on the
// kernel's high-resolution timer (the same 300 µs took 430 µs), so the
// link keeps closer to the delays it was given.
func sleepUntil(due time.Time) {
	for {
		d := time.Until(due)
		if d <= 0 {
			return
		}
		ts := syscall.NsecToTimespec(int64(d))
		if err := syscall.Nanosleep(&ts, nil); err != nil && err != syscall.EINTR {
			time.Sleep(d) // nanosleep refused: the runtime's timer
			return
		}
	}
}
