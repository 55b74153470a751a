// Command threadmon watches the threads of an Android VM over DDM: it says
// HELO, turns on thread notifications and status updates, and prints the
// threads as they are created, die and change state.
//
//	go run ./examples/threadmon -vm 127.0.0.1:PORT [-interval 1s] [-updates N]
//
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
	"text/tabwriter"
	"time"

	"github.com/jdwpscache/scache/ddm"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
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
	vmAddr := fs.String("vm", "127.0.0.1:8700", "the VM's JDWP address")
	interval := fs.Duration("interval", time.Second, "how often the VM sends thread status")
	updates := fs.Int("updates", 0, "exit after this many status updates (0: run until interrupted)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	c, err := ddm.Dial(ctx, *vmAddr)
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
	for _, t := range []ddm.Type{ddm.TypeTHCR, ddm.TypeTHDE, ddm.TypeTHST, ddm.TypeAPNM} {
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

// apply updates the threads with a chunk and reports whether they changed.
func apply(threads map[uint32]*thread, ch ddm.Chunk) bool {
	switch ch.Type {
	case ddm.TypeTHCR:
		var m ddm.ThreadCreated
		if ddm.Decode(ch, &m) != nil {
			return false
		}
		threads[m.ID] = &thread{id: m.ID, name: m.Name, status: ddm.StateInitializing}
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
