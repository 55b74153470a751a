package replay

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/jdwpscache/scache/internal/journal"
	"github.com/jdwpscache/scache/internal/latency"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
)

// DefaultRTTs are the round-trip times the wait is estimated at unless told otherwise.
var DefaultRTTs = []time.Duration{1 * time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond}

// A Result is what replaying one trace in one mode found. The counts are
// those of the run at RTT; Wait has the debugger's simulated waiting time at
// every RTT asked for.
type Result struct {
	Trace         string
	Mode          Mode
	RTT           time.Duration
	Packets       int
	DebuggerCmds  int
	KeyableCmds   int
	Hits          int64
	Belayed       int64
	Misses        int64
	SyntheticCmds int64
	// CaptureRTT is the round trip between the capture point and the VM
	// that was taken out of the trace's timing (given or estimated).
	CaptureRTT time.Duration
	// DebuggerRTT likewise between the capture point and the debugger.
	DebuggerRTT time.Duration
	// SyntheticUsed counts the synthetic commands whose reply answered the
	// debugger; UnansweredSynthetic those the trace holds no answer for:
	// they get a placeholder reply, never count as used, and any speculation
	// their real reply would have started is not simulated.
	SyntheticUsed       int64
	UnansweredSynthetic int64
	Wasted              int64
	BytesSpeculated     int64
	RoundTripsSaved     int64
	HitRate             float64 // (hits + belayed) / debugger commands
	Wait                map[time.Duration]time.Duration
	// StopRoundTrips is, for each stop (a breakpoint or step event, until the
	// debugger resumes), the debugger's waiting time for its inspection
	// commands (all but event requests and those that change the debuggee:
	// stoplog.Record's InspectionRoundTrips) in RTTs at RTT: the round
	// trips on its critical path. SteadyStopRoundTrips is their median over the later
	// half of the session, once classes have been seen.
	StopRoundTrips       []float64
	SteadyStopRoundTrips float64
	// Stops are the same stops named: where each was, in source terms, and
	// its round trips (as StopRoundTrips).
	Stops []Stop
	// WaitBy says where Wait at RTT went: for each command, the debugger's
	// waiting on it (beyond what overlapping commands sent before it
	// already waited) and how many of its commands waited at all.
	WaitBy map[jdwp.Command]CommandWait
	// PushedBytes (split mode) is what the near half sent the far half
	// beyond the VM's own packets: synthetic commands and their replies;
	// PushedUsedBytes the replies among them that answered the debugger.
	PushedBytes, PushedUsedBytes int64
	Mismatches                   []string // replies the debugger would have received that differ from the recording
}

// A CommandWait is the debugger's waiting on one command, over a session.
type CommandWait struct {
	Wait     time.Duration
	Commands int // the commands that waited at all
}

// TopWaits returns the commands the debugger waited on longest, at most n,
// longest first.
func (r Result) TopWaits(n int) []jdwp.Command {
	cmds := make([]jdwp.Command, 0, len(r.WaitBy))
	for c := range r.WaitBy {
		cmds = append(cmds, c)
	}
	sort.Slice(cmds, func(i, j int) bool {
		if a, b := r.WaitBy[cmds[i]].Wait, r.WaitBy[cmds[j]].Wait; a != b {
			return a > b
		}
		return cmds[i].String() < cmds[j].String()
	})
	return cmds[:min(n, len(cmds))]
}

// ErrMismatch is returned when a replay shows the debugger a reply other than
// the recorded one: a stale cache entry on real traffic, or a bug.
var ErrMismatch = errors.New("replay: replies differ from the recording")

// Config says how to replay.
type Config struct {
	RTT  time.Duration   // the RTT of the counts and of the journal
	RTTs []time.Duration // more RTTs to estimate the wait at
	// CaptureRTT is the round trip between where the trace was captured and
	// the VM (a journal recorded by a proxy over a slow link): it is taken
	// out of the VM's recorded service times. 0: estimated from the trace; a
	// negative value: captured next to the VM.
	CaptureRTT time.Duration
	// DebuggerRTT is the round trip between where the trace was captured and
	// the debugger (a capture made next to the VM of a session over a slow
	// link): it is taken out of the debugger's think times. 0: estimated
	// from the trace; a negative value: captured next to the debugger.
	DebuggerRTT time.Duration
	// Journal, if set, receives the journal of the run at RTT, stamped with
	// simulated time from the trace's first record.
	Journal func(journal.Record)
	// Service is added to the VM's service time of every command: a slow
	// VM (an Android device's runtime) behind the recorded one, as
	// latency.WithService puts one in front of a live VM.
	Service time.Duration
	// Link, if set, shapes the link of every run as a live link with the
	// profile (latency.Profiles: "wifi", "cloud", ...): its bandwidth,
	// jitter and power save, with each run's RTT as its delay (the
	// profile's own delay is the command's default -rtt). Its draws are
	// the same from run to run.
	Link *latency.Profile
}

// Run replays a trace in a mode at each RTT (the counts are those at
// cfg.RTT). It returns an error wrapping ErrMismatch, beside the result, if
// any reply differed from the recording.
func Run(t Trace, mode Mode, cfg Config) (Result, error) {
	rtt, rtts := cfg.RTT, cfg.RTTs
	opts, err := mode.Options()
	if err != nil {
		return Result{}, err
	}
	captureRTT := resolveRTT(cfg.CaptureRTT, t, estimateCaptureRTT)
	debuggerRTT := resolveRTT(cfg.DebuggerRTT, t, estimateDebuggerRTT)
	s := prepare(t, captureRTT, debuggerRTT)
	if len(s.cmds) == 0 {
		return Result{}, fmt.Errorf("replay: %s has no debugger commands", t.Name)
	}
	res := Result{Trace: t.Name, Mode: mode, RTT: rtt, CaptureRTT: captureRTT, DebuggerRTT: debuggerRTT, Packets: s.packets, DebuggerCmds: len(s.cmds),
		KeyableCmds: s.keyable, Wait: map[time.Duration]time.Duration{}}
	all := append([]time.Duration{rtt}, rtts...)
	for i, d := range all {
		if _, done := res.Wait[d]; done && i > 0 {
			continue
		}
		var rec func(journal.Record)
		if i == 0 && cfg.Journal != nil && len(t.Records) > 0 {
			start := t.Records[0].Time
			rec = func(r journal.Record) {
				r.Time = start.Add(r.Time.Sub(time.Time{}))
				cfg.Journal(r)
			}
		}
		out, st, err := runOnce(s, mode, opts, link{rtt: d, profile: cfg.Link}, cfg.Service, rec)
		if err != nil {
			return Result{}, err
		}
		res.Wait[d] = out.wait
		if i > 0 {
			continue
		}
		res.PushedBytes, res.PushedUsedBytes = st.PushedBytes, st.PushedUsedBytes
		res.WaitBy = out.waitBy
		res.Hits, res.Belayed, res.Misses = st.Hits, st.Belayed, st.Misses
		res.SyntheticCmds, res.Wasted, res.BytesSpeculated = st.Synthetic, st.Wasted, st.BytesSpeculated
		res.SyntheticUsed, res.UnansweredSynthetic = st.SyntheticUsed, out.unanswered
		res.RoundTripsSaved = st.Hits + st.Belayed
		res.HitRate = float64(res.RoundTripsSaved) / float64(len(s.cmds))
		res.Mismatches = out.mismatches
		if d > 0 {
			names := s.stops
			for _, w := range out.stops {
				rts := float64(w.wait) / float64(d)
				res.StopRoundTrips = append(res.StopRoundTrips, rts)
				st := Stop{RoundTrips: rts}
				if w.nth < len(names) {
					st.Where, st.Thread, st.Step = names[w.nth].Where, names[w.nth].Thread, names[w.nth].Step
				}
				res.Stops = append(res.Stops, st)
			}
			if n := len(res.StopRoundTrips); n > 0 {
				later := append([]float64(nil), res.StopRoundTrips[n/2:]...)
				sort.Float64s(later)
				res.SteadyStopRoundTrips = later[len(later)/2]
			}
		}
		if out.stalled > 0 {
			res.Mismatches = append(res.Mismatches, fmt.Sprintf("%d debugger commands never sent: a reply or event never arrived", out.stalled))
		}
	}
	if len(res.Mismatches) > 0 {
		return res, fmt.Errorf("%w: %s: %s", ErrMismatch, t.Name, strings.Join(res.Mismatches[:min(3, len(res.Mismatches))], "; "))
	}
	return res, nil
}

// runOnce simulates the session once at rtt, with service added to each
// command's at the VM, through a proxy of mode made with opts, and returns
// what it found and the proxy's counters. The proxy's clock is the
// simulation's, as a live proxy's is the wall clock.
func runOnce(s *session, mode Mode, opts []scache.Option, l link, service time.Duration, rec func(journal.Record)) (outcome, scache.Stats, error) {
	var sim *simulation
	opts = append(opts[:len(opts):len(opts)], scache.WithClock(func() time.Time {
		if sim == nil {
			return time.Time{}
		}
		return time.Time{}.Add(sim.now)
	}))
	if mode != ModeSplit {
		spc, err := scache.New(opts...)
		if err != nil {
			return outcome{}, scache.Stats{}, err
		}
		sim = newSimulation(s, l, rec, spc, nil)
		sim.service = service
		out := sim.run()
		_ = spc.Close()
		return out, spc.Stats(), nil
	}
	// The far half journals from inside the calls the simulation makes at
	// its current time: the entries get that time.
	var journalAt func(scache.JournalEntry)
	if rec != nil {
		journalAt = func(e scache.JournalEntry) {
			e.Time = time.Time{}.Add(sim.now)
			rec(journal.FromEntry(e))
		}
	}
	h, err := newHalves(opts, journalAt)
	if err != nil {
		return outcome{}, scache.Stats{}, err
	}
	sim = newSimulation(s, l, nil, nil, h)
	sim.service = service
	out := sim.run()
	h.close()
	return out, h.stats(), nil
}

// resolveRTT returns a round trip of the capture point as configured: given
// (positive), estimated from the trace (0), or none (negative).
func resolveRTT(given time.Duration, t Trace, estimate func(Trace) time.Duration) time.Duration {
	switch {
	case given == 0:
		return estimate(t)
	case given < 0:
		return 0
	}
	return given
}
