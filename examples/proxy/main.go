// Command proxy puts the Speculator between a debugger and a Java VM.
//
//	go run ./examples/proxy -listen 127.0.0.1:8700 -vm 127.0.0.1:5005 [-mode scache|classic|off]
//	                        [-stats FILE] [-journal FILE] [-timeline FILE.json] [-share] [-v]
//	                        [-split near|far]
//
// Point the debugger at the listen address instead of the VM. The proxy
// serves one debugger at a time, as a VM does, and logs a summary after each
// session; -stats writes the session's counters and each stop as JSON, -v
// logs a line per stop, -journal appends
// every session's journal to a trace file (replay it with
// go run ./benchmarks/replay FILE), and -timeline writes the last session as a
// Chrome trace-event timeline (open it in Perfetto or chrome://tracing).
//
// With -share, several debuggers and tools may attach at once: the proxy
// holds one connection to the VM and multiplexes them on it (package share);
// -stats is then written when the VM connection ends.
//
// With -split, the proxy is one half of a split proxy, for a slow link
// between the debugger's machine and the VM's: run
//
//	proxy -split near -listen 127.0.0.1:8701 -vm VMADDR      (next to the VM)
//	proxy -split far  -listen 127.0.0.1:8700 -vm NEARADDR    (next to the debugger)
//
// and point the debugger at the far half. The near half speculates at the
// VM's latency and pushes the answers to the far half with each stop; the
// link between them (ssh -L, kubectl port-forward, adb forward) carries one
// TCP connection per session. Both halves take -mode, -stats, -journal,
// -timeline and -v: the far half's describe what the debugger saw, the near
// half's what the VM saw and what was pushed.
//
// JDWP gives whoever connects code execution in the VM, so the proxy listens
// on loopback unless -listen names another address.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/transport"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8700", "where debuggers connect (loopback by default: JDWP grants code execution)")
	vmAddr := flag.String("vm", "127.0.0.1:5005", "the VM's JDWP address")
	mode := flag.String("mode", "scache", "scache (speculate), classic (the original jdwp-scache policy) or off (forward only)")
	statsFile := flag.String("stats", "", "write each session's stats as JSON to this file")
	journalFile := flag.String("journal", "", "write the journal of every session to this file: pcapng for a name ending in .pcapng (Wireshark reads it), else the trace format (.sctrace)")
	timelineFile := flag.String("timeline", "", "write the last session's timeline (Chrome trace-event JSON) to this file")
	shared := flag.Bool("share", false, "let several debuggers and tools attach at once, on one VM connection")
	verbose := flag.Bool("v", false, "log one line per stop: where, how long the debugger waited, what speculation answered")
	split := flag.String("split", "", "be one half of a split proxy: near (next to the VM; -vm is the VM) or far (next to the debugger; -vm is the near half)")
	flag.Parse()

	err := func() error {
		ln, err := net.Listen("tcp", *listen)
		if err != nil {
			return err
		}
		if host, _, _ := net.SplitHostPort(ln.Addr().String()); !net.ParseIP(host).IsLoopback() {
			slog.Warn("listening beyond loopback: anyone who can connect can run code in the VM", "addr", ln.Addr().String())
		}
		slog.Info("proxy ready", "listen", ln.Addr().String(), "vm", *vmAddr, "mode", *mode, "split", *split)
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		return serve(ctx, ln, config{vmAddr: *vmAddr, mode: *mode, statsFile: *statsFile,
			journalFile: *journalFile, timelineFile: *timelineFile, share: *shared, verbose: *verbose, split: *split})
	}()
	if err != nil {
		fmt.Fprintln(os.Stderr, "proxy:", err)
		os.Exit(1)
	}
}

// config is what the flags say.
type config struct {
	vmAddr, mode                         string
	statsFile, journalFile, timelineFile string
	share, verbose                       bool
	split                                string // "", near or far
}

// serve runs the proxy on ln until ctx ends.
func serve(ctx context.Context, ln net.Listener, cfg config) error {
	vmAddr, statsFile, journalFile, timelineFile := cfg.vmAddr, cfg.statsFile, cfg.journalFile, cfg.timelineFile
	opts, err := scache.ModeOptions(cfg.mode)
	if err != nil {
		ln.Close()
		return err
	}
	if cfg.split != "" {
		half, err := transport.ParseHalf(cfg.split)
		if err == nil && cfg.share {
			err = fmt.Errorf("-share and -split: share a VM with the far half's debuggers is not supported; run -share at the near half's VM without -split")
		}
		if err != nil {
			ln.Close()
			return err
		}
		opts = append(opts, transport.WithSplit(half))
	}
	if cfg.share {
		return serveShared(ctx, ln, cfg, opts)
	}

	var tl *timeline
	if timelineFile != "" {
		tl = &timeline{}
	}
	var stops *scache.StopLog
	if statsFile != "" || cfg.verbose {
		stops = &scache.StopLog{}
		if cfg.verbose {
			stops.Done = func(s scache.StopRecord) {
				slog.Info("stop", "thread", fmt.Sprintf("%#x", s.Thread), "location", location(s.Location), "step", s.Step,
					"lasted", s.End.Sub(s.Start).Round(time.Millisecond), "waited", s.Wait.Round(time.Millisecond),
					"asked", s.Asked, "answered", s.Answered,
					"round_trips", fmt.Sprintf("%.1f", s.RoundTrips),
					"inspection_round_trips", fmt.Sprintf("%.1f", s.InspectionRoundTrips),
					"invocations", s.Invocations,
					"beyond_invocations_round_trips", fmt.Sprintf("%.1f", s.BeyondInvocationsRoundTrips))
			}
		}
	}
	opts = append(opts, transport.WithSessionEnded(func(st scache.Stats, err error) {
		var recs []scache.StopRecord
		if stops != nil {
			recs = stops.Stops()
			stops.Reset()
		}
		if statsFile != "" {
			if werr := writeStats(statsFile, st, recs); werr != nil {
				slog.Error("writing stats", "err", werr)
			}
		}
		if tl != nil {
			if werr := tl.writeAndReset(timelineFile); werr != nil {
				slog.Error("writing timeline", "err", werr)
			}
		}
	}))
	var sinks []func(scache.JournalEntry)
	if journalFile != "" {
		j, err := openJournal(journalFile)
		if err != nil {
			ln.Close()
			return err
		}
		defer j.Close()
		sinks = append(sinks, j.Write)
	}
	if tl != nil {
		sinks = append(sinks, tl.add)
	}
	if stops != nil {
		sinks = append(sinks, stops.Add)
	}
	if len(sinks) > 0 {
		opts = append(opts, scache.WithJournal(func(e scache.JournalEntry) {
			for _, sink := range sinks {
				sink(e)
			}
		}))
	}
	p, err := transport.NewProxy(func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", vmAddr)
	}, opts...)
	if err != nil {
		ln.Close()
		return err
	}
	return p.Serve(ctx, ln)
}

// sessionStats is the JSON form of a session's counters.
type sessionStats struct {
	PacketsUp   int64 `json:"packets_up"`
	PacketsDown int64 `json:"packets_down"`
	Synthetic   int64 `json:"synthetic"`
	Hits        int64 `json:"hits"`
	Belayed     int64 `json:"belayed"`
	Misses      int64 `json:"misses"`
	Wasted      int64 `json:"wasted"`
	CacheBytes  int64 `json:"cache_bytes"`
	Used        int64 `json:"synthetic_used"`
	// Split mode: bytes this half sent on the tunnel; the near half's bytes
	// of speculation pushed to the far half, and the replies (and their
	// bytes) that answered the debugger there.
	TunnelBytes     int64 `json:"tunnel_bytes,omitempty"`
	PushedBytes     int64 `json:"pushed_bytes,omitempty"`
	PushedUsed      int64 `json:"pushed_used,omitempty"`
	PushedUsedBytes int64 `json:"pushed_used_bytes,omitempty"`
	// A far half's Clears answered before the VM's reply.
	AnsweredAhead int64 `json:"answered_ahead,omitempty"`
	// The proxy's estimates of the link's round trip to the VM and of the
	// VM's service time per command (scache.Stats.RoundTrip, ServiceTime).
	RoundTripMs float64 `json:"round_trip_ms"`
	ServiceMs   float64 `json:"vm_service_ms"`
	// Stops lists each stop of the session, from its event to the resume.
	Stops []stopStats `json:"stops"`
}

// stopStats is the JSON form of a stop.
type stopStats struct {
	Thread     string  `json:"thread"`
	Location   string  `json:"location"`
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

// location names a code location by its ids.
func location(l jdwp.Location) string {
	return fmt.Sprintf("class %#x method %#x index %d", uint64(l.Class), uint64(l.Method), l.Index)
}

func writeStats(path string, st scache.Stats, stops []scache.StopRecord) error {
	out := sessionStats{PacketsUp: st.PacketsUp, PacketsDown: st.PacketsDown,
		Synthetic: st.Synthetic, Hits: st.Hits, Belayed: st.Belayed, Misses: st.Misses, Wasted: st.Wasted,
		CacheBytes: st.CacheBytes, Used: st.SyntheticUsed, Stops: []stopStats{},
		TunnelBytes: st.TunnelBytes, PushedBytes: st.PushedBytes, PushedUsed: st.PushedUsed, PushedUsedBytes: st.PushedUsedBytes,
		AnsweredAhead: st.AnsweredAhead,
		RoundTripMs:   float64(st.RoundTrip.Microseconds()) / 1000, ServiceMs: float64(st.ServiceTime.Microseconds()) / 1000}
	for _, s := range stops {
		out.Stops = append(out.Stops, stopStats{Thread: fmt.Sprintf("%#x", uint64(s.Thread)), Location: location(s.Location),
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
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
