package replay

import (
	"slices"
	"sort"
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
)

// session is a trace prepared for simulation: who waits for what, how long
// the debugger thought and the VM worked, and the recorded answers.
type session struct {
	cmds    []command
	events  []event
	answers map[scache.Key][]answer // recorded replies, for synthetic commands
	service map[jdwp.Command]time.Duration
	median  time.Duration
	packets int
	keyable int
	sizes   jdwp.IDSizes // from the trace's IDSizes reply
	stops   []Stop       // each stop event of the trace, named (stops.go), in order
}

// A dependency names the downstream packet a debugger command waited for:
// the reply to command index, or the event index.
type dependency struct {
	kind  depKind
	index int
}

type depKind uint8

const (
	depNone depKind = iota
	depReply
	depEvent
)

type command struct {
	packet  []byte
	id      uint32
	cmd     jdwp.Command
	key     scache.Key // its key (scache.KeyOf)
	sent    time.Time  // recorded
	reply   []byte     // recorded reply, nil if none
	replied time.Time
	dep     dependency
	think   time.Duration // recorded time from the dependency's arrival to the send
	service time.Duration // recorded VM time
	epoch   era           // the suspension epoch it was sent in
	after   era           // the epoch after it (a resume ends one)
	gen     int           // redefinitions of the class it is about, when sent
	answer  int           // its reply's index in session.answers[its key]; -1 if none
	mark    runMark       // the thread it is about and where its runs stood, when sent
}

// An era is a suspension epoch and, within it, the values' epoch: scache's
// rules (EndsEpoch, ChangesValues) split the trace alike.
type era struct{ epoch, values int }

// next returns the era after a command or an event: events and EndsEpoch
// commands end the epoch, ChangesValues commands the values'.
func (e era) next(endsEpoch, changesValues bool) era {
	switch {
	case endsEpoch:
		return era{e.epoch + 1, e.values + 1}
	case changesValues:
		return era{e.epoch, e.values + 1}
	}
	return e
}

// atLeast returns the later of e and o. The Speculator that sends
// synthetic commands follows the trace's epochs as packets reach it, and
// they do not reach it in the recorded order: a debugger command recorded
// before an event may reach it after the event did (at a near half, frames
// the far half sent on that command's account). The epoch never goes back.
func (e era) atLeast(o era) era {
	if o.epoch > e.epoch || o.epoch == e.epoch && o.values > e.values {
		return o
	}
	return e
}

type event struct {
	packet []byte
	at     time.Time
	anchor int           // the command whose processing let the VM run to this event; -1 at start
	gap    time.Duration // from the anchor's reply to the event; if during, from its start
	// during marks an event that came before its anchor's reply: one the
	// VM sent while it served the anchor (a class an invocation loaded).
	during bool
	epoch  era // the epoch it begins: an event means the VM ran
}

// answer is a recorded reply to a keyable command, and its suspension epoch.
type answer struct {
	epoch era
	gen   int     // redefinitions of the class it is about, before it
	mark  runMark // the thread it is about and where its runs stood (parked.go)
	code  jdwp.ErrorCode
	data  []byte
}

// prepare reads a trace captured captureRTT away from the VM (the round trip
// of the link between the capture point and the VM; 0 for a capture next to
// it) and debuggerRTT away from the debugger: the VM got each command
// captureRTT/2 after it was captured and sent each reply captureRTT/2
// before; the debugger saw each packet from the VM debuggerRTT/2 after it
// was captured and its next command was captured debuggerRTT/2 after it
// sent it, so its think times are debuggerRTT shorter than recorded.
func prepare(t Trace, captureRTT, debuggerRTT time.Duration) *session {
	s := &session{answers: map[scache.Key][]answer{}, service: map[jdwp.Command]time.Duration{}, packets: len(t.Records),
		sizes: jdwp.DefaultIDSizes}
	byID := map[uint32]int{} // debugger command id → index, until answered
	last := dependency{}
	var lastAt time.Time
	lastVMDone := time.Time{}
	lastAnchor := -1
	epoch, gens := era{}, classGens{}
	var runs threadRuns
	var start time.Time
	if len(t.Records) > 0 {
		start = t.Records[0].Time
	}
	for _, r := range t.Records {
		h, err := jdwp.ParseHeader(r.Packet)
		if err != nil {
			continue
		}
		switch {
		case r.Direction == scache.Upstream && !h.IsReply():
			key, _ := scache.KeyOf(r.Packet)
			c := command{packet: r.Packet, id: h.ID, cmd: h.Cmd(), key: key, sent: r.Time, dep: last, epoch: epoch,
				gen: gens.of(key, s.sizes), answer: -1, mark: runs.mark(r.Packet, s.sizes)}
			if last.kind != depNone {
				c.think = nonNegative(r.Time.Sub(lastAt) - debuggerRTT)
			} else {
				c.think = nonNegative(r.Time.Sub(start))
			}
			byID[h.ID] = len(s.cmds)
			s.cmds = append(s.cmds, c)
			if scache.Keyable(c.cmd) {
				s.keyable++
			}
			if !scache.Keyable(c.cmd) {
				lastAnchor = len(s.cmds) - 1
			}
			epoch = epoch.next(scache.EndsEpoch(c.cmd), scache.ChangesValues(c.cmd))
			if c.cmd == jdwp.CmdVirtualMachineRedefineClasses {
				gens.redefine(c.packet, s.sizes)
			}
			runs.command(c.packet, s.sizes)
			s.cmds[len(s.cmds)-1].after = epoch
		case r.Direction == scache.Downstream && h.IsReply():
			i, ok := byID[h.ID]
			if !ok {
				continue
			}
			delete(byID, h.ID)
			c := &s.cmds[i]
			c.reply, c.replied = r.Packet, r.Time
			begin := c.sent.Add(captureRTT)
			if lastVMDone.After(begin) {
				begin = lastVMDone
			}
			c.service = max(r.Time.Sub(begin), time.Microsecond)
			lastVMDone = r.Time
			if c.cmd == jdwp.CmdVirtualMachineIDSizes && h.ErrorCode == jdwp.ErrNone {
				var m jdwp.VMIDSizesReply
				if jdwp.Unmarshal(jdwp.Data(r.Packet), jdwp.DefaultIDSizes, &m) == nil && m.Sizes.Validate() == nil {
					s.sizes = m.Sizes
				}
			}
			if scache.Keyable(c.cmd) {
				c.answer = len(s.answers[c.key])
				s.answers[c.key] = append(s.answers[c.key], answer{epoch: c.epoch, gen: c.gen, mark: c.mark, code: h.ErrorCode, data: jdwp.Data(r.Packet)})
			}
			last, lastAt = dependency{depReply, i}, r.Time
		case r.Direction == scache.Downstream:
			epoch = epoch.next(true, false)
			runs.event(r.Packet, s.sizes)
			e := event{packet: r.Packet, at: r.Time, anchor: lastAnchor, epoch: epoch}
			if lastAnchor >= 0 {
				ref := s.cmds[lastAnchor].replied
				if ref.IsZero() {
					// Before the anchor's reply: the VM sent it while it
					// served the anchor, which reached it captureRTT/2
					// after the capture, as the event left it
					// captureRTT/2 before.
					ref, e.during = s.cmds[lastAnchor].sent.Add(captureRTT), true
				}
				e.gap = nonNegative(r.Time.Sub(ref))
			} else {
				e.gap = nonNegative(r.Time.Sub(start))
			}
			s.events = append(s.events, e)
			last, lastAt = dependency{depEvent, len(s.events) - 1}, r.Time
		}
	}
	if captureRTT > 0 {
		s.takeOutTheLinksVariation()
	}
	// Service times of synthetic commands: the median of the recorded ones of
	// the same command, or of all; from a capture away from the VM, the
	// quickest of the command's, once it has minSamplesOfAKind (what is
	// above it there is mostly the link's).
	per := map[jdwp.Command][]time.Duration{}
	var all []time.Duration
	for _, c := range s.cmds {
		if c.reply != nil {
			per[c.cmd] = append(per[c.cmd], c.service)
			all = append(all, c.service)
		}
	}
	for cmd, d := range per {
		s.service[cmd] = median(d)
		if captureRTT > 0 && len(d) >= minSamplesOfAKind {
			s.service[cmd] = slices.Min(d)
		}
	}
	s.median = median(all)
	if s.median == 0 {
		s.median = 100 * time.Microsecond
	}
	s.stops = nameStops(t)
	return s
}

func nonNegative(d time.Duration) time.Duration { return max(d, 0) }

// minSamplesOfAKind is how many replies of one command a capture needs
// before the quickest of them is taken as that command's VM time.
const minSamplesOfAKind = 3

// takeOutTheLinksVariation takes the capture link's variation out of the
// VM times of a capture made away from the VM. There, a command's time past
// the quickest round trip is the VM's work plus however much longer than
// its quickest crossing the link took this time (jitter, a radio waking
// up). Left in, that time would be charged to the VM: for each speculated
// command too, queued one behind another at the simulated VM, and again by
// a link profile that draws its own jitter. The VM does the same command
// in about the same time, so the link's typical variation is estimated as
// the median of how far each reply came after the quickest of its command
// (commands seen at least minSamplesOfAKind times), and taken off every
// command's time, down to no less than its command's quickest.
func (s *session) takeOutTheLinksVariation() {
	quickest, count := map[jdwp.Command]time.Duration{}, map[jdwp.Command]int{}
	for _, c := range s.cmds {
		if c.reply == nil {
			continue
		}
		if q, ok := quickest[c.cmd]; !ok || c.service < q {
			quickest[c.cmd] = c.service
		}
		count[c.cmd]++
	}
	var above []time.Duration
	for _, c := range s.cmds {
		if c.reply != nil && count[c.cmd] >= minSamplesOfAKind {
			above = append(above, c.service-quickest[c.cmd])
		}
	}
	variation := median(above)
	for i := range s.cmds {
		c := &s.cmds[i]
		if c.reply == nil {
			continue
		}
		floor := time.Microsecond
		if count[c.cmd] >= minSamplesOfAKind {
			floor = max(floor, quickest[c.cmd])
		}
		c.service = max(c.service-variation, floor)
	}
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	d = append([]time.Duration(nil), d...)
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

// answerFor returns the recorded reply for a synthetic command's key in an
// epoch: the same epoch's when the trace has one, otherwise, for class
// metadata (true across suspensions), the nearest epoch's between the same
// redefinitions of its class, and for a thread's own state, one from an
// epoch in which the thread had not run since (mark: parked.go), and for
// state that moves while threads run (scache.MovingState), with none of
// its epoch, the first of the next or the last one. ok is false when the
// trace has no such reply.
func (s *session) answerFor(key scache.Key, epoch era, gen int, mark runMark) (answer, bool) {
	found := false
	var best answer
	state, values := scache.StateCommand(key.Command()), scache.ValueCommand(key.Command())
	for _, a := range s.answers[key] {
		if a.gen != gen || (state && a.epoch.epoch != epoch.epoch) || (values && a.epoch.values != epoch.values) {
			continue
		}
		if !found || abs(a.epoch.epoch-epoch.epoch) < abs(best.epoch.epoch-epoch.epoch) {
			best, found = a, true
		}
	}
	if found || !state {
		return best, found
	}
	if mark.thread != 0 {
		for _, a := range s.answers[key] {
			if a.gen == gen && a.mark == mark {
				return a, true
			}
		}
	}
	if scache.MovingState(key.Command()) {
		// At a near half an epoch may begin a packet earlier or later than
		// the recording's (era.atLeast): a speculated command the trace
		// holds no state of its epoch for is answered as the next (or the
		// last) epoch's first state. Served to a command of that epoch, it
		// is one of the states recorded there. Not the last epoch's state
		// of a thread that ran since (resumed alone, or an event of its
		// own): a VM never answers that after the thread ran.
		for _, d := range []int{1, -1} {
			for _, a := range s.answers[key] {
				if a.gen == gen && a.epoch.epoch == epoch.epoch+d && (d > 0 || !ranSince(a.mark, mark)) {
					return a, true
				}
			}
		}
		// Failing those, the next state recorded, the one the VM ran to
		// (threads stopping one after another begin several epochs before
		// the debugger asks the thread list): a VM never answers such a
		// command with an error.
		for _, a := range s.answers[key] {
			if a.gen == gen && a.epoch.epoch > epoch.epoch && (!found || a.epoch.epoch < best.epoch.epoch) {
				best, found = a, true
			}
		}
	}
	return best, found
}

// ranSince reports whether the thread of mark, a command's about a
// thread's own state, may have run on its own since an answer of mark
// then: a resume of it alone, or an event of its own, came between.
func ranSince(then, mark runMark) bool {
	return mark.thread != 0 && then.thread == mark.thread && then.own != mark.own
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// linkRTTFloor is the quickest reply that shows a link: captured next to the
// VM, replies to idle commands come within a fraction of a millisecond.
const linkRTTFloor = time.Millisecond

// estimateCaptureRTT estimates the round trip between the capture point and
// the VM: the quickest reply to a debugger command that found the VM idle
// (sent after the previous reply arrived), if at least linkRTTFloor; else 0.
func estimateCaptureRTT(t Trace) time.Duration {
	sent := map[uint32]time.Time{}
	var lastReply time.Time
	best := time.Duration(-1)
	for _, r := range t.Records {
		h, err := jdwp.ParseHeader(r.Packet)
		if err != nil {
			continue
		}
		switch {
		case r.Direction == scache.Upstream && !h.IsReply() && !scache.IsSyntheticID(h.ID):
			if !r.Time.Before(lastReply) {
				sent[h.ID] = r.Time
			}
		case r.Direction == scache.Downstream && h.IsReply():
			if at, ok := sent[h.ID]; ok {
				if d := r.Time.Sub(at); best < 0 || d < best {
					best = d
				}
				delete(sent, h.ID)
			}
			lastReply = r.Time
		}
	}
	if best < linkRTTFloor {
		return 0
	}
	return best
}

// estimateDebuggerRTT estimates the round trip between the capture point and
// the debugger: a debugger answers what it gets within a fraction of a
// millisecond, so when even the quick tenth of its commands come at least
// linkRTTFloor after the packet from the VM before them, that is the link;
// else 0.
func estimateDebuggerRTT(t Trace) time.Duration {
	var gaps []time.Duration
	var lastDown time.Time
	for _, r := range t.Records {
		h, err := jdwp.ParseHeader(r.Packet)
		if err != nil || scache.IsSyntheticID(h.ID) {
			continue
		}
		switch {
		case r.Direction == scache.Downstream:
			lastDown = r.Time
		case !h.IsReply() && !lastDown.IsZero():
			gaps = append(gaps, r.Time.Sub(lastDown))
		}
	}
	if len(gaps) < 10 {
		return 0
	}
	sort.Slice(gaps, func(i, j int) bool { return gaps[i] < gaps[j] })
	if g := gaps[len(gaps)/10]; g >= linkRTTFloor {
		return g
	}
	return 0
}
