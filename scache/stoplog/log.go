package stoplog

import (
	"sort"
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
)

// A Record is one stop as the debugger lived it: from the event that
// stopped a thread at a location (with a suspend policy) to the debugger's
// resume (or Dispose, or Exit).
type Record struct {
	Thread   jdwp.ThreadID
	Location jdwp.Location
	// Where names Location in source terms, Class.method:line
	// (com.example.Loop.step:6), and ThreadName the thread, from what the
	// debugger asked during the session (names.go); ids stand in for
	// what it never asked, and ThreadName is empty.
	Where      string
	ThreadName string
	Step       bool      // the stop ended a single step
	Start      time.Time // the event reached the debugger
	End        time.Time // the debugger resumed
	// Asked counts the debugger's commands during the stop, event requests
	// aside (they set up the next stop: no speculation saves them);
	// Answered those answered from speculation (the cache, a reply in flight).
	Asked, Answered int
	// Forwarded counts, by command, the debugger's commands of the stop
	// that went to the VM (nothing answered them from speculation), event
	// requests aside: what speculation left to the link.
	Forwarded map[jdwp.Command]int
	// Wait is how long some of them awaited a reply; RoundTrips is Wait in
	// round trips to the VM (measured as the quickest reply to a command
	// forwarded so far in the session, at a stop or not), 0 below a
	// millisecond's round trip.
	Wait       time.Duration
	RoundTrips float64
	// ChangeWait is the part of Wait during which only commands that change
	// the debuggee (scache.ChangesDebuggee: setting a value, a hot swap, popping
	// frames) were awaited: their replies must come from the VM once it has
	// made the change, so no speculation can save them. InspectionRoundTrips
	// is the rest of Wait, the inspection, in round trips.
	ChangeWait           time.Duration
	InspectionRoundTrips float64
	// Invocations counts the debugger's invocations during the stop (a
	// renderer's toString, jdb's print): their replies come when the
	// method returns in the VM, so each costs its round trip whatever a
	// proxy does. InvocationWait is the part of the inspection's wait
	// during which only invocations were awaited, and
	// BeyondInvocationsRoundTrips the rest of the inspection, in round
	// trips: what a proxy could still save.
	Invocations                 int
	InvocationWait              time.Duration
	BeyondInvocationsRoundTrips float64
}

// waitSpan is the time a stop's command awaited its reply.
type waitSpan struct {
	from, to time.Time
	change   bool // the command changes the debuggee (ChangesDebuggee)
	invoke   bool // the command is an invocation
}

// A Log turns a session's journal into Records: give it every journal
// entry in order (as a Relay's or Proxy's WithJournal function does). Done,
// if set, is called with each stop as it ends. It is not safe for concurrent
// use: a Relay calls its journal one entry at a time.
type Log struct {
	Done func(Record)

	sizes   jdwp.IDSizes
	idSizes uint32 // the id of the debugger's IDSizes command, to learn the sizes
	stops   []Record
	cur     *Record
	asked   map[uint32]waitSpan // the current stop's commands awaiting a reply, by id
	spans   []waitSpan
	// forwarded holds the commands forwarded to the VM awaiting a reply,
	// at most maxTimed, and rtt the quickest reply to one: all a stop's
	// commands may be answered from speculation, and the round trip is
	// still known from the resumes and requests between stops.
	forwarded map[uint32]time.Time
	rtt       time.Duration
	names     sourceNames // what the debugger learned of classes, methods, lines and threads
}

// maxTimed bounds the forwarded commands a Log times at once.
const maxTimed = 256

// Add takes the next journal entry; its packet is not kept.
func (l *Log) Add(e scache.JournalEntry) {
	h, err := jdwp.ParseHeader(e.Packet)
	if err != nil || e.Synthetic {
		return
	}
	if l.sizes == (jdwp.IDSizes{}) {
		l.sizes = jdwp.DefaultIDSizes
	}
	switch {
	case e.Direction == scache.Upstream && !h.IsReply():
		l.command(e, h)
	case e.Direction == scache.Downstream && h.IsReply():
		l.reply(e, h)
	case e.Direction == scache.Downstream && h.Cmd() == jdwp.CmdEventComposite:
		l.event(e)
	}
}

func (l *Log) command(e scache.JournalEntry, h jdwp.Header) {
	if h.Cmd() == jdwp.CmdVirtualMachineIDSizes {
		l.idSizes = h.ID
	}
	l.names.command(h.ID, h.Cmd(), jdwp.Data(e.Packet), l.sizes)
	if !e.Hit && !e.Held {
		if l.forwarded == nil {
			l.forwarded = make(map[uint32]time.Time)
		}
		if len(l.forwarded) < maxTimed {
			l.forwarded[h.ID] = e.Time
		}
	}
	if l.cur == nil {
		return
	}
	switch h.Cmd() {
	case jdwp.CmdVirtualMachineResume, jdwp.CmdThreadReferenceResume,
		jdwp.CmdVirtualMachineDispose, jdwp.CmdVirtualMachineExit:
		l.end(e.Time)
		return
	}
	if h.Cmd().Set == jdwp.SetEventRequest {
		return
	}
	l.cur.Asked++
	if l.asked == nil {
		l.asked = make(map[uint32]waitSpan)
	}
	invoke := scache.Invokes(h.Cmd())
	if invoke {
		l.cur.Invocations++
	}
	l.asked[h.ID] = waitSpan{from: e.Time, change: scache.ChangesDebuggee(h.Cmd()), invoke: invoke}
	if e.Hit || e.Held {
		l.cur.Answered++
	} else {
		if l.cur.Forwarded == nil {
			l.cur.Forwarded = make(map[jdwp.Command]int)
		}
		l.cur.Forwarded[h.Cmd()]++
	}
}

func (l *Log) reply(e scache.JournalEntry, h jdwp.Header) {
	if h.ID == l.idSizes && h.ErrorCode == jdwp.ErrNone {
		var m jdwp.VMIDSizesReply
		if jdwp.Unmarshal(jdwp.Data(e.Packet), jdwp.DefaultIDSizes, &m) == nil && m.Sizes.Validate() == nil {
			l.sizes = m.Sizes
		}
	}
	l.names.reply(h.ID, h.ErrorCode, jdwp.Data(e.Packet), l.sizes)
	if at, ok := l.forwarded[h.ID]; ok && !e.Hit {
		delete(l.forwarded, h.ID)
		if d := e.Time.Sub(at); l.rtt == 0 || d < l.rtt {
			l.rtt = d
		}
	}
	span, ok := l.asked[h.ID]
	if !ok {
		return
	}
	delete(l.asked, h.ID)
	span.to = e.Time
	l.spans = append(l.spans, span)
}

func (l *Log) event(e scache.JournalEntry) {
	var c jdwp.Composite
	if jdwp.Unmarshal(jdwp.Data(e.Packet), l.sizes, &c) != nil {
		return
	}
	for _, ev := range c.Events {
		if p, ok := ev.(*jdwp.ClassPrepareEvent); ok {
			l.names.class(p.TypeID, p.Signature)
		}
	}
	if c.SuspendPolicy == jdwp.SuspendPolicyNone {
		return
	}
	for _, ev := range c.Events {
		loc, ok := jdwp.EventLocation(ev)
		t, ok2 := jdwp.EventThread(ev)
		if ok && ok2 {
			if l.cur != nil {
				l.end(e.Time) // an event while stopped: the previous stop ends
			}
			l.cur = &Record{Thread: t, Location: loc, Step: ev.Kind() == jdwp.EventSingleStep, Start: e.Time}
			return
		}
	}
}

// end closes the current stop at t.
func (l *Log) end(t time.Time) {
	st := l.cur
	l.cur = nil
	st.End = t
	st.Where, st.ThreadName = l.names.where(st.Location), l.names.threads[st.Thread]
	sort.Slice(l.spans, func(i, j int) bool { return l.spans[i].from.Before(l.spans[j].from) })
	st.Wait = covered(l.spans, t, func(waitSpan) bool { return true })
	inspection := covered(l.spans, t, func(s waitSpan) bool { return !s.change })
	beyond := covered(l.spans, t, func(s waitSpan) bool { return !s.change && !s.invoke })
	st.ChangeWait = st.Wait - inspection
	st.InvocationWait = inspection - beyond
	if l.rtt >= time.Millisecond {
		st.RoundTrips = float64(st.Wait) / float64(l.rtt)
		st.InspectionRoundTrips = float64(inspection) / float64(l.rtt)
		st.BeyondInvocationsRoundTrips = float64(beyond) / float64(l.rtt)
	}
	l.spans, l.asked = l.spans[:0], nil
	l.stops = append(l.stops, *st)
	if l.Done != nil {
		l.Done(*st)
	}
}

// covered returns how long, until end, at least one of the spans (sorted
// by start) that count was under way.
func covered(spans []waitSpan, end time.Time, count func(waitSpan) bool) time.Duration {
	var total time.Duration
	var until time.Time
	for _, s := range spans {
		if !count(s) {
			continue
		}
		a, b := s.from, s.to
		if b.After(end) {
			b = end
		}
		if until.After(a) {
			a = until
		}
		if b.After(a) {
			total += b.Sub(a)
			until = b
		}
	}
	return total
}

// Stops returns the stops that ended so far.
func (l *Log) Stops() []Record { return append([]Record(nil), l.stops...) }

// Reset forgets everything, for the next session.
func (l *Log) Reset() { *l = Log{Done: l.Done} }
