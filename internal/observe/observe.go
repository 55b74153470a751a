// Package observe is what a proxy program tells its user about its
// sessions: each session's stats and stops as JSON (-stats), a log line per
// stop (-v), the journal of every session (-journal) and the last
// session's timeline (-timeline), for scache proxy (package
// sessionflags declares the flags).
package observe

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/jdwpscache/scache/internal/journal"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/stoplog"
	"github.com/jdwpscache/scache/scache/transport"
)

// Config is what to tell, as the flags say it; a zero field tells nothing.
type Config struct {
	StatsFile    string       // each session's stats and stops, as JSON (WriteStats)
	JournalFile  string       // every session's journal: pcapng for a name ending in .pcapng, else the trace format
	TimelineFile string       // the last session's timeline (Chrome trace-event JSON)
	Verbose      bool         // a log line per stop
	Logger       *slog.Logger // where the lines go; nil: slog.Default()
}

// Sessions is an open Config: its files and what it gathers of the
// session in progress.
type Sessions struct {
	cfg     Config
	log     *slog.Logger
	journal journal.Sink
	tl      *timeline
	stops   *stoplog.Log
}

// Open creates the journal file, if any, and returns what gathers the
// sessions; Close it when the proxy is done.
func Open(cfg Config) (*Sessions, error) {
	s := &Sessions{cfg: cfg, log: cfg.Logger}
	if s.log == nil {
		s.log = slog.Default()
	}
	if cfg.JournalFile != "" {
		j, err := journal.CreateSink(cfg.JournalFile)
		if err != nil {
			return nil, err
		}
		s.journal = j
	}
	if cfg.TimelineFile != "" {
		s.tl = &timeline{}
	}
	if cfg.StatsFile != "" || cfg.Verbose {
		s.stops = &stoplog.Log{}
		if cfg.Verbose {
			s.stops.Done = s.logStop
		}
	}
	return s, nil
}

// Options returns the options that feed a proxy's sessions to s: a journal
// consumer and, at each session's end, the stats and timeline files.
func (s *Sessions) Options() []scache.Option {
	opts := []scache.Option{transport.WithSessionEnded(s.sessionEnded)}
	var sinks []func(scache.JournalEntry)
	if s.journal != nil {
		sinks = append(sinks, s.journal.Write)
	}
	if s.tl != nil {
		sinks = append(sinks, s.tl.add)
	}
	if s.stops != nil {
		sinks = append(sinks, s.stops.Add)
	}
	if len(sinks) > 0 {
		opts = append(opts, scache.WithJournal(func(e scache.JournalEntry) {
			for _, sink := range sinks {
				sink(e)
			}
		}))
	}
	return opts
}

// sessionEnded writes what a session leaves: its stats and its timeline.
func (s *Sessions) sessionEnded(st scache.Stats, _ error) {
	var recs []stoplog.Record
	if s.stops != nil {
		recs = s.stops.Stops()
		s.stops.Reset()
	}
	if s.cfg.Verbose {
		s.log.Info("session", "round_trip", st.RoundTrip.Round(10*time.Microsecond),
			"vm_service", st.ServiceTime.Round(time.Microsecond),
			"wait_behind_speculation", st.WaitBehindSpeculation.Round(10*time.Microsecond))
	}
	if s.cfg.StatsFile != "" {
		if err := WriteStats(s.cfg.StatsFile, st, recs); err != nil {
			s.log.Error("writing stats", "err", err)
		}
	}
	if s.tl != nil {
		if err := s.tl.writeAndReset(s.cfg.TimelineFile); err != nil {
			s.log.Error("writing timeline", "err", err)
		}
	}
}

// logStop is the -v line of a stop.
func (s *Sessions) logStop(r stoplog.Record) {
	s.log.Info("stop", "at", r.Where, "thread", r.ThreadName, "thread_id", fmt.Sprintf("%#x", r.Thread), "step", r.Step,
		"lasted", r.End.Sub(r.Start).Round(time.Millisecond), "waited", r.Wait.Round(time.Millisecond),
		"asked", r.Asked, "answered", r.Answered,
		"round_trips", fmt.Sprintf("%.1f", r.RoundTrips),
		"inspection_round_trips", fmt.Sprintf("%.1f", r.InspectionRoundTrips),
		"invocations", r.Invocations,
		"beyond_invocations_round_trips", fmt.Sprintf("%.1f", r.BeyondInvocationsRoundTrips),
		"forwarded", forwardedList(r.Forwarded))
}

// forwardedList names the commands of a stop that went to the VM, with
// their counts, by name.
func forwardedList(counts map[jdwp.Command]int) string {
	parts := make([]string, 0, len(counts))
	for cmd, n := range counts {
		parts = append(parts, fmt.Sprintf("%s×%d", cmd, n))
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

// Close closes the journal file.
func (s *Sessions) Close() error {
	if s.journal != nil {
		return s.journal.Close()
	}
	return nil
}
