package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/jdwpscache/scache/adb"
)

// listApps prints the device's processes of the first list, a line each
// sorted by name, or as JSON.
func listApps(ctx context.Context, client *adb.Client, sel adb.Selector, asJSON bool, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	updates, err := client.TrackApps(ctx, sel)
	if err != nil {
		fmt.Fprintln(stderr, "adbproxy:", err)
		return 1
	}
	apps, ok := <-updates
	if !ok {
		fmt.Fprintln(stderr, "adbproxy: the device's process list ended before it said anything")
		return 1
	}
	if asJSON {
		type entry struct {
			PID          int      `json:"pid"`
			Name         string   `json:"name"`
			Debuggable   bool     `json:"debuggable"`
			Profileable  bool     `json:"profileable"`
			Architecture string   `json:"architecture"`
			Packages     []string `json:"packages,omitempty"`
		}
		out := []entry{}
		for _, a := range apps {
			out = append(out, entry{a.PID, a.Name, a.Debuggable, a.Profileable, a.Architecture, a.Packages})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(out)
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	for _, a := range apps {
		name, debuggable, arch := a.Name, "debuggable", a.Architecture
		if name == "" {
			name = "?"
		}
		if !a.Debuggable {
			debuggable = "profileable"
		}
		if arch == "" {
			arch = "?"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", a.PID, name, debuggable, arch)
	}
	tw.Flush()
	return 0
}

// appWaiter waits for an app by name and says once, while it does not
// run, that it waits.
type appWaiter struct {
	watch     *adb.AppWatch
	app       string
	device    string
	stderr    io.Writer
	mu        sync.Mutex
	saidWaits bool // "waiting for it" was said since the app last ran
}

// wait returns the app's process and its others, once it runs.
func (w *appWaiter) wait(ctx context.Context) (adb.App, []adb.App, error) {
	a, others, err := w.watch.Wait(ctx, w.app, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if !w.saidWaits {
			fmt.Fprintf(w.stderr, "adbproxy: %s is not running on %s: waiting for it to start\n", w.app, w.device)
			w.saidWaits = true
		}
	})
	if err == nil {
		w.mu.Lock()
		w.saidWaits = false
		w.mu.Unlock()
	}
	return a, others, err
}

// dialApp opens jdwp:<pid> to the process named app as it runs now,
// waiting for it to start.
func dialApp(ctx context.Context, client *adb.Client, sel adb.Selector, w *appWaiter) (net.Conn, error) {
	app, stderr := w.app, w.stderr
	a, others, err := w.wait(ctx)
	if err != nil {
		return nil, fmt.Errorf("waiting for %s: %w", app, err)
	}
	if len(others) > 0 {
		fmt.Fprintf(stderr, "adbproxy: attaching to %s (pid %d); the app's other processes: %s\n", app, a.PID, describe(others))
	}
	return client.JDWP(ctx, sel, a.PID)
}

// announce says once whether the app runs, and waits for it if not.
func announce(ctx context.Context, w *appWaiter) {
	app, stderr := w.app, w.stderr
	a, others, err := w.wait(ctx)
	if err != nil {
		return
	}
	fmt.Fprintf(stderr, "adbproxy: %s runs as pid %d\n", app, a.PID)
	if len(others) > 0 {
		fmt.Fprintf(stderr, "adbproxy: the app's other processes (-app attaches to %s only): %s\n", app, describe(others))
	}
}

// describe lists processes as "name (pid N)".
func describe(apps []adb.App) string {
	var s []string
	for _, a := range apps {
		s = append(s, fmt.Sprintf("%s (pid %d)", a.Name, a.PID))
	}
	return strings.Join(s, ", ")
}

// lockedWriter serializes the lines several goroutines write.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
