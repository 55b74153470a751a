// Package latency is a TCP relay that delays every byte by a fixed one-way
// delay in each direction, standing in for adb over USB or Wi-Fi between a
// JDWP proxy and a VM in tests and benchmarks. Bytes keep their order and
// the link is pipelined: a delay adds latency, not a bandwidth limit.
package latency

import (
	"net"
	"sync"
	"time"
)

// A Link listens on 127.0.0.1 and forwards each accepted connection to a target.
type Link struct {
	Addr    string // where to connect to reach the target through the link
	delay   time.Duration
	service time.Duration // WithService: each JDWP command held this long more, one at a time
	profile *Profile      // WithProfile: bandwidth, jitter, power save (profile.go)
	seed    uint64
	ln      net.Listener
	wg      sync.WaitGroup

	mu    sync.Mutex
	conns []net.Conn
	conn  uint64 // connections accepted, for each one's own draws
}

// An Option configures a Link.
type Option func(*Link)

// Listen starts a link to target with the given one-way delay.
func Listen(target string, delay time.Duration, opts ...Option) (*Link, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	l := &Link{Addr: ln.Addr().String(), delay: delay, ln: ln}
	for _, o := range opts {
		o(l)
	}
	l.wg.Add(1)
	go l.accept(target)
	return l, nil
}

// Close stops the link and every connection through it, and waits for its goroutines.
func (l *Link) Close() error {
	err := l.ln.Close()
	l.mu.Lock()
	for _, c := range l.conns {
		c.Close()
	}
	l.mu.Unlock()
	l.wg.Wait()
	return err
}

func (l *Link) track(c net.Conn) {
	l.mu.Lock()
	l.conns = append(l.conns, c)
	l.mu.Unlock()
}

func (l *Link) accept(target string) {
	defer l.wg.Done()
	for {
		in, err := l.ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", target)
		if err != nil {
			in.Close()
			continue
		}
		l.track(in)
		l.track(out)
		toTarget, back := l.shapers()
		l.wg.Add(2)
		go l.pipe(out, in, l.service, toTarget)
		go l.pipe(in, out, 0, back)
	}
}

type chunk struct {
	due  time.Time
	data []byte
}

// pipe copies src to dst, each chunk held until its delay (or, with a
// profile, what shape says) has passed and, with a service time, each JDWP
// command until the one before it was served.
func (l *Link) pipe(dst, src net.Conn, service time.Duration, shape *shaper) {
	defer l.wg.Done()
	ch := make(chan chunk, 1024)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for c := range ch {
			sleepUntil(c.due)
			if _, err := dst.Write(c.data); err != nil {
				src.Close()
				for range ch {
				}
				return
			}
		}
		if tc, ok := dst.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		} else {
			dst.Close()
		}
	}()
	buf := make([]byte, 64<<10)
	var q *servingQueue
	if service > 0 {
		q = &servingQueue{service: service}
	}
	for {
		n, err := src.Read(buf)
		if n > 0 {
			arrival := time.Now().Add(l.delay)
			if shape != nil {
				arrival = shape.due(time.Now(), n)
			}
			if q == nil {
				ch <- chunk{due: arrival, data: append([]byte(nil), buf[:n]...)}
			} else {
				for _, c := range q.split(arrival, buf[:n]) {
					ch <- c
				}
			}
		}
		if err != nil {
			// Whatever ended the source (EOF, or a reset when the peer exited),
			// what was already read still arrives after its delay.
			break
		}
	}
	close(ch)
	<-done
}
