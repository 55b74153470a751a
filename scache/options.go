package scache

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/jdwpscache/scache/jdwp"
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
	// answerAhead: answer at once the debugger's Set of a step request
	// (request_ids.go) and its Clear of a step or breakpoint request
	// (ahead.go).
	answerAhead bool
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

// An Option configures a Speculator (New), a Relay (NewRelay) or a Proxy
// (NewProxy): one style for all three. Each constructor takes the options
// that apply to it (a Relay and a Proxy make Speculators, so Speculator
// options apply to them too) and returns an error for any other, and for a
// value out of range. Presets (Classic, PassThrough) set a whole policy;
// options given beside a preset refine it, in whatever order they come.
type Option struct {
	name  string
	scope scope
	apply func(*settings) error
}

// scope says which constructors an option applies to.
type scope uint8

const (
	forSpeculator scope = 1 << iota
	forRelay
	forProxy
	forHalf // NewNear and NewFar: a Speculator's options and a journal

	forAll      = forSpeculator | forRelay | forProxy | forHalf
	forSessions = forRelay | forProxy
)

func (sc scope) String() string {
	switch sc {
	case forSpeculator:
		return "a Speculator"
	case forRelay:
		return "a Relay"
	case forHalf:
		return "a split proxy's half"
	}
	return "a Proxy"
}

// settings collects the options given to a constructor.
type settings struct {
	preset                          preset
	presets                         []string
	cacheBytes, maxFrames, inFlight optional[int]
	belay, stateCache, answerAhead  optional[bool]
	families                        optional[Family]
	logger                          *slog.Logger
	journal                         func(JournalEntry)
	maxPacketSize                   int
	handshakeTimeout                time.Duration
	sessionEnded                    func(Stats, error)
	speculator                      *Speculator
	split                           Half
}

type optional[T any] struct {
	v   T
	set bool
}

func (o *optional[T]) put(v T) { o.v, o.set = v, true }

type preset uint8

const (
	presetDefault preset = iota
	presetClassic
	presetOff
)

// collect applies opts for the constructor of scope sc.
func collect(sc scope, opts []Option) (*settings, error) {
	st := &settings{}
	for _, o := range opts {
		if o.apply == nil {
			return nil, errors.New("scache: a zero Option")
		}
		if o.scope&sc == 0 {
			return nil, fmt.Errorf("scache: %s does not apply to %v", o.name, sc)
		}
		if err := o.apply(st); err != nil {
			return nil, fmt.Errorf("scache: %s: %w", o.name, err)
		}
	}
	if len(st.presets) > 1 {
		return nil, fmt.Errorf("scache: presets %v conflict: give one", st.presets)
	}
	return st, nil
}

// speculatorOptions reports whether options of a Speculator were given.
func (st *settings) speculatorOptions() bool {
	return len(st.presets) > 0 || st.cacheBytes.set || st.maxFrames.set || st.inFlight.set || st.belay.set ||
		st.stateCache.set || st.families.set || st.answerAhead.set
}

// config returns the Speculator configuration: the preset's, then the
// options given.
func (st *settings) config() config {
	c := defaultConfig()
	switch st.preset {
	case presetClassic:
		c.classic = true
		c.belay = false
		c.maxInFlight = 0
		c.cacheOrganic = false
		c.cacheState = false
		c.families = FamilyClass
	case presetOff:
		c.passThrough = true
	}
	if st.cacheBytes.set {
		c.cacheBytes = st.cacheBytes.v
	}
	if st.maxFrames.set {
		c.maxFrames = st.maxFrames.v
	}
	if st.inFlight.set {
		c.maxInFlight = st.inFlight.v
	}
	if st.belay.set {
		c.belay = st.belay.v
	}
	if st.stateCache.set {
		c.cacheState = st.stateCache.v
	}
	if st.families.set {
		c.families = st.families.v
	}
	c.answerAhead = st.preset == presetDefault
	if st.answerAhead.set {
		c.answerAhead = st.answerAhead.v
	}
	if st.logger != nil {
		c.logger = st.logger
	}
	return c
}

func option(name string, sc scope, apply func(*settings) error) Option {
	return Option{name: name, scope: sc, apply: apply}
}

// WithCacheBytes bounds the reply cache to n > 0 bytes of packets (default
// 16 MiB). The least recently used replies are evicted first.
func WithCacheBytes(n int) Option {
	return option(fmt.Sprintf("WithCacheBytes(%d)", n), forAll, func(st *settings) error {
		if n <= 0 {
			return errors.New("the cache needs at least one byte")
		}
		st.cacheBytes.put(n)
		return nil
	})
}

// WithMaxFrames sets how many frames of a ThreadReference.Frames reply are
// speculated on, top frame first (default 40; 0: none).
func WithMaxFrames(n int) Option {
	return option(fmt.Sprintf("WithMaxFrames(%d)", n), forAll, func(st *settings) error {
		if n < 0 {
			return errors.New("a number of frames is not negative")
		}
		st.maxFrames.put(n)
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
	return option(fmt.Sprintf("WithMaxInFlight(%d)", n), forAll, func(st *settings) error {
		if n < 0 {
			return errors.New("a bound is not negative (0: unbounded)")
		}
		st.inFlight.put(n)
		return nil
	})
}

// WithLogger sets the logger (default: discard for a Speculator,
// slog.Default() for a Proxy's sessions). Per-packet records are at Debug
// level and cost nothing when it is disabled.
func WithLogger(l *slog.Logger) Option {
	return option("WithLogger", forAll, func(st *settings) error {
		if l == nil {
			return errors.New("a nil logger")
		}
		st.logger = l
		return nil
	})
}

// WithBelay turns belay on or off (default on): a debugger command whose key
// matches a command still in flight is held and answered from its reply.
func WithBelay(on bool) Option {
	return option(fmt.Sprintf("WithBelay(%v)", on), forAll, func(st *settings) error {
		st.belay.put(on)
		return nil
	})
}

// WithAnswerAhead turns on or off answering, at once and before the VM's
// reply, the commands whose reply is known: EventRequest.Set of a step
// request (with the id the VM will give it, see request_ids.go) and
// EventRequest.Clear of a step or breakpoint request (ahead.go). Default:
// on in a proxy next to the debugger and in the far half of a split proxy.
// Where a debugger clears its step request as a stop begins (JDI IDEs), the
// Clear's round trip overlaps the speculation in flight and answering it
// ahead only moves the wait; where it clears it as it leaves the stop (jdb,
// before its next step), nothing overlaps it and it is a whole round trip
// saved per stop. A near half never answers ahead (it is not next to the
// debugger). Classic answers nothing ahead.
func WithAnswerAhead(on bool) Option {
	return option(fmt.Sprintf("WithAnswerAhead(%v)", on), forAll, func(st *settings) error {
		st.answerAhead.put(on)
		return nil
	})
}

// Classic is the original jdwp-scache's policy: its speculation set and
// order, no belay, no bound on commands in flight, only synthetic replies
// cached. Every protocol fix stays (command numbers, id sizes, the synthetic
// id range, invalidation), so the two policies can be compared side by side.
// Options given beside it refine it, in any order.
func Classic() Option {
	return option("Classic()", forAll, func(st *settings) error {
		st.preset = presetClassic
		st.presets = append(st.presets, "Classic")
		return nil
	})
}

// A Family is a set of commands the Speculator sends on its own.
type Family uint16

// The speculation families, each on the replies of the last.
const (
	// FamilyClass: the class metadata of each frame of a Frames reply (the original's set).
	FamilyClass Family = 1 << iota
	// FamilyStop: on a stop event, the stopped thread's Frames, FrameCount and Name.
	FamilyStop
	// FamilyTopFrame: on a Frames reply, the top frame's this (non-static
	// methods) and the values of the variables visible at its code index.
	FamilyTopFrame
	// FamilyValues: the type of each object, the value of each string and
	// the length of each array among those values.
	FamilyValues
	// FamilyAgain: at a stop, the state commands the debugger asked at its
	// recent stops of the same kind (breakpoint or step) that name no frame:
	// the fields of an expanded object, a class's statics (see again.go);
	// and the type of the next `this`, guessed from the ids of the last
	// stops' (see guessed.go).
	FamilyAgain
	// FamilyThreads: while all threads are suspended, AllThreads and each
	// thread's Name, Status and FrameCount.
	FamilyThreads
	// FamilyAttach: once the debugger has the id sizes, the facts it asks
	// once a session (Version, CapabilitiesNew).
	FamilyAttach
	// FamilyPrepare: at a ClassPrepare event that suspends (where a debugger
	// sets its deferred breakpoints), the class's methods and source names,
	// then the line table of each of its methods.
	FamilyPrepare

	// AllFamilies is the default.
	AllFamilies = FamilyClass | FamilyStop | FamilyTopFrame | FamilyValues | FamilyAgain | FamilyThreads | FamilyAttach | FamilyPrepare
)

// WithFamilies chooses the speculation families (default AllFamilies); a
// bit that names no family of the table is an error. Replies about suspended
// threads are still cached when the debugger's own commands ask for them,
// whatever the families.
func WithFamilies(f Family) Option {
	return option(fmt.Sprintf("WithFamilies(%#x)", uint16(f)), forAll, func(st *settings) error {
		var known Family
		for _, fam := range families {
			known |= fam.flag
		}
		if f&^known != 0 {
			return fmt.Errorf("no family has the bits %#x", uint16(f&^known))
		}
		st.families.put(f)
		return nil
	})
}

// WithStateCache turns on or off (default on) caching replies that are true
// only while threads stay suspended (frames, locals, thread names and
// states). Off, only class metadata is cached, and the state families
// speculate nothing.
func WithStateCache(on bool) Option {
	return option(fmt.Sprintf("WithStateCache(%v)", on), forAll, func(st *settings) error {
		st.stateCache.put(on)
		return nil
	})
}

// PassThrough makes a Speculator that forwards every packet untouched, as a
// disabled one does: the "off" mode of the proxy and the benchmarks. It is a
// preset, like Classic.
func PassThrough() Option {
	return option("PassThrough()", forAll, func(st *settings) error {
		st.preset = presetOff
		st.presets = append(st.presets, "PassThrough")
		return nil
	})
}

// WithJournal makes a Relay, or each session of a Proxy, call fn with every
// journal entry, from both directions' goroutines (one call at a time). A
// Near or Far made with it calls fn with its side of the conversation from
// the call that made each entry.
func WithJournal(fn func(JournalEntry)) Option {
	return option("WithJournal", forSessions|forHalf, func(st *settings) error {
		if fn == nil {
			return errors.New("a nil function")
		}
		st.journal = fn
		return nil
	})
}

// WithMaxPacketSize bounds the packets a Relay (or a Proxy's sessions) reads
// on either side (default jdwp.DefaultMaxPacketSize; at least the 11-byte header).
func WithMaxPacketSize(n int) Option {
	return option(fmt.Sprintf("WithMaxPacketSize(%d)", n), forSessions, func(st *settings) error {
		if n < jdwp.HeaderSize {
			return fmt.Errorf("a packet has at least %d bytes", jdwp.HeaderSize)
		}
		st.maxPacketSize = n
		return nil
	})
}

// WithHandshakeTimeout bounds the JDWP handshake of a Relay or a Proxy's
// connections (default jdwp.HandshakeTimeout).
func WithHandshakeTimeout(d time.Duration) Option {
	return option(fmt.Sprintf("WithHandshakeTimeout(%v)", d), forSessions, func(st *settings) error {
		if d <= 0 {
			return errors.New("a timeout is positive")
		}
		st.handshakeTimeout = d
		return nil
	})
}

// WithSessionEnded makes a Proxy call fn after each session with its stats
// and the relay's error (nil for a clean end).
func WithSessionEnded(fn func(Stats, error)) Option {
	return option("WithSessionEnded", forProxy, func(st *settings) error {
		if fn == nil {
			return errors.New("a nil function")
		}
		st.sessionEnded = fn
		return nil
	})
}

// WithSplit makes a Relay or a Proxy one half of a split proxy: NearHalf
// next to the VM, FarHalf next to the debugger, with a tunnel between them
// (see Near and Far). Give both halves the same Speculator options.
func WithSplit(h Half) Option {
	return option("WithSplit", forSessions, func(st *settings) error {
		if h != NearHalf && h != FarHalf {
			return fmt.Errorf("scache: WithSplit(%d): NearHalf or FarHalf", h)
		}
		st.split = h
		return nil
	})
}

// WithSpeculator makes a Relay use s, a Speculator made by New, instead of
// making its own (to read its Stats during the session, say).
func WithSpeculator(s *Speculator) Option {
	return option("WithSpeculator", forRelay, func(st *settings) error {
		if s == nil {
			return errors.New("a nil Speculator")
		}
		st.speculator = s
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
