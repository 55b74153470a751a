// Package proxycmd is scache proxy: it puts the Speculator between
// debuggers and a Java VM. The VM is a JDWP address (-vm), or an Android
// app reached through the adb server (-app NAME, -pid N; -list shows them).
// The session flags (package sessionflags) mean the same whatever the
// target: -split makes it one half of a split proxy, -share lets several
// tools attach at once, -stats, -journal, -timeline and -v tell about each
// session.
//
// JDWP gives whoever connects code execution in the VM, so it listens on
// loopback unless -listen names another address.
package proxycmd

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"

	"github.com/jdwpscache/scache/internal/cli/command"
	"github.com/jdwpscache/scache/internal/cli/target"
	"github.com/jdwpscache/scache/internal/observe"
	"github.com/jdwpscache/scache/internal/sessionflags"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/transport"
)

var about = command.Command{
	Name:  "proxy",
	Short: "put scache between a debugger and a VM (an address, or an Android app through adb)",
	Summary: "Proxy puts scache between a Java debugger and a VM: point the debugger at -listen; each session dials -vm, " +
		"or an Android app through adb (-app NAME, -pid N). -split makes it one half of a split proxy across a slow link.",
	Example: "scache proxy -listen 127.0.0.1:8700 -vm 127.0.0.1:5005 -v",
}

// Command is scache proxy.
var Command = about.With(Run, Check)

// settings are what the flags say, checked.
type settings struct {
	session *sessionflags.Session
	vm      *target.Flags
	list    bool // -list: print the device's processes
	json    bool // -json: as JSON
}

// parse parses args and checks every flag; flag errors and -h go to stderr.
func parse(args []string, stderr io.Writer) (*settings, error) {
	fs := about.NewFlagSet(stderr)
	flags := sessionflags.Register(fs)
	st := &settings{vm: target.Register(fs, "127.0.0.1:5005", "the VM's JDWP address (with -split far: the near half's)")}
	fs.BoolVar(&st.list, "list", false, "print the device's debuggable processes (pid, name, debuggable, architecture) and exit")
	fs.BoolVar(&st.json, "json", false, "with -list: print the processes as JSON")
	if err := command.Parse(fs, args); err != nil {
		return nil, err
	}
	var err error
	if st.session, err = flags.Check(); err != nil {
		return nil, err
	}
	return st, errors.Join(command.NoArgs(fs), st.vm.Check(fs, st.list), checkTarget(st.session, st.vm, st.list, st.json))
}

// Check parses and checks args as Run does.
func Check(args []string) error {
	_, err := parse(args, io.Discard)
	return err
}

// Run parses args, checks every flag before anything listens or dials, and
// serves debuggers until ctx ends (each session then ends and its stats are
// written). Its log goes to stderr; -list prints to stdout.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	st, err := parse(args, stderr)
	if err != nil {
		return about.Refuse(stderr, err)
	}
	session := st.session
	if st.list {
		client, sel := st.vm.Client()
		return listApps(ctx, client, sel, st.json, stdout, stderr)
	}
	stderr = &lockedWriter{w: stderr}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	p, err := newServer(session, log)
	if err != nil {
		return about.Fail(stderr, 2, err)
	}
	defer p.close()
	dial, where, err := dialer(ctx, session, st.vm, log, stderr)
	if err != nil {
		return about.Fail(stderr, 1, err)
	}
	ln, err := listen(session, log)
	if err != nil {
		return about.Fail(stderr, 1, err)
	}
	log.Info("proxy ready", "listen", ln.Addr().String(), "vm", where, "mode", session.Mode, "split", session.Split)
	if err := p.serve(ctx, ln, dial); err != nil && !(session.Stdio && errors.Is(err, net.ErrClosed)) {
		return about.Fail(stderr, 1, err)
	}
	return 0
}

// checkTarget checks the target's flags against the session's.
func checkTarget(s *sessionflags.Session, vm *target.Flags, list, asJSON bool) error {
	switch {
	case asJSON && !list:
		return errors.New("-json goes with -list")
	case vm.ThroughADB() && s.Half == transport.FarHalf:
		return errors.New("-split far reaches the near half (-vm or -via); -app and -pid go to the near half beside the adb server (scache proxy -split near -app NAME)")
	}
	return nil
}

// dialer returns how each session reaches the VM (for a far half, the
// near half: through -via's command, or at -vm), and says where in words.
func dialer(ctx context.Context, s *sessionflags.Session, vm *target.Flags, log *slog.Logger, stderr io.Writer) (target.DialFunc, string, error) {
	if s.Via != "" {
		return viaDialer(s.Via, stderr), "via " + s.Via, nil
	}
	return vm.Dialer(ctx, log)
}

// listen returns where debuggers (or the far half) connect: -listen's
// address, or standard input and output with -stdio.
func listen(s *sessionflags.Session, log *slog.Logger) (net.Listener, error) {
	if s.Stdio {
		outliveTheChannel()
		return newStdioListener(), nil
	}
	ln, err := net.Listen("tcp", s.Listen)
	if err != nil {
		return nil, err
	}
	if !transport.OnLoopback(ln.Addr().String()) {
		log.Warn("listening beyond loopback: anyone who can connect can run code in the VM", "addr", ln.Addr().String())
	}
	return ln, nil
}

// A server is a session's options and what tells about its sessions.
type server struct {
	session  *sessionflags.Session
	log      *slog.Logger
	opts     []scache.Option
	sessions *observe.Sessions // nil with -share
}

// newServer opens the files the flags name, so that a path that cannot be
// written is reported before anything listens.
func newServer(s *sessionflags.Session, log *slog.Logger) (*server, error) {
	p := &server{session: s, log: log, opts: append(s.Options, scache.WithLogger(log))}
	if s.Key != nil {
		log.Info("tunnel key", "fingerprint", s.Key.Fingerprint())
	}
	if s.Share {
		return p, nil
	}
	sessions, err := observe.Open(s.Observe(log))
	if err != nil {
		return nil, err
	}
	p.sessions = sessions
	p.opts = append(p.opts, sessions.Options()...)
	return p, nil
}

// serve serves the debuggers that connect to ln until ctx ends.
func (p *server) serve(ctx context.Context, ln net.Listener, dial target.DialFunc) error {
	if p.session.Share {
		return serveShared(ctx, ln, dial, p.opts, p.session.Stats, p.log)
	}
	proxy, err := transport.NewProxy(dial, p.opts...)
	if err != nil {
		ln.Close()
		return err
	}
	return proxy.Serve(ctx, ln)
}

// close writes what is left to write about the sessions.
func (p *server) close() {
	if p.sessions != nil {
		p.sessions.Close()
	}
}
