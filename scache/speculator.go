package scache

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache/internal/option"
)

// Synthetic command ids. The ranges of the other tools that share a JDWP
// connection: debuggers count from 0, ddmlib from 0x40000000, Android's
// adbconnection from 0x80000000.
const (
	FirstSyntheticID uint32 = 0xA0000000
	LastSyntheticID  uint32 = 0xBFFFFFFF
)

// IsSyntheticID reports whether id is in the Speculator's range.
func IsSyntheticID(id uint32) bool { return id >= FirstSyntheticID && id <= LastSyntheticID }

// ErrHeldCommands is returned by Close when debugger commands were still held
// waiting for a reply: they were not answered.
var ErrHeldCommands = errors.New("scache: debugger commands still held at close")

// A Speculator decides, packet by packet, what to send where. See the package
// documentation. It is safe for one goroutine per direction calling at the
// same time.
type Speculator struct {
	mu  sync.Mutex
	cfg config
	log *slog.Logger

	enabled bool
	closed  bool
	// over is set once the session is ending: the debugger sent
	// VirtualMachine.Exit or Dispose, or the VM sent VMDeath. Nothing but
	// the debugger's own packets goes to the VM after that: a VM that exits
	// with commands unread in its socket resets the connection, and a reset
	// can discard replies the proxy has not read yet (Exit's among them).
	over  bool
	sizes jdwp.IDSizes

	cache    *replyCache
	lookup   lookup // reads the cache by command (lookup.go)
	classes  classTracker
	inflight inflightState // commands sent and not answered, and the debugger's held on them
	queue    queueState    // speculation waiting to go out (queue.go)
	susp     suspension    // what is known suspended, and the epoch (state.go)
	stop     stopState     // the current stop (stop.go)
	table    familyTable   // the families as this configuration runs them (families.go)
	// requests follows the ids of event requests, for Sets answered ahead
	// (request_ids.go).
	requests requestIDs
	learn    learner   // which speculation this debugger uses (learn.go)
	audits   audits    // with WithAudit: the answers being checked (audit.go)
	pos      positions // the VM's stream, for moving entries (positions.go)
	// behind is the debugger's command in flight that state commands are
	// read behind (behind.go).
	behind behindCommand
	// familyState is what the families keep (families.go): the mechanism
	// holds it and never looks inside; the table's hooks keep it true.
	familyState
	cost costModel // the link's and the VM's times (cost.go)
	// redefined holds, by the id of an unanswered RedefineClasses command,
	// the metadata of its classes the debugger used: asked again once the
	// VM has answered it (redefine.go).
	redefined map[uint32][]queued
	triggers  map[jdwp.Command]bool // commands whose replies start a family: tracked
	scratch   scratchState

	stats       Stats
	disabledFor error
	// finalCache keeps the cache's size at Close, for Stats afterwards.
	finalEntries, finalBytes int64
}

// scratchState holds what is reused from packet to packet, so that a
// packet allocates nothing it need not.
type scratchState struct {
	reader    jdwp.Reader
	keyWriter jdwp.Writer                          // of newKey
	params    map[jdwp.Command]jdwp.CommandMessage // of decodeParams
	up, down  responseBuffers                      // each direction's Response
}

// responseBuffers holds the reused slices of one direction's Responses.
type responseBuffers struct {
	resp Response
	bufs [][]byte
	used int
}

func (sc *responseBuffers) reset() *Response {
	r := &sc.resp
	r.Outcome = Forwarded
	r.Edict.Upstream = r.Edict.Upstream[:0]
	r.Edict.Downstream = r.Edict.Downstream[:0]
	r.Journal.Upstream = r.Journal.Upstream[:0]
	r.Journal.Downstream = r.Journal.Downstream[:0]
	r.speculated = r.speculated[:0]
	r.used = r.used[:0]
	sc.used = 0
	return r
}

// buf returns a reused buffer of length 0 and capacity at least n.
func (sc *responseBuffers) buf(n int) []byte {
	if sc.used == len(sc.bufs) {
		sc.bufs = append(sc.bufs, nil)
	}
	b := sc.bufs[sc.used]
	if cap(b) < n {
		b = make([]byte, 0, n)
	}
	sc.bufs[sc.used] = b[:0]
	sc.used++
	return b[:0]
}

// keep records b (grown from buf) so that its capacity is reused.
func (sc *responseBuffers) keep(b []byte) { sc.bufs[sc.used-1] = b[:0] }

// copy returns a copy of p in a reused buffer, to change without touching p.
func (sc *responseBuffers) copy(p []byte) []byte {
	b := append(sc.buf(len(p)), p...)
	sc.keep(b)
	return b
}

// New returns a Speculator with the given options, or an error for an
// option that does not apply to a Speculator or has a bad value.
func New(opts ...Option) (*Speculator, error) {
	st, err := option.Collect(option.Speculator, opts)
	if err != nil {
		return nil, err
	}
	return newSpeculator(configOf(st)), nil
}

func newSpeculator(cfg config) *Speculator {
	s := &Speculator{
		cfg:     cfg,
		log:     cfg.logger,
		enabled: !cfg.passThrough,
		sizes:   jdwp.DefaultIDSizes,
		classes: newClassTracker(),
		inflight: inflightState{
			pending: make(map[uint32]*inFlight),
			byKey:   make(map[Key]*inFlight),
		},
		queue:    newQueue(cfg.maxQueued, cfg.follower),
		scratch:  scratchState{params: make(map[jdwp.Command]jdwp.CommandMessage)},
		triggers: make(map[jdwp.Command]bool),
		cost:     costModel{now: cfg.clock},
	}
	s.cache = newReplyCache(cfg.cacheBytes, func() { s.stats.Wasted++ })
	s.lookup = lookup{cache: s.cache, keys: &s.scratch.keyWriter, sizes: &s.sizes}
	s.table = tableFor(cfg)
	s.learn.stop = &s.stop
	s.familyState = newFamilyState(&s.stop)
	for _, f := range families {
		for cmd := range f.onReply {
			s.triggers[cmd] = true
		}
	}
	return s
}

// Enabled reports whether the Speculator still speculates. It switches itself
// off for good on a packet it cannot parse.
func (s *Speculator) Enabled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enabled
}

// Stats returns a snapshot of the counters.
func (s *Speculator) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Enabled = s.enabled
	st.CacheEntries = int64(s.cache.len())
	st.CacheBytes = int64(s.cache.bytes)
	st.CachePeakBytes = int64(s.cache.peak)
	if s.closed {
		st.CacheEntries, st.CacheBytes = s.finalEntries, s.finalBytes
	}
	st.InFlight = int64(s.inflight.synthetic)
	st.Held = int64(s.inflight.unansweredHeld())
	if s.cost.roundTrip.n > 0 {
		st.RoundTrip = max(0, s.cost.roundTrip.least()-s.cost.service.estimate())
	}
	if s.cost.service.samples > 0 {
		st.ServiceTime = s.cost.service.estimate()
	}
	st.WaitBehindSpeculation = max(0, s.cost.behind.longest)
	st.Bandwidth = s.cost.bytes.rate()
	return st
}

// Close clears every table; Stats afterwards reports the cache as it was at
// Close. It returns an error wrapping ErrHeldCommands if
// debugger commands were still held: their replies will never be sent.
func (s *Speculator) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.inflight.unansweredHeld()
	if !s.closed {
		s.finalEntries, s.finalBytes = int64(s.cache.len()), int64(s.cache.bytes)
	}
	s.clearAll()
	s.inflight.closeOut()
	s.closed = true
	if n > 0 {
		return fmt.Errorf("%w: %d unanswered", ErrHeldCommands, n)
	}
	return nil
}

// track records a command sent upstream whose reply matters.
func (s *Speculator) track(p *inFlight) {
	if !s.inflight.roomFor(s.cfg.maxOrganicIDs) {
		// A VM that never answers: stop tracking rather than grow without bound.
		return
	}
	s.cost.sending(p)
	s.inflight.add(p, s.cfg.belay)
}

// retag returns a copy of reply carrying id, in a buffer of the direction's scratch.
func (s *Speculator) retag(sc *responseBuffers, reply []byte, id uint32) []byte {
	b := sc.copy(reply)
	jdwp.SetPacketID(b, id)
	return b
}

// disable switches speculation off for good. Held commands go upstream in r,
// in the order they arrived: nothing waits forever. Synthetic commands in
// flight stay tracked so that their replies are still absorbed.
func (s *Speculator) disable(r *Response, why error) {
	if !s.enabled {
		return
	}
	s.enabled = false
	s.disabledFor = why
	s.log.Warn("scache: speculation disabled; passing every packet through", "reason", why)
	s.sendHeldUp(r, s.inflight.held)
	s.inflight.keepSyntheticOnly()
	s.queue.empty()
	s.cache.purge()
}

// DisabledReason returns why the Speculator switched itself off, or nil.
func (s *Speculator) DisabledReason() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.disabledFor
}

// clearAll forgets every cached reply, class and queued speculation (VM death,
// Dispose, new id sizes, Close), and every family what it keeps. Commands
// in flight stay tracked, their replies uncached.
func (s *Speculator) clearAll() {
	s.cache.purge()
	s.classes.reset()
	s.forget(func(subject) bool { return true })
	s.susp.reset()
	s.stop.reset()
	clear(s.redefined)
	s.table.reset(s)
}

// Ended reports whether the session is ending: the debugger sent
// VirtualMachine.Exit or Dispose, or the VM sent VMDeath. A side that
// closes then may reset its connection instead (a VM that exits with
// packets unread in its socket, or one written to after it closed): a
// transport takes that reset for the session's end, not a failure.
func (s *Speculator) Ended() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.over
}

// endSession takes note that the session is ending (Ended): it stops all
// speculation for the rest of the session and drops what is queued, so
// nothing but the debugger's own packets goes to the VM any more. Replies
// to synthetic commands in flight are still absorbed.
func endSession(s *Speculator) {
	s.over = true
	s.queue.shutDown()
}

func (s *Speculator) debug(what string, id uint32, cmd jdwp.Command) {
	if s.log.Enabled(context.Background(), slog.LevelDebug) {
		s.log.Debug("scache: "+what, "id", id, "cmd", cmd.String())
	}
}
