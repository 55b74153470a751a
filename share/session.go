package share

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
)

// A Session owns one VM-side JDWP connection and serves any number of clients on it.
//
// Each client is written to from a goroutine of its own: a client that reads
// slowly delays only itself, and one that falls behind by more than
// ClientQueueBytes, or whose write takes longer than ClientWriteTimeout, is
// dropped (and its requests and suspensions cleared, as when it leaves).
type Session struct {
	// ClientQueueBytes bounds what waits to be written to one client
	// (DefaultClientQueueBytes when 0). Set it before the first client.
	ClientQueueBytes int
	// ClientWriteTimeout bounds one write to a client (DefaultClientWriteTimeout when 0).
	ClientWriteTimeout time.Duration
	// Logger, if set, receives a line for each client that leaves with an error.
	Logger *slog.Logger

	spec *scache.Speculator

	mu      sync.Mutex
	m       *mux
	vm      io.ReadWriteCloser // written under mu
	reading sync.Once          // starts readVM with the first client
	clients map[ClientID]*clientConn
	nextID  ClientID
	done    chan struct{}
	err     error
}

type clientConn struct {
	conn io.ReadWriteCloser
	out  *clientWriter
}

// New starts a session on a VM connection: it performs the debugger's side
// of the JDWP handshake. The VM's packets are read from the first client's
// arrival on (a VM started suspended sends its VMStart event at once, and
// that client is the one to receive it) until the connection ends (see Done
// and Err). One Speculator made with opts serves every client; what it asks
// at the handshake (Speculator.OnHandshake) is sent here.
func New(vm io.ReadWriteCloser, opts ...scache.Option) (*Session, error) {
	if err := jdwp.DebuggerHandshake(vm, 0); err != nil {
		vm.Close()
		return nil, err
	}
	spec, err := scache.New(opts...)
	if err != nil {
		vm.Close()
		return nil, err
	}
	// What the Speculator asks before any client's first command (the id
	// sizes) goes to the VM first; its reply waits in the connection until
	// the VM's packets are read.
	for _, p := range spec.OnHandshake().Edict.Upstream {
		if _, err := vm.Write(p); err != nil {
			vm.Close()
			return nil, fmt.Errorf("share: writing to the VM: %w", err)
		}
	}
	s := &Session{spec: spec, m: newMux(spec), vm: vm, clients: map[ClientID]*clientConn{}, done: make(chan struct{})}
	return s, nil
}

// Done is closed when the VM connection has ended; every client is then disconnected.
func (s *Session) Done() <-chan struct{} { return s.done }

// Err returns why the VM connection ended (nil for a clean end).
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close ends the session: the VM connection and every client.
func (s *Session) Close() error {
	err := s.vm.Close()
	s.reading.Do(func() { go s.readVM() }) // so that Done closes even without clients
	<-s.done
	return err
}

// Stats returns the Speculator's stats (for every client) and each client's own.
func (s *Session) Stats() (scache.Stats, map[ClientID]ClientStats) {
	s.mu.Lock()
	defer s.mu.Unlock()
	per := map[ClientID]ClientStats{}
	for c, cs := range s.m.clients {
		per[c] = cs.stats
	}
	return s.spec.Stats(), per
}

// Serve accepts clients on ln until ctx ends, the listener fails or the
// session ends, and returns after every client it accepted has left.
func (s *Session) Serve(ctx context.Context, ln net.Listener) error {
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	go func() {
		select {
		case <-s.done:
			ln.Close()
		case <-ctx.Done():
		}
	}()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || s.ended() {
				return nil
			}
			return fmt.Errorf("share: accepting clients: %w", err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Attach(conn); err != nil && s.Logger != nil {
				s.Logger.Warn("share: client left", "remote", conn.RemoteAddr().String(), "err", err)
			}
		}()
	}
}

func (s *Session) ended() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// Attach serves one client connection: the VM's side of the handshake, then
// its packets until it disconnects or sends what cannot be framed (it alone
// is disconnected). Its event requests are cleared and its suspensions
// resumed when it leaves. It returns why the client left (nil for a clean end).
func (s *Session) Attach(conn io.ReadWriteCloser) error {
	defer conn.Close()
	if err := jdwp.VMHandshake(conn, 0); err != nil {
		return err
	}
	s.mu.Lock()
	if s.ended() {
		s.mu.Unlock()
		return errors.New("share: the VM connection has ended")
	}
	s.nextID++
	id := s.nextID
	limit, timeout := s.ClientQueueBytes, s.ClientWriteTimeout
	if limit <= 0 {
		limit = DefaultClientQueueBytes
	}
	if timeout <= 0 {
		timeout = DefaultClientWriteTimeout
	}
	cc := &clientConn{conn: conn, out: newClientWriter(conn, limit, timeout)}
	s.clients[id] = cc
	s.m.join(id)
	s.mu.Unlock()
	s.reading.Do(func() { go s.readVM() })

	err := jdwp.NewFramer(nil, conn).ReadEach(func(p []byte) error {
		s.process(func() []out { return s.m.fromClient(id, p) })
		return nil
	})
	s.process(func() []out {
		delete(s.clients, id)
		return s.m.leave(id, true)
	})
	conn.Close() // before stop: a write blocked on a client that does not read ends
	cc.out.stop()
	if derr := cc.out.dropped(); derr != nil && derr != errStopped {
		return derr
	}
	return err
}

// readVM routes the VM's packets until its connection ends.
func (s *Session) readVM() {
	err := jdwp.NewFramer(nil, s.vm).ReadEach(func(p []byte) error {
		s.process(func() []out { return s.m.fromVM(p) })
		return nil
	})
	s.mu.Lock()
	s.err = err
	clients := s.clients
	s.clients = map[ClientID]*clientConn{}
	close(s.done)
	s.mu.Unlock()
	s.vm.Close()
	// Every packet read from the VM has been queued for its client; each
	// client gets them all, then the end of its connection.
	for _, cc := range clients {
		cc.out.finish()
	}
	_ = s.spec.Close()
}

// process runs one step of the state machine and sends what it says, under
// the lock, so that the VM and each client receive packets in the order the
// Speculator decided them. Clients' packets are queued for their writers; a
// failed write to the VM ends the session.
func (s *Session) process(step func() []out) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range step() {
		if !o.toVM {
			if cc := s.clients[o.client]; cc != nil {
				cc.out.send(o.packet)
			}
			continue
		}
		if _, err := s.vm.Write(o.packet); err != nil {
			s.vm.Close()
			return
		}
	}
}
