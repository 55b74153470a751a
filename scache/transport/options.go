package transport

import (
	"errors"
	"fmt"
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/internal/option"
	"github.com/jdwpscache/scache/scache/internal/tunnel"
)

// WithMaxPacketSize bounds the packets a Relay (or a Proxy's sessions) reads
// on either side (default jdwp.DefaultMaxPacketSize; at least the 11-byte header).
func WithMaxPacketSize(n int) scache.Option {
	return option.New(fmt.Sprintf("WithMaxPacketSize(%d)", n), option.Sessions, func(st *option.Settings) error {
		if n < jdwp.HeaderSize {
			return fmt.Errorf("a packet has at least %d bytes", jdwp.HeaderSize)
		}
		st.MaxPacketSize = n
		return nil
	})
}

// WithHandshakeTimeout bounds the JDWP handshake of a Relay or a Proxy's
// connections (default jdwp.HandshakeTimeout).
func WithHandshakeTimeout(d time.Duration) scache.Option {
	return option.New(fmt.Sprintf("WithHandshakeTimeout(%v)", d), option.Sessions, func(st *option.Settings) error {
		if d <= 0 {
			return errors.New("a timeout is positive")
		}
		st.HandshakeTimeout = d
		return nil
	})
}

// WithSilenceTimeout sets how long a half of a split proxy waits without a
// frame from the other half before it ends the session (default
// scache.TunnelSilenceTimeout, 15 s; each half sends a heartbeat every
// third of it). A stalled link or a silent peer is cut between this long
// and a fifteenth more after its last frame (silence is checked 15 times
// per timeout: 15 to 16 s at the default): the near half releases the VM
// as a debugger's disconnect would and takes the next far half.
func WithSilenceTimeout(d time.Duration) scache.Option {
	return option.New(fmt.Sprintf("WithSilenceTimeout(%v)", d), option.Sessions, func(st *option.Settings) error {
		if d <= 0 {
			return errors.New("a timeout is positive")
		}
		st.SilenceTimeout = d
		return nil
	})
}

// WithTunnelCompression turns the compression of a split proxy's tunnel on
// (the default) or off. When both halves have it on, each half packs the
// frames it writes at once into one DEFLATE-compressed frame, if they are
// 512 bytes or more and come out smaller: a stop's pushes, a big reply.
// What is queued while the link is busy is written as one batch, so the
// slower the link, the more is packed together.
func WithTunnelCompression(on bool) scache.Option {
	return option.New(fmt.Sprintf("WithTunnelCompression(%v)", on), option.Sessions, func(st *option.Settings) error {
		st.NoCompression = !on
		return nil
	})
}

// WithResume sets how long the halves of a Proxy's split session wait for
// their link to come back when it is lost (default DefaultResumeWithin;
// 0: they do not, and a lost link ends the session). Meanwhile the far
// half keeps the debugger's connection and dials the near half again with
// backoff, through the same key; the near half keeps the VM's connection.
// Neither the debugger nor the VM notices: on resume each half sends again
// what the other had not received. Past the time, or when a half has kept
// more than DefaultResumeBytes for the other, the session ends as a lost
// tunnel does. Both halves must allow it.
func WithResume(within time.Duration) scache.Option {
	return option.New(fmt.Sprintf("WithResume(%v)", within), option.Sessions, func(st *option.Settings) error {
		if within < 0 {
			return errors.New("a time to wait is 0 or positive")
		}
		st.ResumeWithin, st.ResumeSet = within, true
		return nil
	})
}

// WithRendezvous lets a near half that serves its tunnel on a channel it
// cannot be reached on again (standard input and output, started by a far
// half's -via command over ssh) resume its sessions: while it runs, it
// listens on a Unix socket in dir (created for this user alone), where
// resumes reach its sessions; and a resume it gets for a session it does
// not hold, it relays to the near halves listening in dir. So when the
// command's channel dies, the near half keeps the VM and waits, and the far
// half's next run of the command (a new near half) joins it.
func WithRendezvous(dir string) scache.Option {
	return option.New(fmt.Sprintf("WithRendezvous(%q)", dir), option.Sessions, func(st *option.Settings) error {
		if dir == "" {
			return errors.New("a directory")
		}
		st.Rendezvous = dir
		return nil
	})
}

// WithResumeBytes bounds what each half of a Proxy's split session keeps
// for the other until it says it received it (default DefaultResumeBytes):
// what crosses while the link is down, and what was in flight when it went.
// Past it the session ends, as when the link does not come back in time.
func WithResumeBytes(n int) scache.Option {
	return option.New(fmt.Sprintf("WithResumeBytes(%d)", n), option.Sessions, func(st *option.Settings) error {
		if n < 64<<10 {
			return errors.New("at least 64 KiB: a half keeps what is in flight while the link is up")
		}
		st.ResumeBytes = n
		return nil
	})
}

// resumeWithin returns the grace time of a lost link (0: no resume).
func (st *settings) resumeWithin() time.Duration {
	if !st.ResumeSet {
		return DefaultResumeWithin
	}
	return st.ResumeWithin
}

// features returns the tunnel features this half's settings let it use.
func (st *settings) features() tunnel.Features {
	f := tunnel.Resume
	if st.resumeWithin() <= 0 {
		f = 0
	}
	if !st.NoCompression {
		f |= tunnel.Deflate
	}
	return f
}

// WithSessionEnded makes a Proxy call fn after each session with its stats
// and the relay's error (nil for a clean end).
func WithSessionEnded(fn func(scache.Stats, error)) scache.Option {
	return option.New("WithSessionEnded", option.Proxy, func(st *option.Settings) error {
		if fn == nil {
			return errors.New("a nil function")
		}
		st.SessionEnded = fn
		return nil
	})
}

// WithSplit makes a Relay or a Proxy one half of a split proxy: NearHalf
// next to the VM, FarHalf next to the debugger, with a tunnel between them
// (see Near and Far). Give both halves the same Speculator options.
func WithSplit(h Half) scache.Option {
	return option.New("WithSplit", option.Sessions, func(st *option.Settings) error {
		if h != NearHalf && h != FarHalf {
			return fmt.Errorf("%d is not a half: NearHalf or FarHalf", h)
		}
		st.Split = uint8(h)
		return nil
	})
}

// WithSpeculator makes a Relay use s, a Speculator made by New, instead of
// making its own (to read its Stats during the session, say).
func WithSpeculator(s *scache.Speculator) scache.Option {
	return option.New("WithSpeculator", option.Relay, func(st *option.Settings) error {
		if s == nil {
			return errors.New("a nil Speculator")
		}
		st.Speculator = s
		return nil
	})
}

// settings is what a transport reads of the options given to it.
type settings struct {
	*option.Settings
	opts []scache.Option // all of them, to pass on to what the transport makes
}

// collect applies opts for the transport of scope sc.
func collect(sc option.Scope, opts []scache.Option) (*settings, error) {
	st, err := option.Collect(sc, opts)
	if err != nil {
		return nil, err
	}
	return &settings{Settings: st, opts: opts}, nil
}

func (st *settings) half() Half { return Half(st.Split) }

// whole returns the settings of one proxy with st's options: a near half's
// for a debugger that connected to it directly.
func (st *settings) whole() *settings {
	s := *st.Settings
	s.Split = uint8(Whole)
	return &settings{Settings: &s, opts: st.opts}
}
func (st *settings) journal() func(scache.JournalEntry) {
	fn, _ := st.Journal.(func(scache.JournalEntry))
	return fn
}
func (st *settings) sessionEnded() func(scache.Stats, error) {
	fn, _ := st.SessionEnded.(func(scache.Stats, error))
	return fn
}
func (st *settings) speculator() *scache.Speculator {
	s, _ := st.Speculator.(*scache.Speculator)
	return s
}

// newSpeculator makes a session's Speculator with the Speculator options given.
func (st *settings) newSpeculator() (*scache.Speculator, error) {
	return scache.New(st.within(option.Speculator)...)
}

// within returns the options given that apply to the constructor of scope
// sc, after the wall clock: a session measures its link and its VM
// (scache.WithClock), unless told another clock.
func (st *settings) within(sc option.Scope) []scache.Option {
	return append([]scache.Option{scache.WithClock(time.Now)}, option.Within(sc, st.opts)...)
}
