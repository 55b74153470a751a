// Command proxy puts the Speculator between a debugger and a Java VM.
//
//	go run ./examples/proxy -listen 127.0.0.1:8700 -vm 127.0.0.1:5005 [-mode scache|classic|off] [-stats FILE] [-journal FILE]
//
// Point the debugger at the listen address instead of the VM. The proxy
// serves one debugger at a time, as a VM does, and logs a summary after each
// session; -stats writes the session's counters as JSON.
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

	"github.com/jdwpscache/scache/scache"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8700", "where debuggers connect (loopback by default: JDWP grants code execution)")
	vmAddr := flag.String("vm", "127.0.0.1:5005", "the VM's JDWP address")
	mode := flag.String("mode", "scache", "scache (speculate), classic (the original jdwp-scache policy) or off (forward only)")
	statsFile := flag.String("stats", "", "write each session's stats as JSON to this file")
	journalFile := flag.String("journal", "", "write the journal of every session to this trace file")
	flag.Parse()

	if err := run(*listen, *vmAddr, *mode, *statsFile, *journalFile); err != nil {
		fmt.Fprintln(os.Stderr, "proxy:", err)
		os.Exit(1)
	}
}

func run(listen, vmAddr, mode, statsFile, journalFile string) error {
	opts, err := modeOptions(mode)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	if host, _, _ := net.SplitHostPort(ln.Addr().String()); !net.ParseIP(host).IsLoopback() {
		slog.Warn("listening beyond loopback: anyone who can connect can run code in the VM", "addr", ln.Addr().String())
	}
	slog.Info("proxy ready", "listen", ln.Addr().String(), "vm", vmAddr, "mode", mode)

	p := &scache.Proxy{
		DialVM: func(ctx context.Context) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "tcp", vmAddr)
		},
		NewSpeculator: func() *scache.Speculator { return scache.New(opts...) },
		SessionEnded: func(st scache.Stats, err error) {
			if statsFile != "" {
				if werr := writeStats(statsFile, st); werr != nil {
					slog.Error("writing stats", "err", werr)
				}
			}
		},
	}
	if journalFile != "" {
		j, err := openJournal(journalFile)
		if err != nil {
			return err
		}
		defer j.Close()
		p.Journal = j.Write
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return p.Serve(ctx, ln)
}

func modeOptions(mode string) ([]scache.Option, error) {
	switch mode {
	case "scache":
		return nil, nil
	case "classic":
		return []scache.Option{scache.Classic()}, nil
	case "off":
		return []scache.Option{scache.PassThrough()}, nil
	}
	return nil, fmt.Errorf("unknown mode %q (want scache, classic or off)", mode)
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
}

func writeStats(path string, st scache.Stats) error {
	b, err := json.MarshalIndent(sessionStats{PacketsUp: st.PacketsUp, PacketsDown: st.PacketsDown,
		Synthetic: st.Synthetic, Hits: st.Hits, Belayed: st.Belayed, Misses: st.Misses, Wasted: st.Wasted,
		CacheBytes: st.CacheBytes}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
