// Package threadscmd is scache threads: it watches the threads of an
// Android VM over DDM. It says HELO, turns on thread notifications and
// status updates, and prints the threads as they are created, die and
// change state. The VM is a JDWP address (-vm), or an app reached through
// the adb server (-app NAME, -pid N). A VM that is not DDM-aware (HotSpot,
// for one: it is asked its name first, and told nothing of DDM) is
// reported in one line, with exit status 2.
package threadscmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jdwpscache/scache/ddm"
	"github.com/jdwpscache/scache/internal/cli/command"
	"github.com/jdwpscache/scache/internal/cli/target"
)

var about = command.Command{
	Name:  "threads",
	Short: "print an Android VM's threads live, over DDM",
	Summary: "Threads prints an Android VM's threads live over DDM (names, states, CPU time), " +
		"from its JDWP address (-vm) or through adb (-app NAME, -pid N).",
	Example: "scache threads -app com.example.app -interval 500ms",
}

// Command is scache threads.
var Command = about.With(Run, Check)

// settings are what the flags say, checked.
type settings struct {
	vm       *target.Flags
	interval time.Duration
	updates  int
}

// parse parses args and checks every flag; flag errors and -h go to stderr.
func parse(args []string, stderr io.Writer) (*settings, error) {
	fs := about.NewFlagSet(stderr)
	st := &settings{vm: target.Register(fs, "127.0.0.1:8700", "the VM's JDWP address")}
	fs.DurationVar(&st.interval, "interval", time.Second, "how often the VM sends thread status")
	fs.IntVar(&st.updates, "updates", 0, "exit after this many status updates (0: run until interrupted)")
	if err := command.Parse(fs, args); err != nil {
		return nil, err
	}
	if st.interval <= 0 {
		return nil, fmt.Errorf("-interval %v: a positive time", st.interval)
	}
	return st, errors.Join(command.NoArgs(fs), st.vm.Check(fs, false))
}

// Check parses and checks args as Run does.
func Check(args []string) error {
	_, err := parse(args, io.Discard)
	return err
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

// Run watches the VM's threads until ctx ends, the VM goes, or -updates
// status updates were printed.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	st, err := parse(args, stderr)
	if err != nil {
		return about.Refuse(stderr, err)
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	dial, where, err := st.vm.Dialer(ctx, log)
	if err != nil {
		return about.Fail(stderr, 1, err)
	}
	c, err := attach(ctx, dial, st.vm.ThroughADB())
	if errors.Is(err, ddm.ErrNotDDMAware) {
		return about.Fail(stderr, 2, fmt.Errorf("the VM at %s is not DDM-aware (%v): nothing to monitor", where, err))
	}
	if err != nil {
		if ctx.Err() != nil {
			return 0 // interrupted while waiting for the app
		}
		return about.Fail(stderr, 1, err)
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
		return about.Fail(stderr, 1, fmt.Errorf("enabling thread notifications: %w", err))
	}
	if _, err := c.Request(ctx, &ddm.ThreadStatusInterval{Millis: uint32(st.interval.Milliseconds())}); err != nil {
		return about.Fail(stderr, 1, fmt.Errorf("enabling thread status: %w", err))
	}
	threads := map[uint32]*thread{}
	seen := 0
	for {
		select {
		case <-ctx.Done():
			return 0
		case <-c.Done():
			fmt.Fprintln(stderr, "scache threads: the VM closed the connection")
			return 0
		case ch := <-changes:
			if !apply(threads, ch) {
				continue
			}
			printThreads(stdout, threads)
			if ch.Type == ddm.TypeTHST {
				seen++
				if st.updates > 0 && seen >= st.updates {
					return 0
				}
			}
		}
	}
}

// attach reaches the VM and says HELO. A VM reached through adb is an
// Android VM; one at a JDWP address may be any VM, and is asked its name
// first (HotSpot is never sent DDM: it may crash on it).
func attach(ctx context.Context, dial target.DialFunc, android bool) (*ddm.Client, error) {
	conn, err := dial(ctx)
	if err != nil {
		return nil, err
	}
	if android {
		return ddm.Attach(ctx, conn)
	}
	return ddm.AttachAny(ctx, conn)
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

// printThreads prints the table of threads, sorted by id.
func printThreads(w io.Writer, threads map[uint32]*thread) {
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
