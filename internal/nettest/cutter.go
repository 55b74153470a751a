package nettest

import (
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// A Cutter is a link between a client and a server (the two halves of a
// split proxy, say) that a test can cut: it accepts on a loopback address
// and forwards each connection to its target, byte for byte, until told
// to reset the connections (each closes with a TCP reset) or to black-hole
// them (bytes stop, sockets stay open). Each connection it makes to the
// target comes from a new loopback address (127.0.0.2, .3, …): the server
// sees the client move, as a laptop that changes networks does.
type Cutter struct {
	// Addr is where clients connect.
	Addr string

	ln     net.Listener
	target string

	mu    sync.Mutex
	cond  *sync.Cond
	state cutState
	// cutAfter, when positive, resets every connection once it has
	// forwarded that many bytes from the client (CutEvery); holeAfter
	// black-holes them so (HoleEvery); downFor keeps the link down so
	// long after each of CutEvery's resets (DownFor).
	cutAfter, holeAfter int64
	cutOnce             int64 // CutOnceAt's bound, until it cut
	downFor             time.Duration
	pairs               map[*cutPair]struct{}
	conns               int      // connections accepted
	cuts                int      // resets and holes so far
	firsts              [][]byte // each connection's first bytes from the client
	source              byte     // the last byte of the next source address
	closed              bool
}

type cutState int

const (
	linkUp   cutState = iota
	linkDown          // connections are reset, new ones refused (reset)
	linkHole          // bytes stop; new connections wait
)

// firstBytes is how many of each connection's first bytes from the client
// a Cutter records (a tunnel's hello fits).
const firstBytes = 128

type cutPair struct {
	client, server net.Conn
	forwarded      int64 // bytes, both ways
}

// NewCutter returns a Cutter forwarding to target, closed when the test ends.
func NewCutter(t testing.TB, target string) *Cutter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("a cutter's listener: %v", err)
	}
	c := &Cutter{Addr: ln.Addr().String(), ln: ln, target: target, pairs: map[*cutPair]struct{}{}, source: 1}
	c.cond = sync.NewCond(&c.mu)
	go c.accept()
	t.Cleanup(c.Close)
	return c
}

// CutEvery makes the Cutter reset each connection once it has forwarded n
// bytes, both ways together (0: never); the client's next connection goes
// through.
func (c *Cutter) CutEvery(n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cutAfter = n
}

// CutOnceAt makes the Cutter reset the first connection that has
// forwarded n bytes, both ways together, and no other (DownFor applies).
func (c *Cutter) CutOnceAt(n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cutOnce = n
}

// DownFor makes each of CutEvery's (and CutOnceAt's) resets take the
// link down for d: new connections are reset until d has passed, as a
// link that drops for a while.
func (c *Cutter) DownFor(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.downFor = d
}

// HoleEvery makes the Cutter black-hole the link once a connection has
// forwarded n bytes, both ways together (0: never): bytes stop both ways, and
// the link comes back (every connection forwards again) when the client
// opens a new connection.
func (c *Cutter) HoleEvery(n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.holeAfter = n
}

// Reset closes every connection with a TCP reset, and refuses new ones
// (accepts and resets them) until Restore.
func (c *Cutter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.state = linkDown
	c.cuts++
	for p := range c.pairs {
		p.reset()
		delete(c.pairs, p)
	}
	c.cond.Broadcast()
}

// BlackHole stops the bytes both ways, the sockets left open, and holds
// new connections until Restore.
func (c *Cutter) BlackHole() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.state = linkHole
	c.cuts++
}

// Restore brings the link back: held bytes and connections go on.
func (c *Cutter) Restore() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.state = linkUp
	c.cond.Broadcast()
}

// Counts returns the connections accepted and the cuts (resets and holes)
// so far.
func (c *Cutter) Counts() (conns, cuts int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conns, c.cuts
}

// FirstBytes returns the first bytes (up to 128) the client sent on its
// i-th connection.
func (c *Cutter) FirstBytes(i int) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if i >= len(c.firsts) {
		return nil
	}
	return append([]byte(nil), c.firsts[i]...)
}

// Close stops accepting and closes every connection.
func (c *Cutter) Close() {
	c.mu.Lock()
	c.closed = true
	for p := range c.pairs {
		p.client.Close()
		p.server.Close()
	}
	c.cond.Broadcast()
	c.mu.Unlock()
	c.ln.Close()
}

func (c *Cutter) accept() {
	for {
		conn, err := c.ln.Accept()
		if err != nil {
			return
		}
		go c.serve(conn)
	}
}

func (c *Cutter) serve(client net.Conn) {
	c.mu.Lock()
	c.conns++
	i := len(c.firsts)
	c.firsts = append(c.firsts, nil)
	if c.state == linkHole && c.holeAfter > 0 {
		c.state = linkUp // the client dialled again: the link comes back
		c.cond.Broadcast()
	}
	for c.state == linkHole && !c.closed {
		c.cond.Wait()
	}
	if c.state == linkDown || c.closed {
		c.mu.Unlock()
		resetConn(client)
		return
	}
	c.source++
	if c.source == 255 {
		c.source = 2
	}
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, c.source)}
	c.mu.Unlock()
	server, err := (&net.Dialer{LocalAddr: local}).Dial("tcp", c.target)
	if err != nil {
		resetConn(client)
		return
	}
	p := &cutPair{client: client, server: server}
	c.mu.Lock()
	if c.closed || c.state == linkDown {
		c.mu.Unlock()
		p.reset()
		return
	}
	c.pairs[p] = struct{}{}
	c.mu.Unlock()
	go c.pump(p, client, server, i)
	go c.pump(p, server, client, -1)
}

// pump copies from src to dst while the link is up; the client's pump
// records its connection's first bytes (index: the connection's; else -1).
func (c *Cutter) pump(p *cutPair, src, dst net.Conn, index int) {
	buf := make([]byte, 1500)
	for {
		n, err := src.Read(buf)
		for chunk := buf[:n]; len(chunk) > 0; {
			k, cut := c.pass(p, chunk, index)
			if k < 0 {
				return
			}
			if _, werr := dst.Write(chunk[:k]); werr != nil || cut {
				if cut {
					c.cutPair(p)
				}
				return
			}
			chunk = chunk[k:]
		}
		if err != nil {
			if err == io.EOF {
				closeWrite(dst)
			} else {
				p.reset()
			}
			return
		}
	}
}

// pass returns how much of b goes on now (-1: none, the pair was reset),
// and whether the pair is reset right after. A link that fails
// mid-transfer delivers a part: the bytes up to CutEvery's or HoleEvery's
// bound go through first; past HoleEvery's, pass waits while the link is
// black-holed.
func (c *Cutter) pass(p *cutPair, b []byte, index int) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if index >= 0 {
		if k := min(len(b), firstBytes-len(c.firsts[index])); k > 0 {
			c.firsts[index] = append(c.firsts[index], b[:k]...)
		}
	}
	for {
		if _, live := c.pairs[p]; !live || c.closed {
			return -1, false
		}
		if c.state == linkHole {
			c.cond.Wait()
			continue
		}
		n, cut := len(b), false
		if c.cutAfter > 0 && p.forwarded+int64(n) >= c.cutAfter {
			n, cut = int(c.cutAfter-p.forwarded), true
		}
		if c.cutOnce > 0 && !cut && p.forwarded+int64(n) >= c.cutOnce {
			n, cut, c.cutOnce = int(c.cutOnce-p.forwarded), true, 0
		}
		if c.holeAfter > 0 && !cut && p.forwarded+int64(n) > c.holeAfter {
			n = int(c.holeAfter - p.forwarded)
			if n <= 0 { // at the bound: the link goes dark here
				c.state = linkHole
				c.cuts++
				p.forwarded = 0
				continue
			}
		}
		p.forwarded += int64(n)
		return n, cut
	}
}

// cutPair resets a pair that reached CutEvery's bound.
func (c *Cutter) cutPair(p *cutPair) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, live := c.pairs[p]; live {
		c.cuts++
		delete(c.pairs, p)
		if c.downFor > 0 && c.state == linkUp {
			c.state = linkDown
			time.AfterFunc(c.downFor, c.Restore)
		}
	}
	p.reset()
}

// reset closes both connections with a TCP reset.
func (p *cutPair) reset() {
	resetConn(p.client)
	resetConn(p.server)
}

func resetConn(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	c.Close()
}

func closeWrite(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
		return
	}
	c.Close()
}

// String describes the Cutter for test messages.
func (c *Cutter) String() string {
	conns, cuts := c.Counts()
	return fmt.Sprintf("cutter %s → %s: %d connections, %d cuts", c.Addr, c.target, conns, cuts)
}
