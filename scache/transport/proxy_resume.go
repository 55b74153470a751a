package transport

import (
	"context"
	"crypto/subtle"
	"errors"
	"log/slog"
	"net"
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache/internal/tunnel"
)

// resumeConfig returns how the Proxy's split sessions resume after a lost
// link, or nil when they do not (one proxy, or WithResume(0)).
func (p *Proxy) resumeConfig(st *settings, log *slog.Logger) *resumeConfig {
	within := st.resumeWithin()
	if st.half() == Whole || within <= 0 || p.noRendezvous.Load() {
		return nil
	}
	timeout := st.HandshakeTimeout
	if timeout <= 0 {
		timeout = jdwp.HandshakeTimeout
	}
	maxKept := DefaultResumeBytes
	if st.ResumeBytes > 0 {
		maxKept = st.ResumeBytes
	}
	cfg := &resumeConfig{within: within, maxKept: maxKept, log: log, timeout: timeout, endWait: endLinger}
	if st.half() == FarHalf {
		key := st.tunnelKey()
		cfg.dial = func(ctx context.Context) (net.Conn, error) {
			c, err := p.dialVM(ctx)
			if err != nil || key == nil {
				return c, err
			}
			return keyedFar(ctx, c, key, timeout)
		}
		return cfg
	}
	cfg.register = func(t tunnel.Token, l *resumableLink) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.links == nil {
			p.links = map[tunnel.Token]*resumableLink{}
		}
		p.links[t] = l
	}
	cfg.forget = func(t tunnel.Token) {
		p.mu.Lock()
		defer p.mu.Unlock()
		delete(p.links, t)
	}
	return cfg
}

// linkOf returns the session waiting to resume with token, if any: the
// tokens are compared in constant time.
func (p *Proxy) linkOf(token tunnel.Token) *resumableLink {
	p.mu.Lock()
	defer p.mu.Unlock()
	var found *resumableLink
	for t, l := range p.links {
		if subtle.ConstantTimeCompare(t[:], token[:]) == 1 {
			found = l
		}
	}
	return found
}

// waitingLinks returns the near half's sessions that wait for their link
// to come back. A link's lock is taken outside the Proxy's: a link holds
// its own while it registers and forgets tokens here.
func (p *Proxy) waitingLinks() []*resumableLink {
	p.mu.Lock()
	links := make([]*resumableLink, 0, len(p.links))
	for _, l := range p.links {
		links = append(links, l)
	}
	p.mu.Unlock()
	waiting := links[:0]
	for _, l := range links {
		if l.down() {
			waiting = append(waiting, l)
		}
	}
	return waiting
}

// waitingForLink reports whether a session of the near half waits for its
// link to come back.
func (p *Proxy) waitingForLink() bool { return len(p.waitingLinks()) > 0 }

// takeOver ends the near half's session whose link is down, so that a new
// far half's session (conn's) may have the VM, and reports whether the VM
// is free for it (within takeOverWait). A far half that opens a new session
// while the old one's far half cannot reach us is most likely its
// successor: the old one's process ended, or its machine went away. Were it
// alive, it would be dialling every half second, and could have resumed.
// Its resume, if it ever comes, is refused (its token is gone).
func (p *Proxy) takeOver(ctx context.Context, log *slog.Logger, conn net.Conn) bool {
	p.mu.Lock()
	idle := p.idle
	p.mu.Unlock()
	waiting := p.waitingLinks()
	if len(waiting) == 0 || idle == nil {
		return false
	}
	for _, l := range waiting {
		if downFor, ok := l.takenOver(); ok {
			log.Warn("scache: a new far half takes the VM from the session waiting for its link",
				"down_for", downFor.Round(time.Millisecond), "remote", conn.RemoteAddr().String())
		}
	}
	t := time.NewTimer(takeOverWait)
	defer t.Stop()
	select {
	case <-idle:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

// takeOverWait bounds how long a new far half's session waits for the
// session it takes the VM from to end (it closes its VM connection and is
// done at once).
const takeOverWait = 5 * time.Second

// resumeSession hands conn, a far half's new connection with its
// ResumeHello h, to the session of h's token. A token no session holds
// (wrong, used already, or of a session that ended) resumes nothing and
// never reaches the VM: the far half is told so, and it is logged.
func (p *Proxy) resumeSession(conn net.Conn, h tunnel.Hello, log *slog.Logger) {
	l := p.linkOf(h.Token)
	switch {
	case l == nil && p.st.Rendezvous != "" && p.relayResume(conn, h, log):
	case l == nil:
		refuseResume(conn, log, "no session holds its token (it ended, or the token is wrong or was used already)",
			"no session here holds this resume token: it ended, or the token is wrong or was used already", nil)
	case h.Features != l.features:
		refuseResume(conn, log, "the far half names other features than the session's",
			"the resume names other features than the session's", nil)
	default:
		err := l.resumeNear(conn, h)
		if errors.Is(err, errStaleResume) {
			log.Debug("scache: a split session's resume gave way to a newer connection", "remote", conn.RemoteAddr().String())
			conn.Close()
			return
		}
		if err != nil {
			refuseResume(conn, log, "the session could not resume", "the session cannot resume: "+err.Error(), err)
		}
	}
}

// refuseResume logs why a resume is refused, tells the far half (within
// doorLinger) and closes its connection.
func refuseResume(conn net.Conn, log *slog.Logger, why, answer string, err error) {
	args := []any{"remote", conn.RemoteAddr().String()}
	if err != nil {
		args = append(args, "err", err)
	}
	log.Warn("scache: refusing to resume a split session: "+why, args...)
	_ = conn.SetWriteDeadline(time.Now().Add(doorLinger))
	_, _ = conn.Write(tunnel.NearHello(tunnel.StatusResume, 0, answer))
	conn.Close()
}
