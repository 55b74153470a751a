package observe

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/jdwpscache/scache/internal/journal"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/stoplog"
)

// SessionStats is the JSON form of a session's counters (-stats).
type SessionStats struct {
	PacketsUp   int64 `json:"packets_up"`
	PacketsDown int64 `json:"packets_down"`
	Synthetic   int64 `json:"synthetic"`
	Hits        int64 `json:"hits"`
	Belayed     int64 `json:"belayed"`
	Misses      int64 `json:"misses"`
	// Replaced counts the misses whose speculated twin was still queued,
	// and dropped for them.
	Replaced int64 `json:"replaced"`
	Wasted   int64 `json:"wasted"`
	// CacheBytesAtEnd is what the cache held when the session ended (its
	// replies about suspended threads are gone by then); CachePeakBytes the
	// most it held at once.
	CacheBytesAtEnd int64 `json:"cache_bytes_at_end"`
	CachePeakBytes  int64 `json:"cache_peak_bytes"`
	Used            int64 `json:"synthetic_used"`
	// Split mode: bytes this half sent on the tunnel; the near half's bytes
	// of speculation pushed to the far half, and the replies (and their
	// bytes) that answered the debugger there.
	TunnelBytes     int64 `json:"tunnel_bytes,omitempty"`
	TunnelWireBytes int64 `json:"tunnel_wire_bytes,omitempty"`
	// The times the tunnel's link came back after it was lost, and the
	// bytes this half sent again then.
	TunnelResumes        int   `json:"tunnel_resumes,omitempty"`
	TunnelSentAgainBytes int64 `json:"tunnel_sent_again_bytes,omitempty"`
	PushedBytes          int64 `json:"pushed_bytes,omitempty"`
	PushedUsed           int64 `json:"pushed_used,omitempty"`
	PushedUsedBytes      int64 `json:"pushed_used_bytes,omitempty"`
	// A far half's Clears answered before the VM's reply.
	AnsweredAhead int64 `json:"answered_ahead,omitempty"`
	// The proxy's estimates of the link's round trip to the VM and of the
	// VM's service time per command (scache.Stats.RoundTrip, ServiceTime).
	RoundTripMs float64 `json:"round_trip_ms"`
	ServiceMs   float64 `json:"vm_service_ms"`
	// BandwidthBytesPerS is the proxy's estimate of the link's rate from
	// the VM (scache.Stats.Bandwidth; 0: its transfers never showed).
	BandwidthBytesPerS float64 `json:"bandwidth_bytes_per_s"`
	// WaitBehindSpeculationMs is the longest a debugger's command waited at
	// the VM behind speculated commands (scache.Stats.WaitBehindSpeculation).
	WaitBehindSpeculationMs float64 `json:"wait_behind_speculation_ms"`
	// Stops lists each stop of the session, from its event to the resume.
	Stops []StopStats `json:"stops"`
	// Forwarded counts, by command, the debugger's commands of the stops
	// that went to the VM (nothing answered them from speculation).
	Forwarded map[string]int `json:"forwarded_at_stops,omitempty"`
}

// StopStats is the JSON form of a stop.
type StopStats struct {
	Thread     string  `json:"thread"`
	ThreadName string  `json:"thread_name,omitempty"`
	Location   string  `json:"location"` // Class.method:line, or ids where the debugger never asked the names
	Step       bool    `json:"step"`
	StopMs     float64 `json:"stop_ms"`     // from the event to the debugger's resume
	WaitMs     float64 `json:"wait_ms"`     // some inspection command awaited a reply
	Asked      int     `json:"asked"`       // inspection commands (event requests aside)
	Answered   int     `json:"answered"`    // of them, from speculation
	RoundTrips float64 `json:"round_trips"` // the wait in round trips to the VM
	// ChangeWaitMs is the part of the wait on commands that change the
	// debuggee (SetValues, a hot swap: scache.ChangesDebuggee) alone;
	// InspectionRoundTrips the rest, in round trips.
	ChangeWaitMs         float64 `json:"change_wait_ms"`
	InspectionRoundTrips float64 `json:"inspection_round_trips"`
	// Invocations counts the debugger's invocations (a renderer's toString,
	// jdb's print), each a round trip no proxy saves; InvocationWaitMs is
	// the part of the inspection's wait on them alone, and
	// BeyondInvocationsRoundTrips the rest, in round trips.
	Invocations                 int     `json:"invocations"`
	InvocationWaitMs            float64 `json:"invocation_wait_ms"`
	BeyondInvocationsRoundTrips float64 `json:"beyond_invocations_round_trips"`
}

// WriteStats writes a session's stats and stops to path as JSON.
func WriteStats(path string, st scache.Stats, stops []stoplog.Record) error {
	out := SessionStats{PacketsUp: st.PacketsUp, PacketsDown: st.PacketsDown,
		Synthetic: st.Synthetic, Hits: st.Hits, Belayed: st.Belayed, Misses: st.Misses, Replaced: st.Replaced, Wasted: st.Wasted,
		CacheBytesAtEnd: st.CacheBytes, CachePeakBytes: st.CachePeakBytes, Used: st.SyntheticUsed, Stops: []StopStats{},
		TunnelBytes: st.TunnelBytes, TunnelWireBytes: st.TunnelWireBytes,
		TunnelResumes: st.TunnelResumes, TunnelSentAgainBytes: st.TunnelSentAgainBytes, PushedBytes: st.PushedBytes, PushedUsed: st.PushedUsed, PushedUsedBytes: st.PushedUsedBytes,
		AnsweredAhead: st.AnsweredAhead,
		RoundTripMs:   float64(st.RoundTrip.Microseconds()) / 1000, ServiceMs: float64(st.ServiceTime.Microseconds()) / 1000,
		BandwidthBytesPerS:      st.Bandwidth,
		WaitBehindSpeculationMs: float64(st.WaitBehindSpeculation.Microseconds()) / 1000}
	for _, s := range stops {
		for cmd, n := range s.Forwarded {
			if out.Forwarded == nil {
				out.Forwarded = map[string]int{}
			}
			out.Forwarded[cmd.String()] += n
		}
		out.Stops = append(out.Stops, StopStats{Thread: fmt.Sprintf("%#x", uint64(s.Thread)), ThreadName: s.ThreadName, Location: s.Where,
			Step: s.Step, StopMs: float64(s.End.Sub(s.Start).Microseconds()) / 1000,
			WaitMs: float64(s.Wait.Microseconds()) / 1000, Asked: s.Asked, Answered: s.Answered, RoundTrips: s.RoundTrips,
			ChangeWaitMs: float64(s.ChangeWait.Microseconds()) / 1000, InspectionRoundTrips: s.InspectionRoundTrips,
			Invocations: s.Invocations, InvocationWaitMs: float64(s.InvocationWait.Microseconds()) / 1000,
			BeyondInvocationsRoundTrips: s.BeyondInvocationsRoundTrips})
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return journal.WriteFileWhole(path, func(w io.Writer) error { // whole: read as soon as it appears
		_, err := w.Write(append(b, '\n'))
		return err
	})
}
