package proxycmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
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
		fmt.Fprintln(stderr, "scache proxy -list:", err)
		return 1
	}
	apps, ok := <-updates
	if !ok {
		fmt.Fprintln(stderr, "scache proxy -list: the device's process list ended before it said anything")
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
