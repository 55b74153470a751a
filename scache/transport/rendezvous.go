package transport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/jdwpscache/scache/scache/internal/tunnel"
)

// A rendezvous is where a near half started on a command's channel (-via,
// -stdio) can be reached again: a Unix socket of its own in a directory
// only this user can enter (WithRendezvous). Only resumes are served on
// it; a new near half that gets a resume for a session it does not hold
// relays it to the sockets there.
type rendezvous struct {
	path string // this process's socket
	ln   net.Listener
}

// openRendezvous makes dir (this user's alone) and listens on a socket of
// this process in it.
func openRendezvous(dir string) (*rendezvous, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("scache: the rendezvous directory: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("scache: the rendezvous directory: %w", err)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("scache: the rendezvous directory %s is open to others (%v): resuming a session there would let them reach the VM; make it this user's alone (chmod 700)", dir, perm)
	}
	// The socket is bound under a name no near half looks for, and takes
	// its own once it listens: a socket found there always answers (one
	// that refuses is taken as its process gone, and removed).
	path := filepath.Join(dir, fmt.Sprintf("near-%d.sock", os.Getpid()))
	binding := filepath.Join(dir, fmt.Sprintf(".binding-%d.sock", os.Getpid()))
	_ = os.Remove(path) // left by an earlier process of this pid
	_ = os.Remove(binding)
	ln, err := net.Listen("unix", binding)
	if err != nil {
		return nil, fmt.Errorf("scache: listening for resumes: %w", err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false) // its path changes: close removes it
	if err := os.Rename(binding, path); err != nil {
		ln.Close()
		_ = os.Remove(binding)
		return nil, fmt.Errorf("scache: listening for resumes: %w", err)
	}
	return &rendezvous{path: path, ln: ln}, nil
}

// close stops listening and removes the socket.
func (r *rendezvous) close() {
	r.ln.Close()
	_ = os.Remove(r.path)
}

// serveRendezvous serves the resumes that reach r until r is closed: each
// connection's hello must be a ResumeHello, handed to its session as on
// the Proxy's own listener.
func (p *Proxy) serveRendezvous(r *rendezvous, log *slog.Logger) {
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		conn, err := r.ln.Accept()
		if err != nil {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = conn.SetDeadline(time.Now().Add(p.handshakeTimeout()))
			h, err := tunnel.ReadHello(conn)
			if err == nil && !h.Resume {
				err = errors.New("a new session's hello: only resumes come here")
			}
			if err != nil {
				refuseResume(conn, log, "not a resume ("+err.Error()+")", "only resumes reach a near half here", nil)
				return
			}
			_ = conn.SetDeadline(time.Time{})
			p.resumeSession(conn, h, log)
		}()
	}
}

// relayResume hands conn, a far half's resume for a session this near
// half does not hold, to the near half in the rendezvous directory that
// holds it, and then carries the session's bytes both ways until either
// side ends. It reports whether one took it.
func (p *Proxy) relayResume(conn net.Conn, h tunnel.Hello, log *slog.Logger) bool {
	own := ""
	if r := p.rendezvous; r != nil {
		own = r.path
	}
	paths, _ := filepath.Glob(filepath.Join(p.st.Rendezvous, "near-*.sock"))
	for _, path := range paths {
		if path == own {
			continue
		}
		sc, answer, err := askToResume(path, h, p.handshakeTimeout())
		if err != nil {
			log.Debug("scache: a near half in the rendezvous directory did not take the resume", "socket", path, "err", err)
			continue
		}
		if _, err := conn.Write(answer); err != nil {
			sc.Close()
			return true // the far half dials again
		}
		log.Info("scache: relaying a resumed session to the near half that holds it", "socket", path)
		splice(conn, sc)
		return true
	}
	return false
}

// askToResume sends h to the near half listening at path and returns the
// connection and its answer, if it took the resume.
func askToResume(path string, h tunnel.Hello, timeout time.Duration) (net.Conn, []byte, error) {
	sc, err := net.DialTimeout("unix", path, timeout)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			_ = os.Remove(path) // its process is gone
		}
		return nil, nil, err
	}
	_ = sc.SetDeadline(time.Now().Add(timeout))
	var answer bytes.Buffer
	if _, err = sc.Write(tunnel.ResumeHello(h.Features, h.Token, h.Received, h.From, h.To)); err == nil {
		_, err = tunnel.ReadNearHello(io.TeeReader(sc, &answer))
	}
	if err != nil {
		sc.Close()
		return nil, nil, err
	}
	_ = sc.SetDeadline(time.Time{})
	return sc, answer.Bytes(), nil
}

// splice copies a to b and b to a until both directions end (each end
// half-closes the other side), then closes both.
func splice(a, b net.Conn) {
	var wg sync.WaitGroup
	copyHalf := func(dst, src net.Conn) {
		defer wg.Done()
		_, _ = io.Copy(dst, src)
		if closeWrite(dst) != nil {
			dst.Close()
		}
	}
	wg.Add(2)
	go copyHalf(a, b)
	go copyHalf(b, a)
	wg.Wait()
	a.Close()
	b.Close()
}
