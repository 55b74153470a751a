package transport_test

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// A tap stands on the link to target: it forwards every connection made to
// its addr, records what the first client sent, and on Stall stops carrying
// bytes either way while the connections stay open. It closes everything
// when the test ends.
type tap struct {
	addr    string
	stalled atomic.Bool
	done    chan struct{} // closed when the test ends

	mu    sync.Mutex
	conns []net.Conn
	sent  []byte // what the first client sent

	wmu sync.Mutex // one write at a time on the link, the injected ones included
}

func startTap(t *testing.T, target string) *tap {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	tp := &tap{addr: ln.Addr().String(), done: make(chan struct{})}
	t.Cleanup(func() {
		ln.Close()
		close(tp.done)
		tp.mu.Lock()
		for _, c := range tp.conns {
			c.Close()
		}
		tp.mu.Unlock()
	})
	go func() {
		for first := true; ; first = false {
			a, err := ln.Accept()
			if err != nil {
				return
			}
			b, err := net.Dial("tcp", target)
			if err != nil {
				a.Close()
				continue
			}
			tp.mu.Lock()
			tp.conns = append(tp.conns, a, b)
			tp.mu.Unlock()
			go tp.pipe(b, a, first)
			go tp.pipe(a, b, false)
		}
	}()
	return tp
}

// pipe copies src to dst, recording what it carries if record is set.
func (tp *tap) pipe(dst, src net.Conn, record bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if tp.stalled.Load() {
			<-tp.done // hold the bytes: the link carries nothing more
			return
		}
		if record {
			tp.mu.Lock()
			tp.sent = append(tp.sent, buf[:n]...)
			tp.mu.Unlock()
		}
		if n > 0 {
			tp.wmu.Lock()
			_, werr := dst.Write(buf[:n])
			tp.wmu.Unlock()
			if werr != nil {
				return
			}
		}
		if err != nil {
			dst.Close()
			return
		}
	}
}

// Stall stops the link.
func (tp *tap) Stall() { tp.stalled.Store(true) }

// recorded returns what the first client sent through the tap.
func (tp *tap) recorded() []byte {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return append([]byte(nil), tp.sent...)
}

// Inject writes b on the latest connection's link, between two of the
// writes it carries: towards the target (toTarget), or towards the client.
func (tp *tap) Inject(t *testing.T, toTarget bool, b []byte) {
	tp.mu.Lock()
	require.NotEmpty(t, tp.conns, "a connection through the tap")
	c := tp.conns[len(tp.conns)-2] // the client's
	if toTarget {
		c = tp.conns[len(tp.conns)-1]
	}
	tp.mu.Unlock()
	tp.wmu.Lock()
	defer tp.wmu.Unlock()
	_, err := c.Write(b)
	require.NoError(t, err)
}
