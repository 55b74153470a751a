// Package option is the one Option type of package scache and of its
// transports (package transport): each constructor collects the options
// given to it into Settings and takes what applies to it. Package scache
// names the type (scache.Option is an alias of Option) and makes the
// options of a Speculator and of a split proxy's halves; package transport
// makes those of its Relay and Proxy.
package option

import (
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// A Scope says which constructors an Option applies to.
type Scope uint8

// The constructors.
const (
	Speculator Scope = 1 << iota // scache.New
	Relay                        // transport.NewRelay
	Proxy                        // transport.NewProxy
	Half                         // scache.NewNear and scache.NewFar: a Speculator's options and a journal

	All      = Speculator | Relay | Proxy | Half
	Sessions = Relay | Proxy // the transports
)

// String names the constructor of a single scope, for errors.
func (sc Scope) String() string {
	switch sc {
	case Speculator:
		return "a Speculator"
	case Relay:
		return "a Relay"
	case Half:
		return "a split proxy's half"
	}
	return "a Proxy"
}

// An Option configures one of the constructors its Scope names. Presets
// (scache.Classic, scache.PassThrough) set a whole policy; options given
// beside a preset refine it, in whatever order they come.
type Option struct {
	Name  string // as written, with its arguments: for errors
	Scope Scope
	Apply func(*Settings) error
}

// New returns an Option.
func New(name string, sc Scope, apply func(*Settings) error) Option {
	return Option{Name: name, Scope: sc, Apply: apply}
}

// A Preset is a whole speculation policy.
type Preset uint8

// The presets.
const (
	PresetDefault Preset = iota
	PresetClassic
	PresetOff
)

// Settings collects the options given to one constructor.
type Settings struct {
	// A Speculator's.
	Preset                          Preset
	Presets                         []string // the names of the presets given
	CacheBytes, MaxFrames, InFlight Optional[int]
	Belay, AnswerAhead, Audit       Optional[bool]
	Families                        Optional[uint16]
	Consistency                     Optional[int] // a scache.Consistency
	Logger                          *slog.Logger
	Clock                           func() time.Time // nil: none
	AttachMemory                    any              // a *scache.AttachMemory

	// Journal is a func(scache.JournalEntry): a Relay's, a Proxy's sessions'
	// or a half's. It is held as any because this package cannot name
	// package scache's type.
	Journal any

	// The transports'.
	MaxPacketSize    int
	HandshakeTimeout time.Duration
	SilenceTimeout   time.Duration // a split half's; 0: the tunnel's default
	NoCompression    bool          // a split half's tunnel: no 'Z' frames
	ResumeWithin     time.Duration // a split half's grace time for a lost link
	ResumeSet        bool          // ResumeWithin was given (0 turns resuming off)
	ResumeBytes      int           // a split half's bound on what it keeps for the other; 0: the default
	Rendezvous       string        // a near half's directory of Unix sockets where its waiting sessions resume
	TunnelKey        any           // a *transport.TunnelKey
	HandshakeLimits  any           // a transport.HandshakeLimits
	SessionEnded     any           // a func(scache.Stats, error)
	Speculator       any           // a *scache.Speculator
	Split            uint8         // a transport.Half
}

// An Optional is a value and whether an option set it.
type Optional[T any] struct {
	V   T
	Set bool
}

// Put sets the value.
func (o *Optional[T]) Put(v T) { o.V, o.Set = v, true }

// Collect applies opts for the constructor of scope sc: an error for a zero
// Option, one that does not apply to sc, a bad value, or two presets.
func Collect(sc Scope, opts []Option) (*Settings, error) {
	st := &Settings{}
	for _, o := range opts {
		if o.Apply == nil {
			return nil, errors.New("scache: a zero Option")
		}
		if o.Scope&sc == 0 {
			return nil, fmt.Errorf("scache: %s does not apply to %v", o.Name, sc)
		}
		if err := o.Apply(st); err != nil {
			return nil, fmt.Errorf("scache: %s: %w", o.Name, err)
		}
	}
	if len(st.Presets) > 1 {
		return nil, fmt.Errorf("scache: presets %v conflict: give one", st.Presets)
	}
	return st, nil
}

// SpeculatorOptions reports whether options of a Speculator were given.
func (st *Settings) SpeculatorOptions() bool {
	return len(st.Presets) > 0 || st.CacheBytes.Set || st.MaxFrames.Set || st.InFlight.Set || st.Belay.Set ||
		st.Families.Set || st.AnswerAhead.Set || st.Audit.Set || st.Consistency.Set || st.Clock != nil
}

// Within returns the options of opts that apply to the constructor of
// scope sc: a transport passes them on to the Speculator or half it makes.
func Within(sc Scope, opts []Option) []Option {
	var in []Option
	for _, o := range opts {
		if o.Scope&sc != 0 {
			in = append(in, o)
		}
	}
	return in
}
