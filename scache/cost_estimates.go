package scache

import (
	"cmp"
	"slices"
	"time"
)

// The cost model's two estimators: the round trip's window of samples
// (sampleWindow, at the end of this file), and the VM's service time, from
// runs of replies. While commands wait their
// turn at the VM, its replies leave it one service time apart; but they do
// not reach the Speculator so: a link that wakes late, a reader that falls
// behind or a USB transfer delivers several back to back, then a long gap.
// Single gaps then say little (most are nearly nothing), but a run of
// replies to commands that all waited at the VM spans one service time per
// reply, whatever the grouping inside it. So the estimate is the sum of the
// runs' spans over the sum of their replies, for the last runs; a run whose
// rate is over four times the weighted median's holds a pause (a VM's
// collection, a scheduler's hiccup) and is left out.

// serviceRuns estimates a VM's service time from runs of replies to
// commands queued at the VM.
type serviceRuns struct {
	last    [16]replyRun  // the last runs that ended
	ended   int           // runs that ended, ever
	open    replyRun      // the run under way
	from    time.Time     // when the reply before the open run's first arrived
	until   time.Time     // when the open run's last reply arrived
	samples int           // replies counted, ever
	est     time.Duration // the estimate, made anew at each reply counted
}

// replyRun is n replies, each to a command that waited at the VM behind
// the one before, arriving over span.
type replyRun struct {
	span time.Duration
	n    int
}

// add counts a reply, arrived at at, to a command that waited at the VM
// behind the reply that arrived at prev.
func (s *serviceRuns) add(at, prev time.Time) {
	if s.open.n == 0 || !prev.Equal(s.until) {
		s.end()
		s.from = prev
	}
	s.until = at
	s.open.n++
	s.open.span = at.Sub(s.from)
	s.samples++
	s.est = s.compute()
}

// end closes the open run.
func (s *serviceRuns) end() {
	if s.open.n > 0 {
		s.last[s.ended%len(s.last)] = s.open
		s.ended++
		s.open = replyRun{}
	}
}

// known reports whether enough replies were counted.
func (s *serviceRuns) known() bool { return s.samples >= minSamples }

// estimate returns the service time (0: nothing counted). The cost model
// asks it for every command it weighs, so it is made once per reply (add).
func (s *serviceRuns) estimate() time.Duration { return s.est }

// compute returns the spans of the last runs, the open one included, over
// their replies, pauses left out.
func (s *serviceRuns) compute() time.Duration {
	var buf [len(serviceRuns{}.last) + 1]replyRun
	runs := append(buf[:0], s.last[:min(s.ended, len(s.last))]...)
	if s.open.n > 0 {
		runs = append(runs, s.open)
	}
	if len(runs) == 0 {
		return 0
	}
	rate := func(r replyRun) time.Duration { return r.span / time.Duration(r.n) }
	// The weighted median rate: the rate under which half the replies are.
	slices.SortFunc(runs, func(a, b replyRun) int { return cmp.Compare(rate(a), rate(b)) })
	total := 0
	for _, r := range runs {
		total += r.n
	}
	median, seen := time.Duration(0), 0
	for _, r := range runs {
		seen += r.n
		if 2*seen >= total {
			median = rate(r)
			break
		}
	}
	var span time.Duration
	n := 0
	for _, r := range runs {
		if rate(r) > 4*median {
			break
		}
		span += r.span
		n += r.n
	}
	return span / time.Duration(n)
}

// sampleWindow keeps the last len(last) samples of an estimate.
type sampleWindow struct {
	last [31]time.Duration
	n    int // samples taken, ever
}

func (w *sampleWindow) add(x time.Duration) {
	w.last[w.n%len(w.last)] = x
	w.n++
}

// known reports whether enough samples were taken.
func (w *sampleWindow) known() bool { return w.n >= minSamples }

// least returns the least of the last samples (0: none).
func (w *sampleWindow) least() time.Duration {
	k := min(w.n, len(w.last))
	if k == 0 {
		return 0
	}
	return slices.Min(w.last[:k])
}
