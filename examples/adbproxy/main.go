// Command adbproxy lets a debugger reach an app's VM on an Android device
// through adb, with the Speculator in between.
//
//	go run ./examples/adbproxy [-serial S] -app NAME [-listen 127.0.0.1:8700] [-mode scache|classic|off]
//	                           [-stats FILE] [-journal FILE] [-timeline FILE.json] [-v]
//	go run ./examples/adbproxy [-serial S] -pid P ...
//	go run ./examples/adbproxy [-serial S] -list [-json]
//
// The debugger attaches to the listen address; each session opens jdwp:<pid>
// on the device through the adb server (ANDROID_ADB_SERVER_PORT, or 5037).
// -list prints the device's debuggable (and profileable) processes, a line
// each sorted by name: pid, name, debuggable or not, architecture; -json
// prints them as JSON. With -app, each session goes to the process named
// NAME as it runs then: the proxy waits for the app when it is not running
// (and says so), and follows it when it restarts under another pid. The
// names come from the device's track-app service (Android 12 and later),
// or from each VM's DDM HELO on older devices.
// -stats, -journal, -timeline and -v tell about each session as the proxy's
// do (go doc ./examples/proxy).
//
// With -split near it is the near half of a split proxy, beside the adb
// server the device is attached to: a far half (go run ./examples/proxy
// -split far -vm THIS_ADDR) next to the debugger connects to -listen, and the
// whole inspection of each stop runs at the device's latency.
//
// JDWP gives whoever connects code execution in the app: the proxy listens on
// loopback unless -listen names another address.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/jdwpscache/scache/adb"
	"github.com/jdwpscache/scache/internal/observe"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/transport"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr, nil))
}

// run parses the flags and serves; ready, if set, receives the listen address.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, ready chan<- string) int {
	fs := flag.NewFlagSet("adbproxy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "adbproxy lets a debugger reach an Android app's VM through adb, with scache in between: point the debugger at -listen.")
		fs.PrintDefaults()
	}
	serial := fs.String("serial", "", "the device's serial (default: the only device)")
	pid := fs.Int("pid", 0, "the debuggable process to attach to")
	app := fs.String("app", "", "the app to attach to, by process name (com.example.app): each session goes to it as it runs then, waiting for it to start")
	asJSON := fs.Bool("json", false, "with -list: print the processes as JSON")
	listen := fs.String("listen", "127.0.0.1:8700", "where debuggers connect (loopback by default: JDWP grants code execution)")
	mode := fs.String("mode", "scache", "scache, classic or off")
	list := fs.Bool("list", false, "print the device's debuggable processes (pid, name, debuggable, architecture) and exit")
	server := fs.String("adb", "", "the adb server's address (default 127.0.0.1:$ANDROID_ADB_SERVER_PORT or :5037)")
	statsFile := fs.String("stats", "", "write each session's stats as JSON to this file")
	journalFile := fs.String("journal", "", "write the journal of every session to this file: pcapng for a name ending in .pcapng, else the trace format")
	timelineFile := fs.String("timeline", "", "write the last session's timeline (Chrome trace-event JSON) to this file")
	verbose := fs.Bool("v", false, "log one line per stop: where, how long the debugger waited, what speculation answered")
	split := fs.String("split", "", "near: be the near half of a split proxy; a far half (proxy -split far) connects to -listen")
	keyFile := fs.String("key", "", "with -split near: the tunnel key both halves hold (make one with proxy -genkey FILE); required beyond loopback")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "adbproxy: unexpected arguments %q: every setting is a flag (-h lists them)\n", fs.Args())
		return 2
	}
	if *split != "" && *split != "near" {
		fmt.Fprintln(stderr, "adbproxy: -split takes near only: the far half runs next to the debugger (proxy -split far)")
		return 2
	}
	var key *transport.TunnelKey
	if *keyFile != "" {
		if *split != "near" {
			fmt.Fprintln(stderr, "adbproxy: -key keys the tunnel of a split proxy: give -split near")
			return 2
		}
		k, err := transport.LoadTunnelKey(*keyFile)
		if err != nil {
			fmt.Fprintln(stderr, "adbproxy:", err)
			return 2
		}
		key = k
	}
	if *split == "near" && key == nil && !transport.OnLoopback(*listen) {
		fmt.Fprintf(stderr, "adbproxy: -split near -listen %s: beyond loopback anyone who reaches the port would run code in the app; "+
			"make a key (proxy -genkey FILE) and give it to both halves (-key FILE)\n", *listen)
		return 2
	}
	client := &adb.Client{Addr: *server}
	sel := adb.Selector{Serial: *serial}
	if *list {
		return listApps(ctx, client, sel, *asJSON, stdout, stderr)
	}
	switch {
	case *pid > 0 && *app != "":
		fmt.Fprintln(stderr, "adbproxy: -pid and -app: give one (-app follows the app across restarts)")
		return 2
	case *pid <= 0 && *app == "":
		fmt.Fprintln(stderr, "adbproxy: -app NAME or -pid is required (see -list)")
		return 2
	case *asJSON:
		fmt.Fprintln(stderr, "adbproxy: -json goes with -list")
		return 2
	}
	opts, err := scache.ModeOptions(*mode)
	if err != nil {
		fmt.Fprintln(stderr, "adbproxy: -mode:", err)
		return 2
	}
	sessions, err := observe.Open(observe.Config{StatsFile: *statsFile, JournalFile: *journalFile,
		TimelineFile: *timelineFile, Verbose: *verbose, Logger: slog.New(slog.NewTextHandler(stderr, nil))})
	if err != nil {
		fmt.Fprintln(stderr, "adbproxy:", err)
		return 2
	}
	defer sessions.Close()
	opts = append(opts, sessions.Options()...)
	if *split == "near" {
		opts = append(opts, transport.WithSplit(transport.NearHalf))
	}
	if key != nil {
		opts = append(opts, transport.WithTunnelKey(key))
		fmt.Fprintf(stderr, "adbproxy: tunnel key fingerprint %s\n", key.Fingerprint())
	}
	device := "the only device"
	if *serial != "" {
		device = "device " + *serial
	}
	stderr = &lockedWriter{w: stderr}
	dial := func(ctx context.Context) (net.Conn, error) { return client.JDWP(ctx, sel, *pid) }
	target := fmt.Sprintf("jdwp:%d", *pid)
	if *app != "" {
		watch, err := client.WatchApps(ctx, sel)
		if err != nil {
			fmt.Fprintln(stderr, "adbproxy: listing the apps:", err)
			return 1
		}
		waiter := &appWaiter{watch: watch, app: *app, device: device, stderr: stderr}
		dial = func(ctx context.Context) (net.Conn, error) { return dialApp(ctx, client, sel, waiter) }
		target = fmt.Sprintf("jdwp:<the pid of %s>", *app)
		go announce(ctx, waiter)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(stderr, "adbproxy:", err)
		return 1
	}
	fmt.Fprintf(stderr, "adbproxy: listening on %s; each debugger session that connects opens %s on %s through the adb server\n",
		ln.Addr(), target, device)
	if ready != nil {
		ready <- ln.Addr().String()
	}
	p, err := transport.NewProxy(dial, opts...)
	if err != nil {
		ln.Close()
		fmt.Fprintln(stderr, "adbproxy:", err)
		return 2
	}
	if err := p.Serve(ctx, ln); err != nil {
		fmt.Fprintln(stderr, "adbproxy:", err)
		return 1
	}
	return 0
}
