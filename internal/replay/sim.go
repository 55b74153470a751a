package replay

import (
	"cmp"
	"container/heap"
	"fmt"
	"slices"
	"time"

	"github.com/jdwpscache/scache/internal/journal"
	"github.com/jdwpscache/scache/internal/latency"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
)

// A Mode is a speculation policy to replay with.
type Mode string

// The modes: forward only, the original jdwp-scache policy, ours, and ours
// split in two halves (scache.Near next to the VM, scache.Far next to the
// debugger, the link between them).
const (
	ModeOff     Mode = "off"
	ModeClassic Mode = "classic"
	ModeScache  Mode = "scache"
	ModeSplit   Mode = "split"
)

// Modes lists every mode, baseline first.
var Modes = []Mode{ModeOff, ModeClassic, ModeScache, ModeSplit}

// Options returns the Speculator options of a mode (for split, of each half).
func (m Mode) Options() ([]scache.Option, error) {
	if m == ModeSplit {
		return scache.ModeOptions(string(ModeScache))
	}
	return scache.ModeOptions(string(m))
}

// outcome is what one simulated run at one RTT found.
type outcome struct {
	unanswered int64 // synthetic commands answered with the placeholder
	wait       time.Duration
	waitBy     map[jdwp.Command]CommandWait
	stops      []stopWait // the debugger's waiting at each stop that ended: from the stop event to its resume
	mismatches []string
	stalled    int // debugger commands never sent: the simulation could not go on
}

// A simulation runs one trace through one Speculator, or a split proxy's
// two halves, over a link of a given RTT.
//
// The debugger sends its commands in recorded order, each when the packet it
// waited for (its dependency) has arrived plus its recorded think time. The
// Speculator sits at the debugger's end of the link; in split mode the far
// half does, and the near half at the VM's end. Each packet or tunnel frame
// crossing the link takes RTT/2. The VM serves commands one at a time, in
// arrival order, each for its recorded service time (synthetic ones: the
// median of their command's); it emits each event its recorded gap after the
// command that let it run.
type simulation struct {
	s     *session
	spc   *scache.Speculator // one proxy; nil in split mode
	split *halves            // split mode; nil with one proxy
	rtt   time.Duration
	clock *latency.Clock // the link's profile (link.go); nil: rtt/2 each way
	// service is added to each command's service time at the VM (Config.Service).
	service time.Duration

	now   time.Duration
	queue eventQueue
	seq   int

	vmQueue      [][]byte
	vmBusy       bool
	syntheticCmd map[uint32]syntheticInfo

	next       int // the next debugger command to send
	lastSend   time.Duration
	sentAt     []time.Duration // -1 until sent
	arrived    []time.Duration // reply arrival at the debugger, -1 until then
	eventAt    []time.Duration
	vmDone     []time.Duration // when the VM finished each organic command, -1 if it never did
	emitted    []bool
	atVM       map[uint32][]int // debugger commands sent towards the VM and not served, by id
	awaited    map[uint32][]int // debugger commands awaiting their reply, by id
	eventIndex map[string][]int // events not yet delivered, by packet bytes
	byAnchor   map[int][]int    // events each debugger command lets the VM reach
	out        outcome
	record     func(journal.Record)
	stopSpans  []span // stop event to resume, as the debugger saw them
	epoch      era    // the trace's suspension epoch as the Speculator last saw it
	// vmEvents are the events the VM is to reach, when and the epoch each
	// begins, in time order; vmEra is the epoch of those it has reached:
	// a command it serves after one is answered in that epoch's state,
	// whenever its Speculator sent it (vmEpoch).
	vmEvents []vmEvent
	vmEra    era
	gens     classGens  // class redefinitions the Speculator has seen
	runs     threadRuns // where threads may have run, as the Speculator has seen (parked.go)
	moving   *movingStates
}

// vmEvent is an event the VM reached at, beginning epoch.
type vmEvent struct {
	at    time.Duration
	epoch era
}

type syntheticInfo struct {
	key   scache.Key
	epoch era
	gen   int
	mark  runMark
}

type simEvent struct {
	at    time.Duration
	seq   int
	apply func()
}

type eventQueue []simEvent

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(simEvent)) }
func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

func (sim *simulation) at(t time.Duration, f func()) {
	sim.seq++
	heap.Push(&sim.queue, simEvent{at: t, seq: sim.seq, apply: f})
}

// simulate runs the trace; record, if set, receives the journal with times
// as offsets from the zero time.
func newSimulation(s *session, l link, record func(journal.Record), spc *scache.Speculator, split *halves) *simulation {
	return &simulation{s: s, spc: spc, split: split, rtt: l.rtt, clock: l.clock(), syntheticCmd: map[uint32]syntheticInfo{}, record: record, gens: classGens{},
		moving: newMovingStates(s)}
}

func (sim *simulation) run() outcome {
	s := sim.s
	n := len(s.cmds)
	sim.sentAt, sim.arrived, sim.vmDone = fill(n), fill(n), fill(n)
	sim.eventAt = fill(len(s.events))
	sim.emitted = make([]bool, len(s.events))
	sim.atVM, sim.awaited = map[uint32][]int{}, map[uint32][]int{}
	sim.eventIndex, sim.byAnchor = map[string][]int{}, map[int][]int{}
	for i, e := range s.events {
		sim.eventIndex[string(e.packet)] = append(sim.eventIndex[string(e.packet)], i)
		if e.anchor >= 0 {
			sim.byAnchor[e.anchor] = append(sim.byAnchor[e.anchor], i)
		}
	}
	// The handshake is through as the trace starts: what the proxy asks
	// ahead of the debugger's first command goes first. The far half took
	// the link's round trip for the tunnel's hello, and tells the near half.
	if sim.split != nil {
		sim.farOut(sim.split.far.OnTunnelOpen(sim.rtt), -1)
		sim.nearOut(sim.split.near.OnHandshake())
	} else {
		sim.route(sim.spc.OnHandshake(), scache.Upstream)
	}
	// Events that no command let happen (VMStart) come at their recorded time.
	for i, e := range s.events {
		if e.anchor < 0 {
			sim.emitted[i] = true
			sim.vmSends(e.gap, e.packet)
		}
	}
	sim.trySend()
	for sim.queue.Len() > 0 {
		e := heap.Pop(&sim.queue).(simEvent)
		sim.now = e.at
		e.apply()
	}
	sim.out.stalled = n - sim.next
	sim.out.waitBy = map[jdwp.Command]CommandWait{}
	for i, d := range waitShares(sim.sentAt, sim.arrived, span{0, -1}) {
		sim.out.wait += d
		if d > 0 {
			cw := sim.out.waitBy[sim.s.cmds[i].cmd]
			cw.Wait += d
			cw.Commands++
			sim.out.waitBy[sim.s.cmds[i].cmd] = cw
		}
	}
	// At stops, the debugger's inspection, as stoplog.Record counts it:
	// its event requests (clearing the last step, asking for the next) and
	// the commands that change the debuggee (a SetValues) are round trips no
	// speculation can save, and the resume ends the stop.
	inspect := make([]time.Duration, n)
	for i := range inspect {
		inspect[i] = sim.sentAt[i]
		if c := sim.s.cmds[i].cmd; c.Set == jdwp.SetEventRequest || scache.ChangesDebuggee(c) {
			inspect[i] = -1
		}
	}
	for i, st := range sim.stopSpans {
		if st.b >= 0 {
			sim.out.stops = append(sim.out.stops, stopWait{nth: i, wait: busyTime(inspect, sim.arrived, st)})
		}
	}
	return sim.out
}

// isStop reports whether an event packet stops a thread at a location (a
// breakpoint or a step) with a suspending policy.
func isStop(p []byte, s *session) bool {
	var c jdwp.Composite
	if jdwp.Unmarshal(jdwp.Data(p), s.sizes, &c) != nil || c.SuspendPolicy == jdwp.SuspendPolicyNone {
		return false
	}
	for _, e := range c.Events {
		if _, ok := e.(*jdwp.LocationEvent); ok {
			return true
		}
	}
	return false
}

func fill(n int) []time.Duration {
	d := make([]time.Duration, n)
	for i := range d {
		d[i] = -1
	}
	return d
}

// trySend schedules the next debugger command once what it waited for has arrived.
func (sim *simulation) trySend() {
	if sim.next >= len(sim.s.cmds) {
		return
	}
	c := &sim.s.cmds[sim.next]
	var ready time.Duration
	switch c.dep.kind {
	case depReply:
		if sim.arrived[c.dep.index] < 0 {
			return
		}
		ready = sim.arrived[c.dep.index]
	case depEvent:
		if sim.eventAt[c.dep.index] < 0 {
			return
		}
		ready = sim.eventAt[c.dep.index]
	}
	t := max(ready+c.think, sim.lastSend)
	i := sim.next
	sim.next++
	sim.lastSend = t
	sim.at(t, func() { sim.send(i) })
}

func (sim *simulation) send(i int) {
	sim.sentAt[i] = sim.now
	if c := sim.s.cmds[i].cmd; c == jdwp.CmdVirtualMachineResume || c == jdwp.CmdThreadReferenceResume {
		if n := len(sim.stopSpans); n > 0 && sim.stopSpans[n-1].b < 0 {
			sim.stopSpans[n-1].b = sim.now
		}
	}
	id := sim.s.cmds[i].id
	sim.atVM[id] = append(sim.atVM[id], i)
	sim.awaited[id] = append(sim.awaited[id], i)
	if sim.split != nil {
		sim.farFromDebugger(i)
		sim.trySend()
		return
	}
	sim.speculatorSees(i)
	resp := sim.spc.OnUpstream(sim.s.cmds[i].packet)
	sim.route(resp, scache.Upstream)
	sim.trySend()
}

// speculatorSees follows the trace's epochs and class redefinitions as the
// Speculator that sends synthetic commands sees debugger command i.
func (sim *simulation) speculatorSees(i int) {
	sim.epoch = sim.epoch.atLeast(sim.s.cmds[i].after)
	if sim.s.cmds[i].cmd == jdwp.CmdVirtualMachineRedefineClasses {
		sim.gens.redefine(sim.s.cmds[i].packet, sim.s.sizes)
	}
	sim.runs.command(sim.s.cmds[i].packet, sim.s.sizes)
}

// route carries out a Response: upstream packets cross the link to the VM,
// downstream ones reach the debugger at once.
func (sim *simulation) route(resp scache.Response, dir scache.Direction) {
	if sim.record != nil {
		sim.journal(resp, dir)
	}
	if len(resp.Edict.Upstream) > 0 {
		// One write, as a live proxy writes its edict: one chunk on the link.
		var batch [][]byte
		for _, p := range resp.Edict.Upstream {
			p := append([]byte(nil), p...)
			sim.noteSynthetic(p)
			batch = append(batch, p)
		}
		sim.at(sim.cross(frameBytes(batch), true), func() {
			for _, p := range batch {
				sim.toVM(p)
			}
		})
	}
	for _, p := range resp.Edict.Downstream {
		sim.toDebugger(append([]byte(nil), p...))
	}
}

// noteSynthetic remembers what a synthetic command on its way to the VM
// asks, in the epoch its Speculator sent it in, for the VM's answer.
func (sim *simulation) noteSynthetic(p []byte) {
	if id := jdwp.PacketID(p); scache.IsSyntheticID(id) {
		key, _ := scache.KeyOf(p)
		sim.syntheticCmd[id] = syntheticInfo{key: key, epoch: sim.epoch, gen: sim.gens.of(key, sim.s.sizes), mark: sim.runs.mark(p, sim.s.sizes)}
	}
}

func (sim *simulation) toVM(p []byte) {
	sim.vmQueue = append(sim.vmQueue, p)
	if !sim.vmBusy {
		sim.serveNext()
	}
}

func (sim *simulation) serveNext() {
	if len(sim.vmQueue) == 0 {
		sim.vmBusy = false
		return
	}
	sim.vmBusy = true
	p := sim.vmQueue[0]
	sim.vmQueue = sim.vmQueue[1:]
	h, err := jdwp.ParseHeader(p)
	if err != nil {
		sim.serveNext()
		return
	}
	reply, service, organic := sim.answer(h)
	if organic >= 0 {
		sim.emitDuring(organic, service+sim.service)
	}
	sim.at(sim.now+service+sim.service, func() {
		if organic >= 0 {
			sim.vmDone[organic] = sim.now
			sim.emitEvents(organic)
		}
		if reply != nil {
			sim.vmSends(0, reply)
		}
		sim.serveNext()
	})
}

// answer returns the VM's reply to a command, its service time, and the index
// of the debugger command it is (-1 for a synthetic one).
func (sim *simulation) answer(h jdwp.Header) ([]byte, time.Duration, int) {
	if info, ok := sim.syntheticCmd[h.ID]; ok {
		delete(sim.syntheticCmd, h.ID)
		service := sim.s.service[h.Cmd()]
		if service == 0 {
			service = sim.s.median
		}
		if a, ok := sim.s.answerFor(info.key, info.epoch.atLeast(sim.vmEpoch()), info.gen, info.mark); ok {
			return jdwp.AppendReply(nil, h.ID, a.code, a.data), service, -1
		}
		// Never answered in the trace: a placeholder the debugger must never see.
		sim.out.unanswered++
		return jdwp.AppendReply(nil, h.ID, jdwp.ErrAbsentInformation, []byte("scache replay placeholder")), service, -1
	}
	if list := sim.atVM[h.ID]; len(list) > 0 {
		i := list[0]
		sim.atVM[h.ID] = list[1:]
		c := &sim.s.cmds[i]
		return c.reply, c.service, i
	}
	return nil, sim.s.median, -1
}

// vmEpoch returns the epoch of the last event the VM reached by now (the
// zero era before any): a command it serves from then on reads the state
// after that event, as a real VM's command loop does once the event's
// thread stopped, even if the command went out before the event reached
// the Speculator.
func (sim *simulation) vmEpoch() era {
	n := 0 // the simulated time only goes forward: those reached are done with
	for n < len(sim.vmEvents) && sim.vmEvents[n].at <= sim.now {
		sim.vmEra = sim.vmEra.atLeast(sim.vmEvents[n].epoch)
		n++
	}
	sim.vmEvents = sim.vmEvents[n:]
	return sim.vmEra
}

// reached notes that the VM reaches event e d from now.
func (sim *simulation) reached(d time.Duration, e event) {
	at := sim.now + d
	i, _ := slices.BinarySearchFunc(sim.vmEvents, at, func(v vmEvent, t time.Duration) int {
		return cmp.Or(cmp.Compare(v.at, t), -1) // behind those due at the same time
	})
	sim.vmEvents = slices.Insert(sim.vmEvents, i, vmEvent{at: at, epoch: e.epoch})
}

// emitDuring schedules the events the VM sent while it served command i,
// which takes service from now: before its reply, as they came.
func (sim *simulation) emitDuring(i int, service time.Duration) {
	for _, j := range sim.byAnchor[i] {
		if e := sim.s.events[j]; e.during && !sim.emitted[j] {
			sim.emitted[j] = true
			sim.reached(min(e.gap, service), e)
			sim.vmSends(min(e.gap, service), e.packet)
		}
	}
}

// emitEvents schedules the events the VM reaches after finishing command i.
func (sim *simulation) emitEvents(i int) {
	for _, j := range sim.byAnchor[i] {
		if !sim.emitted[j] {
			sim.emitted[j] = true
			e := sim.s.events[j]
			sim.reached(e.gap, e)
			sim.vmSends(e.gap, e.packet)
		}
	}
}

// vmSends sends a packet from the VM d from now to the proxy's half next to
// it (split mode), or across the link to the one proxy.
func (sim *simulation) vmSends(d time.Duration, p []byte) {
	if sim.split != nil {
		sim.at(sim.now+d, func() { sim.nearFromVM(p) })
		return
	}
	if sim.clock != nil {
		// The link dates what it is handed in order: hand it over at d.
		sim.at(sim.now+d, func() { sim.at(sim.cross(len(p), false), func() { sim.fromVM(p) }) })
		return
	}
	sim.at(sim.now+d+sim.rtt/2, func() { sim.fromVM(p) })
}

func (sim *simulation) fromVM(p []byte) {
	sim.speculatorSeesVM(p)
	sim.route(sim.spc.OnDownstream(p), scache.Downstream)
}

// speculatorSeesVM follows the trace's epochs as the Speculator that sends
// synthetic commands sees a packet from the VM: an event begins one.
func (sim *simulation) speculatorSeesVM(p []byte) {
	if h, err := jdwp.ParseHeader(p); err == nil && !h.IsReply() {
		if list := sim.eventIndex[string(p)]; len(list) > 0 {
			sim.epoch = sim.epoch.atLeast(sim.s.events[list[0]].epoch)
		}
		sim.runs.event(p, sim.s.sizes)
	}
}

// toDebugger delivers a packet to the debugger and checks replies against the recording.
func (sim *simulation) toDebugger(p []byte) {
	h, err := jdwp.ParseHeader(p)
	if err != nil {
		return
	}
	if !h.IsReply() {
		if isStop(p, sim.s) {
			sim.stopSpans = append(sim.stopSpans, span{sim.now, -1})
		}
		if list := sim.eventIndex[string(p)]; len(list) > 0 {
			sim.eventAt[list[0]] = sim.now
			sim.eventIndex[string(p)] = list[1:]
		}
		sim.trySend()
		return
	}
	if scache.IsSyntheticID(h.ID) {
		sim.out.mismatches = append(sim.out.mismatches, fmt.Sprintf("a reply with synthetic id %#x reached the debugger", h.ID))
		return
	}
	if list := sim.awaited[h.ID]; len(list) > 0 {
		i := list[0]
		sim.awaited[h.ID] = list[1:]
		c := &sim.s.cmds[i]
		sim.arrived[i] = sim.now
		if !sim.moving.accept(c, p) {
			sim.out.mismatches = append(sim.out.mismatches, fmt.Sprintf("reply to %s (id %d) differs from the recording", c.cmd, c.id))
		}
	} else {
		sim.out.mismatches = append(sim.out.mismatches, fmt.Sprintf("a reply to id %d, which no command awaits", h.ID))
	}
	sim.trySend()
}

// span is an interval of simulated time; b < 0 means open-ended.
type span struct{ a, b time.Duration }

// stopWait is the debugger's inspection wait at the nth stop event (from 0)
// it received.
type stopWait struct {
	nth  int
	wait time.Duration
}

// busyTime is how long the debugger had at least one command outstanding
// within the window w.
func busyTime(sent, arrived []time.Duration, w span) time.Duration {
	var total time.Duration
	for _, d := range waitShares(sent, arrived, w) {
		total += d
	}
	return total
}

// waitShares splits busyTime among the commands: each command's share is
// the waiting it added to that of the commands sent before it.
func waitShares(sent, arrived []time.Duration, w span) []time.Duration {
	shares := make([]time.Duration, len(sent))
	// Commands are sent in order, so their spans are sorted by start.
	var end time.Duration
	for i := range sent {
		if sent[i] < 0 || arrived[i] < 0 {
			continue
		}
		a, b := max(sent[i], w.a), arrived[i]
		if w.b >= 0 {
			b = min(b, w.b)
		}
		if b <= a || b <= end {
			continue
		}
		shares[i] = b - max(a, end)
		end = b
	}
	return shares
}

// journal records a Response's journal at the current simulated time, with
// the marks the relay gives it.
func (sim *simulation) journal(resp scache.Response, dir scache.Direction) {
	resp.JournalEntries(dir, time.Time{}.Add(sim.now), func(e scache.JournalEntry) {
		sim.record(journal.FromEntry(e))
	})
}
