package share

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/jdwpscache/scache/jdwp"
)

// Bounds of what a session queues for one client.
const (
	// DefaultClientQueueBytes bounds the packets queued for one client.
	DefaultClientQueueBytes = 8 << 20
	// DefaultClientWriteTimeout bounds one write to a client.
	DefaultClientWriteTimeout = 30 * time.Second
)

// clientWriter sends one client its packets from a goroutine of its own, so
// that a client that reads slowly delays only itself. What waits for it is
// bounded in bytes and each write has a deadline (when the connection has
// one): a client that falls behind either way is dropped, with the reason.
type clientWriter struct {
	conn    io.WriteCloser
	limit   int
	timeout time.Duration

	mu      sync.Mutex
	queue   [][]byte
	bytes   int
	err     error // why the client was dropped
	closing bool  // write what is queued, then end the connection after the client read it
	wake    chan struct{}
	done    chan struct{}
}

func newClientWriter(conn io.WriteCloser, limit int, timeout time.Duration) *clientWriter {
	w := &clientWriter{conn: conn, limit: limit, timeout: timeout, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go w.run()
	return w
}

// send queues a packet; a client whose queue would pass the bound is dropped.
func (w *clientWriter) send(p []byte) {
	w.mu.Lock()
	if w.err == nil && !w.closing {
		if w.bytes+len(p) > w.limit {
			w.drop(fmt.Errorf("share: the client fell behind: %d bytes wait for it, the bound is %d", w.bytes+len(p), w.limit))
		} else {
			w.queue = append(w.queue, p)
			w.bytes += len(p)
		}
	}
	w.mu.Unlock()
	w.signal()
}

func (w *clientWriter) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// drop ends the client's connection for a reason; mu is held.
func (w *clientWriter) drop(err error) {
	if w.err != nil {
		return
	}
	w.err = err
	w.queue, w.bytes = nil, 0
	w.conn.Close()
}

// dropped returns why the client was dropped, or nil.
func (w *clientWriter) dropped() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// finish writes what is queued, then ends the connection once the client has
// read it (jdwp.CloseAfterDrain). It does not wait.
func (w *clientWriter) finish() {
	w.mu.Lock()
	w.closing = true
	w.mu.Unlock()
	w.signal()
}

// stop ends the writer at once, discarding what is queued, and waits for it.
// A write in progress ends when the connection is closed.
func (w *clientWriter) stop() {
	w.mu.Lock()
	if w.err == nil {
		w.err = errStopped
		w.queue, w.bytes = nil, 0
	}
	w.mu.Unlock()
	w.signal()
	<-w.done
}

var errStopped = errors.New("share: client left")

func (w *clientWriter) run() {
	defer close(w.done)
	dl, hasDeadline := w.conn.(interface{ SetWriteDeadline(time.Time) error })
	for range w.wake {
		w.mu.Lock()
		batch, closing, failed := w.queue, w.closing, w.err != nil
		w.queue = nil
		w.mu.Unlock()
		if failed {
			return
		}
		for _, p := range batch {
			if hasDeadline && w.timeout > 0 {
				_ = dl.SetWriteDeadline(time.Now().Add(w.timeout))
			}
			_, err := w.conn.Write(p)
			w.mu.Lock()
			if err != nil {
				w.drop(fmt.Errorf("share: writing to the client: %w", err))
			} else {
				w.bytes -= len(p)
			}
			failed = w.err != nil
			w.mu.Unlock()
			if failed {
				return
			}
		}
		w.mu.Lock()
		closing = closing || w.closing
		empty := len(w.queue) == 0
		w.mu.Unlock()
		if closing && empty {
			jdwp.CloseAfterDrain(w.conn)
			return
		}
	}
}
