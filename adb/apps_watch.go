package adb

import (
	"context"
	"errors"
	"strings"
	"sync"
)

// An AppWatch keeps a device's list of apps current (TrackApps) for
// whoever asks: which processes run, and the one that has a name. Make one
// with Client.WatchApps.
type AppWatch struct {
	mu      sync.Mutex
	apps    []App
	arrived bool          // the first list arrived
	changed chan struct{} // closed and replaced at each list
	ended   bool
}

// ErrTrackingEnded: the device's app list ended (the device went, or the
// adb server closed the stream).
var ErrTrackingEnded = errors.New("adb: the device's app list ended")

// WatchApps tracks the device's apps until ctx ends.
func (c *Client) WatchApps(ctx context.Context, sel Selector) (*AppWatch, error) {
	updates, err := c.TrackApps(ctx, sel)
	if err != nil {
		return nil, err
	}
	w := &AppWatch{changed: make(chan struct{})}
	go func() {
		for apps := range updates {
			w.mu.Lock()
			w.apps, w.arrived = apps, true
			close(w.changed)
			w.changed = make(chan struct{})
			w.mu.Unlock()
		}
		w.mu.Lock()
		w.ended = true
		close(w.changed)
		w.mu.Unlock()
	}()
	return w, nil
}

// Apps returns the latest list, and whether one has arrived.
func (w *AppWatch) Apps() ([]App, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]App(nil), w.apps...), w.arrived
}

// Find returns the debuggable process named name (exactly), and the
// others of the same app (named name:suffix), from the latest list. ok
// is false while none runs, or before the first list arrives.
func (w *AppWatch) Find(name string) (app App, others []App, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, a := range w.apps {
		switch {
		case !a.Debuggable:
		case a.Name == name && !ok:
			app, ok = a, true
		case a.Name == name || strings.HasPrefix(a.Name, name+":"):
			others = append(others, a)
		}
	}
	return app, others, ok
}

// Wait returns as Find, once a debuggable process named name runs. It calls
// waiting once, if set, when none runs at first. It fails when ctx ends or
// the tracking does (ErrTrackingEnded).
func (w *AppWatch) Wait(ctx context.Context, name string, waiting func()) (App, []App, error) {
	told := false
	for {
		w.mu.Lock()
		changed, arrived, ended := w.changed, w.arrived, w.ended
		w.mu.Unlock()
		if app, others, ok := w.Find(name); ok {
			return app, others, nil
		}
		if ended {
			return App{}, nil, ErrTrackingEnded
		}
		if arrived && !told && waiting != nil {
			waiting()
			told = true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return App{}, nil, ctx.Err()
		}
	}
}
