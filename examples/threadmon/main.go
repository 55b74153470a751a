// Command threadmon watches the threads of an Android VM over DDM: it says
// HELO, turns on thread notifications and status updates, and prints the
// threads as they are created, die and change state.
//
//	go run ./examples/threadmon -vm 127.0.0.1:PORT [-interval 1s] [-updates N]
//	go run ./examples/threadmon [-serial S] -pid P [-adb 127.0.0.1:5037] ...
//	go run ./examples/threadmon [-serial S] -app NAME [-adb 127.0.0.1:5037] ...
//
// With -pid it reaches the app's VM through the adb server (jdwp:<pid>);
// with -app, the process of that name (waiting for it to start).
// A VM that is not DDM-aware (HotSpot, for one) is reported in one line, with
// exit status 2.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/jdwpscache/scache/adb"
	"github.com/jdwpscache/scache/ddm"
	"github.com/jdwpscache/scache/jdwp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// thread is what the monitor knows of a thread.
type thread struct {
	id     uint32
	name   string
	status uint8
	tid    uint32
	utime  uint32
	stime  uint32
	daemon bool
}

var statusNames = map[uint8]string{
	ddm.StateRunning: "running", ddm.StateSleeping: "sleeping", ddm.StateMonitor: "monitor",
	ddm.StateWaiting: "waiting", ddm.StateInitializing: "initializing", ddm.StateStarting: "starting",
	ddm.StateNative: "native", ddm.StateVMWait: "vmwait",
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("threadmon", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "threadmon prints an Android VM's threads live over DDM (names, states, CPU time), directly or through adb.")
		fmt.Fprintln(stderr, "usage: threadmon [-vm HOST:PORT | -pid P | -app NAME] [-serial S] [-adb HOST:PORT] [-interval D] [-updates N]")
		fs.PrintDefaults()
	}
	vmAddr := fs.String("vm", "127.0.0.1:8700", "the VM's JDWP address")
	interval := fs.Duration("interval", time.Second, "how often the VM sends thread status")
	updates := fs.Int("updates", 0, "exit after this many status updates (0: run until interrupted)")
	serial := fs.String("serial", "", "with -pid: the device's serial (default: the only device)")
	pid := fs.Int("pid", 0, "reach the app with this pid through adb instead of -vm")
	app := fs.String("app", "", "reach the app with this process name (com.example.app) through adb, waiting for it to start")
	adbAddr := fs.String("adb", "", "the adb server's address (default 127.0.0.1:$ANDROID_ADB_SERVER_PORT or :5037)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "threadmon: unexpected arguments %q: every setting is a flag (-h lists them)\n", fs.Args())
		return 2
	}
	if *pid > 0 && *app != "" {
		fmt.Fprintln(stderr, "threadmon: -pid and -app: give one")
		return 2
	}
	var c *ddm.Client
	var err error
	if *app != "" {
		*pid, err = waitForApp(ctx, *adbAddr, *serial, *app, stderr)
		if err != nil {
			if ctx.Err() != nil {
				return 0 // interrupted while waiting
			}
			fmt.Fprintln(stderr, "threadmon:", err)
			return 1
		}
	}
	if *pid > 0 {
		*vmAddr = fmt.Sprintf("pid %d", *pid)
		c, err = dialADB(ctx, *adbAddr, *serial, *pid)
	} else {
		c, err = ddm.Dial(ctx, *vmAddr)
	}
	if errors.Is(err, ddm.ErrNotDDMAware) {
		fmt.Fprintf(stderr, "threadmon: the VM at %s is not DDM-aware (not an Android VM?): nothing to monitor\n", *vmAddr)
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, "threadmon:", err)
		return 1
	}
	defer c.Close()

	changes := make(chan ddm.Chunk, 256)
	forward := func(ch ddm.Chunk, isReply bool, id uint32) {
		changes <- ddm.Chunk{Type: ch.Type, Data: append([]byte(nil), ch.Data...)}
	}
	for _, t := range []ddm.Type{ddm.TypeTHCR, ddm.TypeTHDE, ddm.TypeTHNM, ddm.TypeTHST, ddm.TypeAPNM} {
		c.Handle(t, forward)
	}
	if _, err := c.Request(ctx, &ddm.ThreadNotify{Enable: true}); err != nil {
		fmt.Fprintln(stderr, "threadmon: enabling thread notifications:", err)
		return 1
	}
	if _, err := c.Request(ctx, &ddm.ThreadStatusInterval{Millis: uint32(interval.Milliseconds())}); err != nil {
		fmt.Fprintln(stderr, "threadmon: enabling thread status:", err)
		return 1
	}
	threads := map[uint32]*thread{}
	seen := 0
	for {
		select {
		case <-ctx.Done():
			return 0
		case <-c.Done():
			fmt.Fprintln(stderr, "threadmon: the VM closed the connection")
			return 0
		case ch := <-changes:
			if !apply(threads, ch) {
				continue
			}
			print(stdout, threads)
			if ch.Type == ddm.TypeTHST {
				seen++
				if *updates > 0 && seen >= *updates {
					return 0
				}
			}
		}
	}
}

// dialADB reaches an app's VM through adb (jdwp:<pid>) and says HELO.
func dialADB(ctx context.Context, server, serial string, pid int) (*ddm.Client, error) {
	conn, err := (&adb.Client{Addr: server}).JDWP(ctx, adb.Selector{Serial: serial}, pid)
	if err != nil {
		return nil, err
	}
	if err := jdwp.DebuggerHandshake(conn, 0); err != nil {
		conn.Close()
		return nil, err
	}
	c := ddm.NewClient(jdwp.NewConnFrom(conn, ddm.FirstToolID))
	if _, err := c.Hello(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// waitForApp returns the pid of the process named app, waiting (and saying
// so once) until it runs.
func waitForApp(ctx context.Context, server, serial, app string, stderr io.Writer) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the tracking
	watch, err := (&adb.Client{Addr: server}).WatchApps(ctx, adb.Selector{Serial: serial})
	if err != nil {
		return 0, err
	}
	a, _, err := watch.Wait(ctx, app, func() {
		fmt.Fprintf(stderr, "threadmon: %s is not running: waiting for it to start\n", app)
	})
	return a.PID, err
}

// apply updates the threads with a chunk and reports whether they changed.
func apply(threads map[uint32]*thread, ch ddm.Chunk) bool {
	switch ch.Type {
	case ddm.TypeTHCR:
		var m ddm.ThreadCreated
		if ddm.Decode(ch, &m) != nil {
			return false
		}
		threads[m.ID] = &thread{id: m.ID, name: m.Name, status: ddm.StateInitializing}
	case ddm.TypeTHNM:
		var m ddm.ThreadRenamed
		if ddm.Decode(ch, &m) != nil {
			return false
		}
		if t := threads[m.ID]; t != nil {
			t.name = m.Name
		} else {
			threads[m.ID] = &thread{id: m.ID, name: m.Name}
		}
	case ddm.TypeTHDE:
		var m ddm.ThreadDied
		if ddm.Decode(ch, &m) != nil {
			return false
		}
		delete(threads, m.ID)
	case ddm.TypeTHST:
		var m ddm.ThreadStatus
		if ddm.Decode(ch, &m) != nil {
			return false
		}
		for _, s := range m.Threads {
			t := threads[s.ID]
			if t == nil {
				t = &thread{id: s.ID}
				threads[s.ID] = t
			}
			t.status, t.tid, t.utime, t.stime, t.daemon = s.Status, s.TID, s.UTime, s.STime, s.Daemon
		}
	default:
		return false
	}
	return true
}

func print(w io.Writer, threads map[uint32]*thread) {
	ids := make([]uint32, 0, len(threads))
	for id := range threads {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTID\tSTATUS\tUTIME\tSTIME\tDAEMON\tNAME")
	for _, id := range ids {
		t := threads[id]
		status := statusNames[t.status]
		if status == "" {
			status = fmt.Sprint(t.status)
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%d\t%d\t%v\t%s\n", t.id, t.tid, status, t.utime, t.stime, t.daemon, t.name)
	}
	tw.Flush()
	fmt.Fprintln(w, strings.Repeat("-", 40))
}
