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

	cache   *replyCache
	classes classTracker

	// pending holds the commands sent upstream whose reply matters: every
	// synthetic command, and the debugger's commands whose reply is cached or
	// triggers something.
	pending map[uint32]*inFlight
	// ahead counts, by id, the debugger's commands answered ahead whose
	// reply from the VM is still to absorb (ahead.go).
	ahead map[uint32]int
	// requests follows the ids of event requests, for Sets answered ahead
	// (request_ids.go).
	requests requestIDs
	// byKey indexes the keyable commands of pending whose reply may still be
	// cached, for belay and to avoid speculating twice.
	byKey map[Key]*inFlight
	// held lists the belayed debugger commands, in arrival order.
	held []*heldCommand

	susp      suspension
	top       topFrame
	threads   []jdwp.ThreadID // the last AllThreads reply's, for the next stop's threads view
	predictor framePredictor
	prepared  map[jdwp.ReferenceTypeID]bool // classes prepared whose line tables are to ask (prepare.go)
	// redefined holds, by the id of an unanswered RedefineClasses command,
	// the metadata of its classes the debugger used: asked again once the
	// VM has answered it (redefine.go).
	redefined   map[uint32][]queued
	learn       learner
	again       againLog // what the debugger asked at its recent stops (again.go)
	urgent      []queued // speculated state commands, sent before queue
	queue       []queued // speculated commands waiting for an in-flight slot
	queuedKeys  map[Key]struct{}
	synthetic   int // synthetic commands in flight
	nextID      uint32
	reader      jdwp.Reader
	keyWriter   jdwp.Writer                          // scratch of newKey
	params      map[jdwp.Command]jdwp.CommandMessage // scratch of decodeParams
	triggers    map[jdwp.Command]bool                // commands whose replies start a family: tracked
	up, down    scratch
	stats       Stats
	disabledFor error
	// finalCache keeps the cache's size at Close, for Stats afterwards.
	finalEntries, finalBytes int64
}

// inFlight is a command awaiting its reply.
type inFlight struct {
	id  uint32
	cmd jdwp.Command
	key Key // "" when not keyable
	subject
	epoch     uint64 // the suspension epoch it was sent in
	synthetic bool
	poisoned  bool // invalidated while in flight: the reply answers waiters but is not cached
	waiters   []*heldCommand
}

// heldCommand is a debugger command waiting on a reply in flight.
type heldCommand struct {
	id       uint32
	packet   []byte // a copy, sent upstream if the Speculator is disabled meanwhile
	answered bool
}

// queued is a speculated command not yet sent.
type queued struct {
	key Key
	subject
}

// subject is what a keyed command is about: its lifetime, and the class or
// object that ends it.
type subject struct {
	life   lifetime
	class  jdwp.ReferenceTypeID // of a lifetimeClass command
	object jdwp.ObjectID        // of a lifetimeObject command
	values bool                 // a lifetimeSuspension command that reads values
}

// scratch holds the reused slices of one direction's Responses.
type scratch struct {
	resp Response
	bufs [][]byte
	used int
}

func (sc *scratch) reset() *Response {
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
func (sc *scratch) buf(n int) []byte {
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
func (sc *scratch) keep(b []byte) { sc.bufs[sc.used-1] = b[:0] }

// copy returns a copy of p in a reused buffer, to change without touching p.
func (sc *scratch) copy(p []byte) []byte {
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
		cfg:        cfg,
		log:        cfg.logger,
		enabled:    !cfg.passThrough,
		sizes:      jdwp.DefaultIDSizes,
		classes:    newClassTracker(),
		pending:    make(map[uint32]*inFlight),
		byKey:      make(map[Key]*inFlight),
		queuedKeys: make(map[Key]struct{}),
		params:     make(map[jdwp.Command]jdwp.CommandMessage),
		triggers:   make(map[jdwp.Command]bool),
		nextID:     FirstSyntheticID,
	}
	s.cache = newReplyCache(cfg.cacheBytes, func() { s.stats.Wasted++ })
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
	if s.closed {
		st.CacheEntries, st.CacheBytes = s.finalEntries, s.finalBytes
	}
	st.InFlight = int64(s.synthetic)
	st.Held = int64(s.countHeld())
	return st
}

// Close clears every table; Stats afterwards reports the cache as it was at
// Close. It returns an error wrapping ErrHeldCommands if
// debugger commands were still held: their replies will never be sent.
func (s *Speculator) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.countHeld()
	if !s.closed {
		s.finalEntries, s.finalBytes = int64(s.cache.len()), int64(s.cache.bytes)
	}
	s.clearAll()
	s.pending = make(map[uint32]*inFlight)
	s.ahead = nil
	s.held = nil
	s.synthetic = 0
	s.closed = true
	if n > 0 {
		return fmt.Errorf("%w: %d unanswered", ErrHeldCommands, n)
	}
	return nil
}

func (s *Speculator) countHeld() int {
	n := 0
	for _, h := range s.held {
		if !h.answered {
			n++
		}
	}
	return n
}

// OnUpstream takes a packet going to the VM (normally a debugger command) and
// says what to send. See Response for how long the result is valid.
func (s *Speculator) OnUpstream(packet []byte) Response {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.PacketsUp++
	r := s.up.reset()
	var h jdwp.Header
	if err := h.Parse(packet); err != nil {
		s.disable(r, fmt.Errorf("upstream packet: %w", err))
		return s.forwardUp(r, packet)
	}
	if h.IsReply() {
		return s.forwardUp(r, packet)
	}
	if h.CommandSet == jdwp.SetEventRequest {
		var done bool
		if packet, done = s.onRequestCommand(r, h, packet); done {
			return *r
		}
	}
	if !s.enabled {
		return s.forwardUp(r, packet)
	}
	if p, ok := s.pending[h.ID]; ok && p.synthetic {
		s.disable(r, fmt.Errorf("debugger command id %#x collides with a synthetic command in flight", h.ID))
		return s.forwardUp(r, packet)
	}
	cmd := h.Cmd()
	track := false
	switch cmd {
	case jdwp.CmdVirtualMachineIDSizes, jdwp.CmdVirtualMachineAllClasses,
		jdwp.CmdVirtualMachineAllClassesWithGeneric:
		track = true
	case jdwp.CmdVirtualMachineRedefineClasses:
		if err := s.onRedefine(h.ID, packet); err != nil {
			s.disable(r, err)
			return s.forwardUp(r, packet)
		}
	case jdwp.CmdVirtualMachineDispose:
		s.clearAll()
		s.end()
	case jdwp.CmdVirtualMachineDisposeObjects:
		if err := s.onDisposeObjects(jdwp.Data(packet)); err != nil {
			s.disable(r, err)
			return s.forwardUp(r, packet)
		}
	case jdwp.CmdVirtualMachineExit:
		s.end()
	}
	if s.answersAhead(cmd, packet) {
		return s.answerAhead(r, h, packet)
	}
	tr := commandTraits[cmd]
	if stateTrack, err := s.onStateCommand(cmd, tr, h.ID, jdwp.Data(packet)); err != nil {
		s.disable(r, err)
		return s.forwardUp(r, packet)
	} else if stateTrack {
		track = true
	}
	if tr.changesValues {
		// The values asked again go right behind the command that changes them.
		s.forwardUp(r, packet)
		s.pump(r, &s.up)
		return *r
	}
	spec, ok := s.specOf(tr)
	var params jdwp.CommandMessage
	if ok {
		m, err := s.decodeParams(cmd, jdwp.Data(packet))
		if err != nil {
			s.disable(r, fmt.Errorf("%s command with %d malformed data bytes: %w", cmd, len(packet)-jdwp.HeaderSize, err))
			return s.forwardUp(r, packet)
		}
		params = m
	}
	if ok && spec.life == lifetimeSuspension && !s.stateCacheable(spec, params) {
		ok = false
	}
	if !ok {
		if track || s.triggers[cmd] {
			s.track(&inFlight{id: h.ID, cmd: cmd, epoch: s.susp.epoch})
		}
		return s.forwardUp(r, packet)
	}
	key := keyOf(h, packet)
	if spec.life == lifetimeSuspension {
		s.noteAsked(key, params)
	}
	if e, ok := s.cache.get(key); ok {
		s.stats.Hits++
		s.use(r, key, e)
		s.answerHit(r, packet, s.retag(&s.up, e.reply, h.ID))
		s.debug("hit", h.ID, cmd)
		return *r
	}
	if p, ok := s.byKey[key]; ok && s.cfg.belay {
		s.hold(r, p, h.ID, packet)
		s.debug("belay", h.ID, cmd)
		return *r
	}
	if s.cfg.cacheState && s.derived(r, h.ID, packet, params) {
		return *r
	}
	s.stats.Misses++
	switch spec.life { // the debugger asks it: speculate it
	case lifetimeSuspension:
		s.learn.used(params)
	case lifetimeClass:
		s.learn.classUsed(cmd)
	}
	if s.cfg.cacheOrganic || s.cfg.belay || track || s.triggers[cmd] {
		s.track(&inFlight{id: h.ID, cmd: cmd, key: key, subject: subjectOf(spec, params), epoch: s.susp.epoch})
	}
	return s.forwardUp(r, packet)
}

// use marks the cache entry of key as having answered a debugger command
// in the Response r.
func (s *Speculator) use(r *Response, key Key, e *entry) {
	if e.synthetic && !e.used {
		s.stats.SyntheticUsed++
	}
	e.used = true
	if s.cfg.follower { // the far half tells the near one (split.go)
		r.used = append(r.used, key)
	}
	s.learnOf(key, e.life, e.epoch, true)
}

// learnOf tells the learner that a command with key, of lifetime life,
// was sent (used false) or answered the debugger (used true): class
// metadata for the session, state of the epoch only while its stop goes on.
func (s *Speculator) learnOf(key Key, life lifetime, epoch uint64, used bool) {
	switch {
	case life == lifetimeClass && used:
		s.learn.classUsed(key.Command())
	case life == lifetimeClass:
		s.learn.classSent(key.Command())
	case life == lifetimeSuspension && epoch == s.susp.epoch && s.learn.inStop:
		if m, err := key.Message(s.sizes); err == nil && used {
			s.learn.used(m)
		} else if err == nil {
			s.learn.sent(m)
		}
	}
}

// answerHit sends a reply built from the cache for a debugger command.
func (s *Speculator) answerHit(r *Response, cmd, reply []byte) {
	r.Outcome = Answered
	r.Edict.Downstream = append(r.Edict.Downstream, reply)
	r.Journal.Upstream = append(r.Journal.Upstream, cmd)
	r.Journal.Downstream = append(r.Journal.Downstream, reply)
}

// hold belays a debugger command on a command in flight.
func (s *Speculator) hold(r *Response, p *inFlight, id uint32, packet []byte) {
	r.Outcome = Held
	hc := &heldCommand{id: id, packet: append([]byte(nil), packet...)}
	p.waiters = append(p.waiters, hc)
	s.held = append(s.held, hc)
	r.Journal.Upstream = append(r.Journal.Upstream, packet)
}

// OnDownstream takes a packet going to the debugger (a reply or a VM command
// such as an event) and says what to send. See Response for how long the
// result is valid.
func (s *Speculator) OnDownstream(packet []byte) Response {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.PacketsDown++
	r := s.down.reset()
	var h jdwp.Header
	if err := h.Parse(packet); err != nil {
		s.disable(r, fmt.Errorf("downstream packet: %w", err))
		return s.forwardDown(r, packet)
	}
	if !h.IsReply() {
		if s.enabled && h.Cmd() == jdwp.CmdEventComposite {
			if err := s.onEvents(packet); err != nil {
				s.disable(r, err)
			} else {
				s.pump(r, &s.down)
			}
		}
		if s.requests.renaming() && h.Cmd() == jdwp.CmdEventComposite {
			packet = s.renameEvents(packet)
		}
		return s.forwardDown(r, packet)
	}
	s.onSettle(h.ID)
	if s.onRedefined(h.ID) {
		s.pump(r, &s.down)
	}
	if len(s.requests.ahead) > 0 || len(s.requests.forwarded) > 0 {
		var absorbed bool
		if packet, absorbed = s.onSetReply(r, h, packet); absorbed {
			return *r
		}
	}
	if s.absorbAhead(r, h, packet) {
		return *r
	}
	p, ok := s.pending[h.ID]
	if !ok {
		return s.forwardDown(r, packet)
	}
	delete(s.pending, h.ID)
	if s.byKey[p.key] == p {
		delete(s.byKey, p.key)
	}
	if p.synthetic {
		s.synthetic--
		s.stats.BytesSpeculated += int64(len(packet))
		r.Outcome = Absorbed
		r.Journal.Downstream = append(r.Journal.Downstream, packet)
	} else {
		s.forwardDownPtr(r, packet)
	}
	if h.ErrorCode != jdwp.ErrNone && namesObject(p.cmd) {
		// Perhaps asked before the VM gave the object its id (a guess, see
		// guessed.go; or a debugger naming an id it was not shown): not
		// kept, and the debugger's commands held on it go to the VM.
		p.poisoned = true
		s.releaseWaiters(r, p)
	}
	s.answerWaiters(r, p, packet)
	if p.synthetic && len(p.waiters) > 0 {
		s.stats.SyntheticUsed++
		s.learnOf(p.key, p.life, p.epoch, true)
		if s.cfg.follower {
			r.used = append(r.used, p.key)
		}
	}
	if !s.enabled {
		return *r
	}
	if s.onThreadNotSuspended(p, h.ErrorCode) {
		p.poisoned = true
	}
	cached := false
	if p.key != "" && !p.poisoned && (p.synthetic || s.cfg.cacheOrganic) {
		s.cache.add(p.key, &entry{reply: append([]byte(nil), packet...), class: p.class, object: p.object, values: p.values,
			life:  p.life,
			epoch: p.epoch, synthetic: p.synthetic, used: !p.synthetic || len(p.waiters) > 0})
		cached = true
	}
	if p.synthetic && !cached && len(p.waiters) == 0 {
		s.stats.Wasted++
	}
	if !p.synthetic {
		s.onStateReply(p.cmd, h.ErrorCode)
	}
	if h.ErrorCode == jdwp.ErrNone && (!p.synthetic || !s.cfg.classic) {
		if err := s.onReply(r, p, jdwp.Data(packet)); err != nil {
			s.disable(r, fmt.Errorf("%s reply: %w", p.cmd, err))
			return *r
		}
	}
	s.pump(r, &s.down)
	return *r
}

// track records a command sent upstream whose reply matters.
func (s *Speculator) track(p *inFlight) {
	if len(s.pending) >= s.cfg.maxOrganicIDs+s.synthetic {
		// A VM that never answers: stop tracking rather than grow without bound.
		return
	}
	s.pending[p.id] = p
	if p.key != "" && s.cfg.belay {
		s.byKey[p.key] = p
	}
}

func (s *Speculator) forwardUp(r *Response, packet []byte) Response {
	r.Edict.Upstream = append(r.Edict.Upstream, packet)
	r.Journal.Upstream = append(r.Journal.Upstream, packet)
	return *r
}

func (s *Speculator) forwardDown(r *Response, packet []byte) Response {
	return *s.forwardDownPtr(r, packet)
}

func (s *Speculator) forwardDownPtr(r *Response, packet []byte) *Response {
	r.Edict.Downstream = append(r.Edict.Downstream, packet)
	r.Journal.Downstream = append(r.Journal.Downstream, packet)
	return r
}

// retag returns a copy of reply carrying id, in a buffer of the direction's scratch.
func (s *Speculator) retag(sc *scratch, reply []byte, id uint32) []byte {
	b := sc.copy(reply)
	jdwp.SetPacketID(b, id)
	return b
}

// answerWaiters sends the reply to every debugger command held on p.
func (s *Speculator) answerWaiters(r *Response, p *inFlight, reply []byte) {
	if len(p.waiters) == 0 {
		return
	}
	for _, hc := range p.waiters {
		if hc.answered {
			continue
		}
		hc.answered = true
		b := s.retag(&s.down, reply, hc.id)
		s.stats.Belayed++
		r.Edict.Downstream = append(r.Edict.Downstream, b)
		r.Journal.Downstream = append(r.Journal.Downstream, b)
	}
	s.compactHeld()
}

// releaseWaiters sends upstream, in the order they arrived, the debugger
// commands held on p: its reply will not answer them.
func (s *Speculator) releaseWaiters(r *Response, p *inFlight) {
	sendHeldUp(r, p.waiters)
	p.waiters = nil
	s.compactHeld()
}

// sendHeldUp sends upstream in r the held commands not answered yet.
func sendHeldUp(r *Response, held []*heldCommand) {
	for _, hc := range held {
		if hc.answered {
			continue
		}
		hc.answered = true
		// Already in the journal since it was held: only the edict sends it now.
		r.Edict.Upstream = append(r.Edict.Upstream, hc.packet)
	}
}

// compactHeld drops answered commands from the held list.
func (s *Speculator) compactHeld() {
	kept := s.held[:0]
	for _, h := range s.held {
		if !h.answered {
			kept = append(kept, h)
		}
	}
	for i := len(kept); i < len(s.held); i++ {
		s.held[i] = nil
	}
	s.held = kept
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
	sendHeldUp(r, s.held)
	s.held = nil
	for id, p := range s.pending {
		p.waiters = nil
		if !p.synthetic {
			delete(s.pending, id)
		}
	}
	s.byKey = make(map[Key]*inFlight)
	s.queue, s.urgent = nil, nil
	s.queuedKeys = make(map[Key]struct{})
	s.cache.purge()
}

// DisabledReason returns why the Speculator switched itself off, or nil.
func (s *Speculator) DisabledReason() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.disabledFor
}

// clearAll forgets every cached reply, class and queued speculation (VM death,
// Dispose, Close). Commands in flight stay tracked, their replies uncached.
func (s *Speculator) clearAll() {
	s.cache.purge()
	s.classes.reset()
	s.forget(func(subject) bool { return true })
	// Unanswered commands that let threads run stay unsettled: their
	// replies are still to come.
	s.susp = suspension{epoch: s.susp.epoch + 1, unsettled: s.susp.unsettled}
	s.top = topFrame{}
	s.predictor = framePredictor{}
	s.threads = nil
	clear(s.prepared)
	clear(s.redefined)
	s.again.reset()
}

// end stops all speculation for the rest of the session and drops what is
// queued. Replies to synthetic commands in flight are still absorbed.
func (s *Speculator) end() {
	s.over = true
	s.queue, s.urgent = nil, nil
	clear(s.queuedKeys)
}

func (s *Speculator) debug(what string, id uint32, cmd jdwp.Command) {
	if s.log.Enabled(context.Background(), slog.LevelDebug) {
		s.log.Debug("scache: "+what, "id", id, "cmd", cmd.String())
	}
}
