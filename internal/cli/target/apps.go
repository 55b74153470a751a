package target

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"

	"github.com/jdwpscache/scache/adb"
)

// appWaiter waits for an app by name and says once, while it does not
// run, that it waits.
type appWaiter struct {
	watch     *adb.AppWatch
	app       string
	device    string
	log       *slog.Logger
	mu        sync.Mutex
	saidWaits bool // "waiting for it" was said since the app last ran
}

// wait returns the app's process and its others, once it runs.
func (w *appWaiter) wait(ctx context.Context) (adb.App, []adb.App, error) {
	a, others, err := w.watch.Wait(ctx, w.app, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if !w.saidWaits {
			w.log.Info(fmt.Sprintf("%s is not running on %s: waiting for it to start", w.app, w.device))
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
	a, others, err := w.wait(ctx)
	if err != nil {
		return nil, fmt.Errorf("waiting for %s: %w", w.app, err)
	}
	if len(others) > 0 {
		w.log.Info(fmt.Sprintf("attaching to %s (pid %d); the app's other processes: %s", w.app, a.PID, describe(others)))
	}
	return client.JDWP(ctx, sel, a.PID)
}

// announce says once whether the app runs, and waits for it if not.
func announce(ctx context.Context, w *appWaiter) {
	a, others, err := w.wait(ctx)
	if err != nil {
		return
	}
	w.log.Info(fmt.Sprintf("%s runs as pid %d", w.app, a.PID))
	if len(others) > 0 {
		w.log.Info(fmt.Sprintf("the app's other processes (-app attaches to %s only): %s", w.app, describe(others)))
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
