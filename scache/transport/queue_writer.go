package transport

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
)

// A queueWriter writes one connection's bytes from a goroutine of its own,
// in the order they were put: a split relay puts them while it holds its
// order lock, and never blocks there. What waits is bounded: after putting,
// the relay waits (without the lock) while more than limit bytes are queued,
// so a slow peer slows its senders down.
//
// share's clientWriter is its sibling with the opposite policy, and the two
// stay apart: a split relay's peers (the VM, the other half, the debugger)
// must each receive every byte in order, so a slow one is waited for; a
// shared session's clients are many, and one that falls behind must not
// hold the VM or the others, so it is dropped (with a write deadline as
// well). Only the queueing loop is common; the policy is the whole of
// each, and a policy field would make each writer's every method branch
// on it.
type queueWriter struct {
	w     io.Writer
	limit int
	// pack, if set, turns each batch into what is written (the tunnel's
	// compression), from the writer's goroutine; wrote counts what was.
	pack  func([][]byte) [][]byte
	wrote atomic.Int64

	mu      sync.Mutex
	cond    *sync.Cond
	queue   [][]byte
	bytes   int
	err     error
	closing func() // run once the queue is written; nil: not closing
	done    chan struct{}
}

func newQueueWriter(w io.Writer, limit int, pack func([][]byte) [][]byte) *queueWriter {
	q := &queueWriter{w: w, limit: limit, pack: pack, done: make(chan struct{})}
	q.cond = sync.NewCond(&q.mu)
	go q.run()
	return q
}

// put queues bufs, unless the writer failed or is closing.
func (q *queueWriter) put(bufs [][]byte) {
	if len(bufs) == 0 {
		return
	}
	q.mu.Lock()
	if q.err == nil && q.closing == nil {
		for _, b := range bufs {
			q.queue = append(q.queue, b)
			q.bytes += len(b)
		}
		q.cond.Broadcast()
	}
	q.mu.Unlock()
}

// wait blocks while the queue is over its bound, and returns the writer's
// error if it failed.
func (q *queueWriter) wait() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.bytes > q.limit && q.err == nil {
		q.cond.Wait()
	}
	return q.err
}

// finish writes what is queued, then runs then, and ends the writer.
func (q *queueWriter) finish(then func()) {
	q.mu.Lock()
	if q.closing == nil {
		q.closing = then
	}
	q.cond.Broadcast()
	q.mu.Unlock()
}

// abort ends the writer at once with err; what is queued is dropped.
func (q *queueWriter) abort(err error) {
	q.mu.Lock()
	if q.err == nil {
		q.err = err
	}
	q.queue, q.bytes = nil, 0
	q.cond.Broadcast()
	q.mu.Unlock()
}

func (q *queueWriter) run() {
	defer close(q.done)
	var bufs net.Buffers
	for {
		q.mu.Lock()
		for len(q.queue) == 0 && q.err == nil && q.closing == nil {
			q.cond.Wait()
		}
		if q.err != nil {
			q.mu.Unlock()
			return
		}
		if len(q.queue) == 0 { // closing, and all written
			then := q.closing
			q.err = io.ErrClosedPipe
			q.cond.Broadcast()
			q.mu.Unlock()
			then()
			return
		}
		bufs = append(bufs[:0], q.queue...)
		n := 0
		for _, b := range q.queue {
			n += len(b)
		}
		clear(q.queue)
		q.queue = q.queue[:0]
		q.mu.Unlock()

		all := bufs // WriteTo consumes its receiver
		if q.pack != nil {
			all = q.pack(bufs)
		}
		wrote, err := all.WriteTo(q.w)
		q.wrote.Add(wrote)
		clear(bufs)

		q.mu.Lock()
		if q.err == nil {
			q.bytes -= n
		}
		if err != nil && q.err == nil {
			q.err = err
			q.queue, q.bytes = nil, 0
		}
		q.cond.Broadcast()
		q.mu.Unlock()
	}
}
