// Package sessionflags declares, in one place, the flags that say how a
// proxy's debugger sessions run: where debuggers connect (-listen), what the
// Speculator does (-mode), what is told about each session (-stats,
// -journal, -timeline, -v), whether several tools share the VM (-share),
// and the split proxy's tunnel (-split, -via, -stdio, -key, -resume-within). Register
// declares them on a command's flag set; Check checks the ones that go
// together and returns what scache and its transport need.
package sessionflags

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jdwpscache/scache/internal/observe"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/transport"
)

// DefaultListen is where debuggers connect unless -listen says otherwise:
// loopback, because JDWP gives whoever connects code execution in the VM.
const DefaultListen = "127.0.0.1:8700"

// Flags holds the session flags as parsed.
type Flags struct {
	Listen   string // where debuggers (or, for a near half, the far half) connect
	Mode     string // scache, classic or off
	Stats    string // each session's stats as JSON
	Journal  string // every session's journal
	Timeline string // the last session's timeline
	Verbose  bool   // a log line per stop
	Share    bool   // several debuggers and tools on one VM connection
	Split    string // "", near or far
	Via      string // with -split far: the command that reaches the near half
	Stdio    bool   // with -split near: one tunnel on standard input and output
	KeyFile  string // with -split: the tunnel key's file
	// ResumeWithin: with -split, how long the halves wait for a lost link.
	ResumeWithin time.Duration
}

// Register declares the session flags on fs and returns where their values go.
func Register(fs *flag.FlagSet) *Flags {
	f := &Flags{}
	fs.StringVar(&f.Listen, "listen", DefaultListen, "where debuggers connect (loopback by default: JDWP grants code execution)")
	fs.StringVar(&f.Mode, "mode", "scache", "scache (speculate), classic (the original jdwp-scache policy) or off (forward only)")
	fs.StringVar(&f.Stats, "stats", "", "write each session's stats and stops as JSON to this file")
	fs.StringVar(&f.Journal, "journal", "", "write the journal of every session to this file: pcapng for a name ending in .pcapng "+
		"(Wireshark reads it), else the trace format (.sctrace; scache replay reads both)")
	fs.StringVar(&f.Timeline, "timeline", "", "write the last session's timeline (Chrome trace-event JSON, for Perfetto) to this file")
	fs.BoolVar(&f.Verbose, "v", false, "log one line per stop: where, how long the debugger waited, what speculation answered")
	fs.BoolVar(&f.Share, "share", false, "let several debuggers and tools attach at once, on one VM connection")
	fs.StringVar(&f.Split, "split", "", "be one half of a split proxy: near (next to the VM) or far (next to the debugger; -vm is the near half)")
	fs.StringVar(&f.Via, "via", "", "with -split far: reach the near half through this command's standard input and output, started for each "+
		"debugger session, instead of dialing -vm (e.g. 'ssh host scache proxy -split near -stdio -vm 127.0.0.1:5005')")
	fs.BoolVar(&f.Stdio, "stdio", false, "with -split near: serve one tunnel on standard input and output (a far half's -via starts it), "+
		"then exit; logs go to standard error. Should the channel die mid-session, it keeps the VM and waits (-resume-within) "+
		"for the far half's next run of the command, on a Unix socket only this user reaches")
	fs.StringVar(&f.KeyFile, "key", "", "with -split: the tunnel key both halves hold (make one with scache keygen FILE): the tunnel is TLS 1.3, "+
		"and only a far half with the key reaches the VM; required for a near half listening beyond loopback")
	fs.DurationVar(&f.ResumeWithin, "resume-within", transport.DefaultResumeWithin, "with -split: when the link between the halves is lost, "+
		"how long both halves keep the session (the debugger's and the VM's connections) while the far half dials again; "+
		"0: a lost link ends the session. Give both halves the same")
	return f
}

// RendezvousDir is where near halves started on a command's channel
// (-stdio) wait for their far half's next run of the command: scache in
// $XDG_RUNTIME_DIR, else scache-UID in the temporary directory; this
// user's alone either way.
func RendezvousDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "scache")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("scache-%d", os.Getuid()))
}

// Session is what checked flags make.
type Session struct {
	Flags
	Half    transport.Half       // transport.Whole unless -split
	Key     *transport.TunnelKey // the -key's key, or nil
	Options []scache.Option      // the mode's, the split's and the key's options
}

// Check checks the flags that go together, loads the key, and returns the
// session they describe. Nothing listens or dials here: a wrong flag is
// reported as itself.
func (f *Flags) Check() (*Session, error) {
	opts, err := scache.ModeOptions(f.Mode)
	if err != nil {
		return nil, fmt.Errorf("-mode: %w", err)
	}
	s := &Session{Flags: *f}
	if f.Share {
		if err := f.checkShare(); err != nil {
			return nil, err
		}
	}
	if f.Split != "" {
		if s.Half, err = transport.ParseHalf(f.Split); err != nil {
			return nil, err
		}
		opts = append(opts, transport.WithSplit(s.Half))
	}
	switch {
	case f.Via != "" && s.Half != transport.FarHalf:
		return nil, errors.New("-via reaches the near half from the far half: give -split far")
	case f.Stdio && s.Half != transport.NearHalf:
		return nil, errors.New("-stdio serves the near half's end of a tunnel: give -split near")
	case f.KeyFile != "" && f.Split == "":
		return nil, errors.New("-key keys the tunnel of a split proxy: give -split near or -split far")
	case f.KeyFile != "" && (f.Via != "" || f.Stdio):
		return nil, errors.New("-key with -via or -stdio: the command's channel (ssh, kubectl exec) is the tunnel's security; drop -key")
	}
	if f.ResumeWithin < 0 {
		return nil, fmt.Errorf("-resume-within %v: 0 or a positive time", f.ResumeWithin)
	}
	if s.Half != transport.Whole {
		opts = append(opts, transport.WithResume(f.ResumeWithin))
	}
	if f.Stdio && f.ResumeWithin > 0 {
		// The command's channel dies with the link: the near half then
		// waits where the far half's next run of the command finds it.
		opts = append(opts, transport.WithRendezvous(RendezvousDir()))
	}
	if f.KeyFile != "" {
		if s.Key, err = transport.LoadTunnelKey(f.KeyFile); err != nil {
			return nil, err
		}
		opts = append(opts, transport.WithTunnelKey(s.Key))
	}
	if s.Half == transport.NearHalf && s.Key == nil && !f.Stdio && !transport.OnLoopback(f.Listen) {
		return nil, fmt.Errorf("-split near -listen %s: beyond loopback anyone who reaches the port would run code in the VM; "+
			"make a key (scache keygen FILE), give it to both halves (-key FILE), or start the near half through the far half's -via", f.Listen)
	}
	s.Options = opts
	return s, nil
}

// checkShare refuses, with -share, what one VM connection shared by
// several sessions cannot do.
func (f *Flags) checkShare() error {
	var perSession []string
	for name, set := range map[string]bool{"-v": f.Verbose, "-journal": f.Journal != "", "-timeline": f.Timeline != ""} {
		if set {
			perSession = append(perSession, name)
		}
	}
	if len(perSession) > 0 {
		slices.Sort(perSession)
		return fmt.Errorf("-share with %s: these follow one debugger's session, and a shared VM connection carries several at once; "+
			"drop them, or run without -share (-stats works with -share)", strings.Join(perSession, ", "))
	}
	if f.Split != "" {
		return errors.New("-share and -split: sharing a VM with the far half's debuggers is not supported; run -share at the VM without -split")
	}
	return nil
}

// Observe returns what the session flags ask to be told about each
// session, with its lines going to log.
func (s *Session) Observe(log *slog.Logger) observe.Config {
	return observe.Config{StatsFile: s.Stats, JournalFile: s.Journal, TimelineFile: s.Timeline, Verbose: s.Verbose, Logger: log}
}
