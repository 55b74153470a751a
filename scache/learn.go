package scache

import "github.com/jdwpscache/scache/jdwp"

// Learning what this debugger asks. Debuggers differ (jdb, IDEs, a JDI
// tool), and one debugger asks less at the end of a step than at a
// breakpoint: speculating what it never asks only costs the VM's time and
// the link. So the Speculator counts, per site, whether what it sent about a
// stop answered the debugger before the stop ended. A site sent and unused
// at pauseAfter successive stops of its kind is paused; it is sent again at
// every probeEvery-th stop of that kind, and at once from the stop after
// the debugger asked for it itself. A stop's renderers (invocations) end
// its epochs, not its count: what the debugger reads once an invocation
// returned its thread counts for the stop, as sites of their own (after).
//
// Class metadata lives for the session, so it is counted for the session:
// a command of the frame set sent classTrial times or more and used less
// than once in classRatio is paused, sent again at every classProbe-th
// chance, and resumed as soon as one is used or the debugger asks for one.

const (
	// successive stops at which a site was sent and not used: one, as a
	// debugger's views change rarely within a session (measured: the used
	// share of the JDI driver's workloads goes from 0.58-0.60 to 0.68 at the
	// same wall time, the threads view no longer sent at every step)
	pauseAfter = 1
	probeEvery = 8 // a paused site is sent again at every probeEvery-th stop of its kind

	classTrial = 3  // class commands sent before their use is judged
	classRatio = 8  // used less than once in classRatio sent: paused
	classProbe = 16 // a paused class command is sent again at every classProbe-th chance
)

// A site is one kind of speculation about a stop: a command (for Frames,
// whether of the whole stack) at a stop that ended a step or not, about the
// stopped thread or another. jdb asks the stopped thread's name and status
// at every stop and never another's; an IDE's threads view asks them all.
type site struct {
	cmd   jdwp.Command
	whole bool // Frames of the whole stack
	kind  stopKind
	other bool // about another thread than the stopped one
	// after: once an invocation at the stop returned its thread. A
	// debugger reads after its renderers what it did not before (the
	// thread list, to resume), and not what it read before (the stop's
	// view): each is learned apart.
	after bool
}

// siteOf returns the site of a state command at the current stop.
func (l *learner) siteOf(m jdwp.CommandMessage) site {
	st := site{cmd: m.Command(), kind: l.stop.event.kind, after: l.stop.returned()}
	if f, ok := m.(*jdwp.ThreadFramesCommand); ok {
		st.whole = f.StartFrame == 0 && f.Length == -1
	}
	if t, ok := threadOf(m); ok && t != l.stop.event.thread && !l.stop.hasParkedStop(t) {
		st.other = true
	}
	return st
}

// learner owns the counts of one session; only its methods change them,
// told by the queue what went out (queue.go: learnSent) and by the
// upstream stages what answered the debugger or was asked (upstream.go).
// It reads the current stop from the stop's owner (stop.go) and keeps no
// copy of it.
type learner struct {
	// stop is the current stop (stop.go), read only: its kind, thread and
	// count, and whether its epoch goes on (the learner counts only then).
	stop  *stopState
	sites map[site]*siteUse
	class map[jdwp.Command]*classUse
	// resumed: at the current stop the debugger asked for a site that was
	// paused (a stop unlike the last of its kind: family_stop_walk.go).
	resumed bool
	// invoking: the debugger invokes a method (or pops frames) at the
	// current stop, and the epochs it ends (at the command and at its
	// reply) leave the stop's count open (held, of the stop numbered
	// heldSeq): once the thread is back, what the debugger reads counts
	// for the stop, until its real end.
	invoking    bool
	invokingSeq uint64 // the stop the invocation was sent at
	held        bool
	heldSeq     uint64
}

type classUse struct{ sent, used, hits, chances int }

func (l *learner) classOf(cmd jdwp.Command) *classUse {
	if l.class == nil {
		l.class = make(map[jdwp.Command]*classUse)
	}
	u := l.class[cmd]
	if u == nil {
		u = &classUse{}
		l.class[cmd] = u
	}
	return u
}

// allowsClass reports whether a class command of the frame set may be
// speculated now. One only some debuggers ask (askedFirst) waits until
// this one has asked it.
func (l *learner) allowsClass(cmd jdwp.Command) bool {
	u := l.classOf(cmd)
	u.chances++
	if askedFirst[cmd] && u.used == 0 {
		return false
	}
	return u.sent < classTrial || u.used*classRatio >= u.sent || u.chances%classProbe == 0
}

// askedFirst are the class commands of the frame set that only some
// debuggers ask: Eclipse's JDI (the Eclipse IDE's, VS Code's) asks every
// type's plain Signature and its ClassLoader, the JDK's never.
var askedFirst = map[jdwp.Command]bool{
	jdwp.CmdReferenceTypeSignature:   true,
	jdwp.CmdReferenceTypeClassLoader: true,
}

// classSent and classUsed count a class command sent, and used (or asked).
func (l *learner) classSent(cmd jdwp.Command) { l.classOf(cmd).sent++ }
func (l *learner) classUsed(cmd jdwp.Command) { l.classOf(cmd).used++ }

type siteUse struct {
	unused     int  // successive stops at which it was sent and not used
	sent, used bool // at the current stop
	wanted     bool // used or asked at some stop of the session
	// sentN and hitN count its commands speculated in the session, and
	// those of them whose reply answered the debugger: the odds of the
	// next one (odds).
	sentN, hitN int
}

func (l *learner) use(st site) *siteUse {
	if l.sites == nil {
		l.sites = make(map[site]*siteUse)
	}
	u := l.sites[st]
	if u == nil {
		u = &siteUse{}
		if l.paused(st) {
			u.unused = pauseAfter // as at the other kind of stop (see paused)
		}
		l.sites[st] = u
	}
	return u
}

// invoked notes that the debugger invokes a method or pops frames: the
// epoch ends (endStop), not the stop.
func (l *learner) invoked() { l.invoking, l.invokingSeq = true, l.stop.seq }

// settled notes that a command the debugger sent unsettled the suspension
// settled (onSettle): an invocation's epoch ended at its reply too.
func (l *learner) settled() { l.invoking = false }

// counting reports whether what is sent and used now counts for the
// current stop: its epoch goes on, or an invocation at it returned its
// thread where it stood and its count is held open. A count held open for
// an earlier stop is closed first.
func (l *learner) counting() bool {
	l.closeHeldOfAnother()
	return l.stop.on || l.held && l.stop.returned()
}

// closeHeldOfAnother closes a count held open for a stop that another
// has followed without its end being seen (an event during an invocation).
func (l *learner) closeHeldOfAnother() {
	if l.held && l.stop.on && l.stop.seq != l.heldSeq {
		l.held = false
		l.closeCount(false)
	}
}

// endStop closes the accounting of the current stop, if any: its epoch
// ended. A stop unseen (its thread stays parked: the debugger may not have
// looked at it yet) is not counted. An epoch an invocation ends leaves it
// open (invoked).
func (l *learner) endStop(unseen bool) {
	l.closeHeldOfAnother()
	if l.invoking && l.invokingSeq == l.stop.seq && (l.stop.on || l.held) {
		l.held, l.heldSeq = true, l.stop.seq
		return
	}
	if !l.stop.on && !l.held {
		return
	}
	l.held = false
	l.closeCount(unseen)
}

// closeCount closes the count of a stop: what was sent and not used is
// held back at the next stops of its kind.
func (l *learner) closeCount(unseen bool) {
	l.resumed = false
	for _, u := range l.sites {
		switch {
		case unseen:
		case u.used:
			u.unused = 0
		case u.sent:
			u.unused++
		}
		u.sent, u.used = false, false
	}
}

// allows reports whether the site of m may be speculated at the current stop.
func (l *learner) allows(m jdwp.CommandMessage) bool {
	if !l.stop.on {
		// Once an invocation returned the thread, what the debugger left
		// unused at its last stops of the kind stays held back.
		return !l.counting() || !l.paused(l.siteOf(m))
	}
	st := l.siteOf(m)
	if !l.paused(st) {
		return true
	}
	if l.stop.count[l.stop.event.kind]%probeEvery != 0 {
		return false
	}
	if st.other {
		// Another thread's name, status or frames follow the thread list:
		// probed only while the debugger uses the list, not once per
		// thread at every probe of a debugger that never asks for them.
		return !l.paused(site{cmd: jdwp.CmdVirtualMachineAllThreads, kind: l.stop.event.kind})
	}
	return true
}

// paused reports whether a site was sent and unused at its last stops. A
// site never sent at its kind of stop goes as it goes at its kin's
// (stopKind.kin), the best guess there is.
func (l *learner) paused(st site) bool {
	u := l.sites[st]
	if u == nil {
		kin := st
		kin.kind = st.kind.kin()
		u = l.sites[kin]
	}
	return u != nil && u.unused >= pauseAfter
}

// sent notes that the site of m was speculated at the current stop.
func (l *learner) sent(m jdwp.CommandMessage) {
	if l.counting() {
		u := l.use(l.siteOf(m))
		u.sent = true
		u.sentN++
	}
}

// used notes that the site of m answered the debugger at the current stop,
// or that the debugger asked it itself: either way it is wanted.
func (l *learner) used(m jdwp.CommandMessage) {
	if l.counting() {
		st := l.siteOf(m)
		l.resumed = l.resumed || !st.after && l.paused(st)
		u := l.use(st)
		u.used, u.unused, u.wanted = true, 0, true
	}
}

// wantedOfOthers reports whether the debugger ever asked, at a stop of
// either kind, for cmd (Frames: not of the whole stack) of a thread other
// than the stopped one. Speculation a debugger seldom wants (another
// thread's top frame) waits for that instead of being tried and paused.
func (l *learner) wantedOfOthers(cmd jdwp.Command) bool {
	for kind := range numStopKinds {
		for _, after := range []bool{false, true} {
			if u := l.sites[site{cmd: cmd, kind: kind, other: true, after: after}]; u != nil && u.wanted {
				return true
			}
		}
	}
	return false
}

// viewHeldBack reports whether the learner holds back the threads view
// at the current stop: other threads' statuses went unused at the last
// stops of its kind.
func (l *learner) viewHeldBack() bool {
	return l.paused(site{cmd: jdwp.CmdThreadReferenceStatus, kind: l.stop.event.kind, other: true})
}

// hit notes that a speculated command of m's site answered the debugger.
func (l *learner) hit(m jdwp.CommandMessage) {
	if l.counting() {
		l.use(l.siteOf(m)).hitN++
	}
}

// odds returns the chance that the debugger uses a command of m's site
// speculated now: of its commands speculated in the session, the share
// that answered the debugger ((hits+1)/(sent+2): a half before any was
// sent).
func (l *learner) odds(m jdwp.CommandMessage) float64 {
	u := l.sites[l.siteOf(m)]
	if u == nil {
		return 0.5
	}
	return ratioOdds(u.hitN, u.sentN)
}

// classOdds returns the chance that the debugger uses a class command cmd
// speculated now.
func (l *learner) classOdds(cmd jdwp.Command) float64 {
	u := l.classOf(cmd)
	return ratioOdds(u.hits, u.sent)
}

// odds returns the chance that the debugger uses the speculated command
// m: what the learner counted of its kind in this session; high for a
// command the debugger asked itself at its recent stops (asked), even for
// what is not learned (an object's type).
func (l *learner) oddsOf(m jdwp.CommandMessage, spec keySpec, asked bool) float64 {
	switch {
	case asked:
		return 0.9
	case spec.life == lifetimeSuspension:
		return l.odds(m)
	case spec.life == lifetimeClass:
		return l.classOdds(m.Command())
	}
	return 0.5
}

// ratioOdds is (hits+1)/(sent+2), at most 1.
func ratioOdds(hits, sent int) float64 {
	return min(1, float64(hits+1)/float64(sent+2))
}
