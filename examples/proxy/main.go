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
// TCP connection per session. -via CMD has the far half start the near half
// through a command for each session instead (proxy -split far -via 'ssh
// host scache-proxy -split near -stdio -vm VMADDR'): the tunnel runs over
// the command's standard input and output, and nothing listens. -key FILE
// (made by -genkey FILE) makes the TCP tunnel TLS 1.3 between halves that
// hold the same key; a near half listening beyond loopback requires it. Both halves take -mode, -stats, -journal,
// -timeline and -v: the far half's describe what the debugger saw, the near
// half's what the VM saw and what was pushed.
//
// JDWP gives whoever connects code execution in the VM, so the proxy listens
// on loopback unless -listen names another address.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/jdwpscache/scache/internal/observe"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/transport"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); errors.Is(err, flag.ErrHelp) {
		os.Exit(2) // the usage is printed
	} else if err != nil {
		fmt.Fprintln(os.Stderr, "proxy:", err)
		os.Exit(1)
	}
}

// usageOutput is where -h and flag errors go.
var usageOutput io.Writer = os.Stderr

// run parses the flags in args, checks them all before anything listens,
// and serves until ctx ends (SIGINT or SIGTERM: each session ends and its
// stats are written).
func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fs.SetOutput(usageOutput)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "proxy puts scache between a Java debugger and a VM: point the debugger at -listen, the proxy dials -vm.")
		fs.PrintDefaults()
	}
	listen := fs.String("listen", "127.0.0.1:8700", "where debuggers connect (loopback by default: JDWP grants code execution)")
	vmAddr := fs.String("vm", "127.0.0.1:5005", "the VM's JDWP address")
	mode := fs.String("mode", "scache", "scache (speculate), classic (the original jdwp-scache policy) or off (forward only)")
	statsFile := fs.String("stats", "", "write each session's stats as JSON to this file")
	journalFile := fs.String("journal", "", "write the journal of every session to this file: pcapng for a name ending in .pcapng (Wireshark reads it), else the trace format (.sctrace)")
	timelineFile := fs.String("timeline", "", "write the last session's timeline (Chrome trace-event JSON) to this file")
	shared := fs.Bool("share", false, "let several debuggers and tools attach at once, on one VM connection")
	verbose := fs.Bool("v", false, "log one line per stop: where, how long the debugger waited, what speculation answered")
	split := fs.String("split", "", "be one half of a split proxy: near (next to the VM; -vm is the VM) or far (next to the debugger; -vm is the near half)")
	via := fs.String("via", "", "with -split far: reach the near half through this command's standard input and output, started for each "+
		"debugger session, instead of dialing -vm (e.g. 'ssh host scache-proxy -split near -stdio -vm 127.0.0.1:5005')")
	stdio := fs.Bool("stdio", false, "with -split near: serve one tunnel on standard input and output (a far half's -via starts it), "+
		"then exit; nothing listens, logs go to standard error")
	keyFile := fs.String("key", "", "with -split: the tunnel key both halves hold (make one with -genkey): the tunnel is TLS 1.3, and only a far half "+
		"with the key reaches the VM; required for a near half listening beyond loopback")
	genKey := fs.String("genkey", "", "write a new tunnel key to this file and exit; copy it to both halves' machines (-key FILE)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q: every setting is a flag (-h lists them)", fs.Args())
	}
	if *genKey != "" {
		k, err := transport.GenerateTunnelKey(*genKey)
		if err != nil {
			return err
		}
		fmt.Fprintf(usageOutput, "wrote the tunnel key %s (fingerprint %s): give it to both halves, -key %s\n", *genKey, k.Fingerprint(), *genKey)
		return nil
	}
	cfg := config{vmAddr: *vmAddr, mode: *mode, statsFile: *statsFile,
		journalFile: *journalFile, timelineFile: *timelineFile, share: *shared, verbose: *verbose, split: *split,
		via: *via, stdio: *stdio}
	if *keyFile != "" {
		if *split == "" {
			return errors.New("-key keys the tunnel of a split proxy: give -split near or -split far")
		}
		k, err := transport.LoadTunnelKey(*keyFile)
		if err != nil {
			return err
		}
		cfg.key = k
	}
	if _, err := cfg.options(); err != nil {
		return err
	}
	if cfg.split == "near" && cfg.key == nil && !cfg.stdio && !transport.OnLoopback(*listen) {
		return fmt.Errorf("-split near -listen %s: beyond loopback anyone who reaches the port would run code in the VM; "+
			"make a key (proxy -genkey FILE), give it to both halves (-key FILE), or start the near half through the far half's -via", *listen)
	}
	if cfg.key != nil {
		slog.Info("tunnel key", "fingerprint", cfg.key.Fingerprint())
	}
	if cfg.stdio {
		slog.Info("near half serving one tunnel on standard input and output", "vm", *vmAddr, "mode", *mode)
		if err := serve(ctx, newStdioListener(), cfg); err != nil && !errors.Is(err, net.ErrClosed) {
			return err
		}
		return nil
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	if !transport.OnLoopback(ln.Addr().String()) {
		slog.Warn("listening beyond loopback: anyone who can connect can run code in the VM", "addr", ln.Addr().String())
	}
	target := *vmAddr
	if cfg.via != "" {
		target = "via " + cfg.via
	}
	slog.Info("proxy ready", "listen", ln.Addr().String(), "vm", target, "mode", *mode, "split", *split)
	return serve(ctx, ln, cfg)
}

// config is what the flags say.
type config struct {
	vmAddr, mode                         string
	statsFile, journalFile, timelineFile string
	share, verbose                       bool
	split                                string // "", near or far
	via                                  string // -split far: the command that reaches the near half
	stdio                                bool   // -split near: one tunnel on stdin and stdout
	key                                  *transport.TunnelKey
}

// options checks the flags that go together and returns the Speculator's
// options for them.
func (cfg config) options() ([]scache.Option, error) {
	opts, err := scache.ModeOptions(cfg.mode)
	if err != nil {
		return nil, fmt.Errorf("-mode: %w", err)
	}
	if cfg.share {
		var perSession []string
		for name, set := range map[string]bool{"-v": cfg.verbose, "-journal": cfg.journalFile != "", "-timeline": cfg.timelineFile != ""} {
			if set {
				perSession = append(perSession, name)
			}
		}
		if len(perSession) > 0 {
			slices.Sort(perSession)
			return nil, fmt.Errorf("-share with %s: these follow one debugger's session, and a shared VM connection carries several at once; drop them, or run without -share (-stats works with -share)", strings.Join(perSession, ", "))
		}
	}
	if cfg.split != "" {
		half, err := transport.ParseHalf(cfg.split)
		if err != nil {
			return nil, err
		}
		if cfg.share {
			return nil, fmt.Errorf("-share and -split: share a VM with the far half's debuggers is not supported; run -share at the near half's VM without -split")
		}
		opts = append(opts, transport.WithSplit(half))
	}
	switch {
	case cfg.via != "" && cfg.split != "far":
		return nil, errors.New("-via reaches the near half from the far half: give -split far")
	case cfg.stdio && cfg.split != "near":
		return nil, errors.New("-stdio serves the near half's end of a tunnel: give -split near")
	case cfg.key != nil && (cfg.via != "" || cfg.stdio):
		return nil, errors.New("-key with -via or -stdio: the command's channel (ssh, kubectl exec) is the tunnel's security; drop -key")
	case cfg.key != nil:
		opts = append(opts, transport.WithTunnelKey(cfg.key))
	}
	return opts, nil
}

// serve runs the proxy on ln until ctx ends.
func serve(ctx context.Context, ln net.Listener, cfg config) error {
	vmAddr := cfg.vmAddr
	opts, err := cfg.options()
	if err != nil {
		ln.Close()
		return err
	}
	if cfg.share {
		return serveShared(ctx, ln, cfg, opts)
	}

	sessions, err := observe.Open(observe.Config{StatsFile: cfg.statsFile, JournalFile: cfg.journalFile,
		TimelineFile: cfg.timelineFile, Verbose: cfg.verbose})
	if err != nil {
		ln.Close()
		return err
	}
	defer sessions.Close()
	opts = append(opts, sessions.Options()...)
	dial := func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", vmAddr)
	}
	if cfg.via != "" {
		dial = viaDialer(cfg.via)
	}
	p, err := transport.NewProxy(dial, opts...)
	if err != nil {
		ln.Close()
		return err
	}
	return p.Serve(ctx, ln)
}
