// Package logtest collects what code under test logs: a buffer safe for
// the goroutines that write to it, and slog's default logger sent to one
// for the length of a test.
package logtest

import (
	"bytes"
	"log/slog"
	"sync"
	"testing"
)

// A Buffer is a bytes.Buffer that several goroutines may write while a
// test reads it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// CaptureDefault sends slog's default logger (as text) to a new Buffer
// until the test ends, and returns it. Tests that use it must not run in
// parallel with others that log.
func CaptureDefault(t testing.TB) *Buffer {
	b := &Buffer{}
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(b, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
	return b
}
