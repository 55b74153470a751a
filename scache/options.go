package scache

import (
	"fmt"
	"io"
	"log/slog"
)

// Defaults of the options.
const (
	DefaultCacheBytes  = 16 << 20
	DefaultMaxFrames   = 40
	DefaultMaxInFlight = 16
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

// An Option configures a Speculator.
type Option func(*config)

// WithCacheBytes bounds the reply cache to n bytes of packets (default 16 MiB).
// The least recently used replies are evicted first.
func WithCacheBytes(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.cacheBytes = n
		}
	}
}

// WithMaxFrames sets how many frames of a ThreadReference.Frames reply are
// speculated on, top frame first (default 40).
func WithMaxFrames(n int) Option {
	return func(c *config) {
		if n >= 0 {
			c.maxFrames = n
		}
	}
}

// WithMaxInFlight bounds the synthetic commands awaiting a reply (default 16);
// the rest wait in order and are sent as replies come back. The VM serves one
// command at a time, so each synthetic command ahead of a debugger's own delays
// it; the bound keeps that delay small. 0 means unbounded.
func WithMaxInFlight(n int) Option {
	return func(c *config) {
		if n >= 0 {
			c.maxInFlight = n
		}
	}
}

// WithLogger sets the logger (default: discard). Per-packet records are at
// Debug level and cost nothing when it is disabled.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.logger = l
		}
	}
}

// WithBelay turns belay on or off (default on): a debugger command whose key
// matches a command still in flight is held and answered from its reply.
func WithBelay(on bool) Option { return func(c *config) { c.belay = on } }

// Classic restricts the policy to the original jdwp-scache's: its speculation
// set and order, no belay, no bound on commands in flight, only synthetic
// replies cached. Every protocol fix stays (command numbers, id sizes, the
// synthetic id range, invalidation), so the two policies can be compared side
// by side. Options after Classic still apply.
func Classic() Option {
	return func(c *config) {
		c.classic = true
		c.belay = false
		c.maxInFlight = 0
		c.cacheOrganic = false
		c.cacheState = false
		c.families = FamilyClass
	}
}

// A Family is a set of commands the Speculator sends on its own.
type Family uint8

// The speculation families, each on the replies of the last.
const (
	// FamilyClass: the class metadata of each frame of a Frames reply (the original's set).
	FamilyClass Family = 1 << iota
	// FamilyStop: on a stop event, the stopped thread's Frames, FrameCount and Name.
	FamilyStop
	// FamilyTopFrame: on a Frames reply, the top frame's this (non-static
	// methods) and the values of the variables visible at its code index.
	FamilyTopFrame
	// FamilyValues: the type of each object and the value of each string among those values.
	FamilyValues
	// FamilyThreads: while all threads are suspended, AllThreads and each
	// thread's Name, Status and FrameCount.
	FamilyThreads

	// AllFamilies is the default.
	AllFamilies = FamilyClass | FamilyStop | FamilyTopFrame | FamilyValues | FamilyThreads
)

// WithFamilies chooses the speculation families (default AllFamilies).
// Replies about suspended threads are still cached when the debugger's own
// commands ask for them, whatever the families.
func WithFamilies(f Family) Option { return func(c *config) { c.families = f } }

// WithStateCache turns on or off (default on) caching replies that are true
// only while threads stay suspended (frames, locals, thread names and
// states). Off, only class metadata is cached, and the state families
// speculate nothing.
func WithStateCache(on bool) Option { return func(c *config) { c.cacheState = on } }

// PassThrough makes a Speculator that forwards every packet untouched, as a
// disabled one does: the "off" mode of the proxy and the benchmarks.
func PassThrough() Option { return func(c *config) { c.passThrough = true } }

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
