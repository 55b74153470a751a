package scache

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/jdwpscache/scache/scache/internal/option"
)

// Defaults of the options.
const (
	DefaultCacheBytes  = 16 << 20
	DefaultMaxFrames   = 40
	DefaultMaxInFlight = 64
)

// config holds the options of a Speculator. Its zero value is not used
// directly: New starts from defaultConfig.
type config struct {
	cacheBytes    int
	maxFrames     int
	maxInFlight   int // 0: unbounded
	belay         bool
	classic       bool // the original jdwp-scache policy
	passThrough   bool // never speculate: forward everything
	cacheState    bool // cache replies about suspended threads within a suspension epoch
	families      Family
	cacheOrganic  bool // cache replies to the debugger's own keyable commands
	logger        *slog.Logger
	maxQueued     int // synthetic commands waiting for an in-flight slot
	maxOrganicIDs int // organic commands awaiting a reply before the table is considered runaway
	// follower: the far half of a split proxy. It sends nothing of its own:
	// the near half's speculation reaches it through adopt.
	follower bool
	// near: the near half of a split proxy. A moving command the far half
	// sends it found no reply the far half could serve: the near half,
	// which does not see what the far half delivered, serves none either.
	near bool
	// answerAhead: answer at once the debugger's Set of a step request
	// (request_ids.go) and its Clear of a step or breakpoint request
	// (answer_ahead.go).
	answerAhead bool
	// audit: check each answer against the VM's own (audit.go).
	audit bool
	// consistency: what may be served of state that moves (sequential.go).
	consistency Consistency
	// clock: the time, for the estimates of the link and the VM (cost.go);
	// nil: none.
	clock func() time.Time
	// attachMemory: the classes the debugger listed in the sessions before
	// (attach_memory.go); nil: none.
	attachMemory *AttachMemory
}

func defaultConfig() config {
	return config{
		cacheBytes:    DefaultCacheBytes,
		maxFrames:     DefaultMaxFrames,
		maxInFlight:   DefaultMaxInFlight,
		belay:         true,
		cacheOrganic:  true,
		cacheState:    true,
		families:      AllFamilies,
		logger:        slog.New(slog.NewTextHandler(io.Discard, nil)),
		maxQueued:     4096,
		maxOrganicIDs: 1 << 16,
	}
}

// An Option configures a Speculator (New), a half of a split proxy
// (NewNear, NewFar) or a transport (package transport's NewRelay and
// NewProxy): one type for all of them. Each constructor takes the options
// that apply to it (a transport makes Speculators, so Speculator options
// apply to it too) and returns an error for any other, and for a value out
// of range. Presets (Classic, PassThrough) set a whole policy; options given
// beside a preset refine it, in whatever order they come.
type Option = option.Option

// configOf returns the Speculator configuration of the settings: the
// preset's, then the options given.
func configOf(st *option.Settings) config {
	c := defaultConfig()
	switch st.Preset {
	case option.PresetClassic:
		c.classic = true
		c.belay = false
		c.maxInFlight = 0
		c.cacheOrganic = false
		c.cacheState = false
		c.families = FamilyClass
	case option.PresetOff:
		c.passThrough = true
	}
	if st.CacheBytes.Set {
		c.cacheBytes = st.CacheBytes.V
	}
	if st.MaxFrames.Set {
		c.maxFrames = st.MaxFrames.V
	}
	if st.InFlight.Set {
		c.maxInFlight = st.InFlight.V
	}
	if st.Belay.Set {
		c.belay = st.Belay.V
	}
	if st.Families.Set {
		c.families = Family(st.Families.V)
	}
	c.answerAhead = st.Preset == option.PresetDefault
	if st.AnswerAhead.Set {
		c.answerAhead = st.AnswerAhead.V
	}
	if st.Audit.Set {
		c.audit = st.Audit.V
	}
	if st.Consistency.Set {
		c.consistency = Consistency(st.Consistency.V)
	}
	if c.classic {
		c.consistency = Linearizable
	}
	if st.Logger != nil {
		c.logger = st.Logger
	}
	c.clock = st.Clock
	c.attachMemory, _ = st.AttachMemory.(*AttachMemory)
	return c
}

// journalOf returns the journal function of the settings, or nil.
func journalOf(st *option.Settings) func(JournalEntry) {
	fn, _ := st.Journal.(func(JournalEntry))
	return fn
}

// WithCacheBytes bounds the reply cache to n > 0 bytes of packets (default
// 16 MiB). The least recently used replies are evicted first.
func WithCacheBytes(n int) Option {
	return option.New(fmt.Sprintf("WithCacheBytes(%d)", n), option.All, func(st *option.Settings) error {
		if n <= 0 {
			return errors.New("the cache needs at least one byte")
		}
		st.CacheBytes.Put(n)
		return nil
	})
}

// WithMaxFrames sets how many frames of a ThreadReference.Frames reply are
// speculated on, top frame first (default 40; 0: none).
func WithMaxFrames(n int) Option {
	return option.New(fmt.Sprintf("WithMaxFrames(%d)", n), option.All, func(st *option.Settings) error {
		if n < 0 {
			return errors.New("a number of frames is not negative")
		}
		st.MaxFrames.Put(n)
		return nil
	})
}

// WithMaxInFlight bounds the synthetic commands awaiting a reply (default 64);
// the rest wait in order and are sent as replies come back. The VM serves one
// command at a time, so each synthetic command ahead of a debugger's own delays
// it; the bound keeps that delay small (HotSpot answered a stop's commands
// about 20 µs apart, so 64 ahead delay a debugger's command about 1.3 ms). The
// default lets a whole stop go out with its event for an app of a dozen
// threads whose threads view the debugger shows (four commands a thread);
// with 32, such a stop cost a second round trip. 0 means unbounded.
func WithMaxInFlight(n int) Option {
	return option.New(fmt.Sprintf("WithMaxInFlight(%d)", n), option.All, func(st *option.Settings) error {
		if n < 0 {
			return errors.New("a bound is not negative (0: unbounded)")
		}
		st.InFlight.Put(n)
		return nil
	})
}

// WithClock gives the Speculator a clock: with it, it measures the round
// trip to the VM and the VM's service time (Stats.RoundTrip,
// Stats.ServiceTime) and, once the VM is known to be slow (an Android
// device's runtime), speculates only what pays for the VM's time (see
// cost.go). The transports (package transport) give time.Now unless told
// otherwise; a Speculator made with New has none, and decides as if the VM
// were fast. A simulation gives its own.
func WithClock(now func() time.Time) Option {
	return option.New("WithClock", option.All, func(st *option.Settings) error {
		if now == nil {
			return errors.New("a nil clock")
		}
		st.Clock = now
		return nil
	})
}

// WithLogger sets the logger (default: discard for a Speculator,
// slog.Default() for a Proxy's sessions). Per-packet records are at Debug
// level and cost nothing when it is disabled.
func WithLogger(l *slog.Logger) Option {
	return option.New("WithLogger", option.All, func(st *option.Settings) error {
		if l == nil {
			return errors.New("a nil logger")
		}
		st.Logger = l
		return nil
	})
}

// WithBelay turns belay on or off (default on): a debugger command whose key
// matches a command still in flight is held and answered from its reply.
func WithBelay(on bool) Option {
	return option.New(fmt.Sprintf("WithBelay(%v)", on), option.All, func(st *option.Settings) error {
		st.Belay.Put(on)
		return nil
	})
}

// WithAnswerAhead turns on or off answering, at once and before the VM's
// reply, the commands whose reply is known: EventRequest.Set of a request
// the VM cannot refuse (a step; the events of classes and threads;
// exceptions, method entries and exits; a breakpoint at a line the VM
// gave; a watch of a field it listed), with the id the VM will give it
// (request_ids.go, request_places.go), and
// EventRequest.Clear of a step or breakpoint request (answer_ahead.go). Default:
// on in a proxy next to the debugger and in the far half of a split proxy.
// Where a debugger clears its step request as a stop begins (JDI IDEs), the
// Clear's round trip overlaps the speculation in flight and answering it
// ahead only moves the wait; where it clears it as it leaves the stop (jdb,
// before its next step), nothing overlaps it and it is a whole round trip
// saved per stop. A near half never answers ahead (it is not next to the
// debugger). Classic answers nothing ahead.
func WithAnswerAhead(on bool) Option {
	return option.New(fmt.Sprintf("WithAnswerAhead(%v)", on), option.All, func(st *option.Settings) error {
		st.AnswerAhead.Put(on)
		return nil
	})
}

// WithAudit turns on or off (default off) the audit of every answer: for
// each debugger command answered from the cache, derived from a cached
// reply or held on a command in flight, the Speculator also sends the VM a
// copy of the command in the debugger's command's place, and compares the
// VM's reply with the answer the debugger got (Stats.Audited,
// Stats.AuditMismatches; a mismatch is logged). It checks, command by
// command, that the session is what plain forwarding would have given,
// and costs a command per answer: for tests and for checking scache on
// your own sessions. Moving entries (see Sequential), which may differ by
// design, and the far half of a split proxy, which sends nothing of its
// own, are not audited.
func WithAudit(on bool) Option {
	return option.New(fmt.Sprintf("WithAudit(%v)", on), option.All, func(st *option.Settings) error {
		st.Audit.Put(on)
		return nil
	})
}

// Classic is the original jdwp-scache's policy: its speculation set and
// order, no belay, no bound on commands in flight, only synthetic replies
// cached. Every protocol fix stays (command numbers, id sizes, the synthetic
// id range, invalidation), so the two policies can be compared side by side.
// Options given beside it refine it, in any order.
func Classic() Option {
	return option.New("Classic()", option.All, func(st *option.Settings) error {
		st.Preset = option.PresetClassic
		st.Presets = append(st.Presets, "Classic")
		return nil
	})
}

// WithFamilies chooses the speculation families (default AllFamilies); a
// bit that names no family of the table is an error. Replies about suspended
// threads are still cached when the debugger's own commands ask for them,
// whatever the families.
func WithFamilies(f Family) Option {
	return option.New(fmt.Sprintf("WithFamilies(%#x)", uint16(f)), option.All, func(st *option.Settings) error {
		var known Family
		for _, fam := range families {
			known |= fam.flag
		}
		if f&^known != 0 {
			return fmt.Errorf("no family has the bits %#x", uint16(f&^known))
		}
		st.Families.Put(uint16(f))
		return nil
	})
}

// PassThrough makes a Speculator that forwards every packet untouched, as a
// disabled one does: the "off" mode of the proxy and the benchmarks. It is a
// preset, like Classic.
func PassThrough() Option {
	return option.New("PassThrough()", option.All, func(st *option.Settings) error {
		st.Preset = option.PresetOff
		st.Presets = append(st.Presets, "PassThrough")
		return nil
	})
}

// WithJournal makes a transport's Relay, or each session of its Proxy, call
// fn with every journal entry, from both directions' goroutines (one call
// at a time). A Near or Far made with it calls fn with its side of the
// conversation from the call that made each entry.
func WithJournal(fn func(JournalEntry)) Option {
	return option.New("WithJournal", option.Sessions|option.Half, func(st *option.Settings) error {
		if fn == nil {
			return errors.New("a nil function")
		}
		st.Journal = fn
		return nil
	})
}

// ModeOptions returns the options of a named policy, as the -mode flags of
// the proxies and benchmarks name them: "scache" (the default policy, no
// options), "classic" (Classic) or "off" (PassThrough).
func ModeOptions(mode string) ([]Option, error) {
	switch mode {
	case "scache":
		return nil, nil
	case "classic":
		return []Option{Classic()}, nil
	case "off":
		return []Option{PassThrough()}, nil
	}
	return nil, fmt.Errorf("scache: unknown mode %q (want scache, classic or off)", mode)
}

// WithConsistency chooses the promise a Speculator keeps about state that
// may change while the debugger looks at it: Sequential (the default)
// serves the threads view of running threads, and the values running code
// may change, from speculation, under the rules in the package
// documentation; Linearizable forwards them, as versions before it did. Classic is linearizable whatever this says.
func WithConsistency(c Consistency) Option {
	return option.New(fmt.Sprintf("WithConsistency(%v)", c), option.All, func(st *option.Settings) error {
		if c != Sequential && c != Linearizable {
			return fmt.Errorf("unknown consistency %d", int(c))
		}
		st.Consistency.Put(int(c))
		return nil
	})
}
