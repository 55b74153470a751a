package scache_test

import (
	"testing"
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
)

// eventThreadStop has three threads run, stops thread 1 under suspend
// policy EVENT_THREAD once, where the debugger asks its name and shows its
// threads view, and
// stops it again: the Speculator knows the threads and that the view is
// wanted, and threads 2 and 3 run.
func eventThreadStop(t *testing.T, opts ...scache.Option) *harness {
	h := threadsWorld(t, 3, false, append([]scache.Option{scache.WithFamilies(scache.FamilyThreads | scache.FamilyStop)}, opts...)...)
	ask(h, &jdwp.VMIDSizesCommand{})
	ask(h, &jdwp.VMResumeCommand{})
	h.stopEvent(1, jdwp.SuspendPolicyEventThread)
	h.drain()
	// As JDI: the stopped thread's name with the event, then the view.
	for _, m := range append([]jdwp.CommandMessage{&jdwp.ThreadNameCommand{Thread: 1}}, threadsView(false)...) {
		got, want := ask(h, m)
		require.Equal(t, want, got, "%s", m.Command())
	}
	ask(h, &jdwp.ThreadResumeCommand{Thread: 1})
	h.stopEvent(1, jdwp.SuspendPolicyEventThread)
	h.drain()
	return h
}

// threadsView is what a JDI threads view asks: the list, then each
// thread's status and name (or name and status).
func threadsView(nameFirst bool) []jdwp.CommandMessage {
	view := []jdwp.CommandMessage{&jdwp.VMAllThreadsCommand{}}
	for _, t := range []jdwp.ThreadID{1, 2, 3} {
		status, name := jdwp.CommandMessage(&jdwp.ThreadStatusCommand{Thread: t}), jdwp.CommandMessage(&jdwp.ThreadNameCommand{Thread: t})
		if nameFirst {
			status, name = name, status
		}
		view = append(view, status, name)
	}
	return view
}

// TestRunningThreadsViewServedFromTheStop: under Sequential (the default),
// at a stop that suspends only its thread, the threads view of the
// running ones goes out with the stop and answers the debugger, each reply
// the VM's answer then.
func TestRunningThreadsViewServedFromTheStop(t *testing.T) {
	h := eventThreadStop(t)
	sent := len(h.toVM)
	for _, m := range threadsView(false) {
		got, want := ask(h, m)
		require.Equal(t, want, got, "%s", m.Command())
		require.Equal(t, sent, len(h.toVM), "%s answered from the stop's speculation", m.Command())
	}

	h = eventThreadStop(t, scache.WithConsistency(scache.Linearizable))
	sent = len(h.toVM)
	got, want := ask(h, &jdwp.ThreadStatusCommand{Thread: 2})
	require.Equal(t, want, got)
	require.Equal(t, sent+1, len(h.toVM), "under Linearizable a running thread's status is the VM's, asked then")
}

// TestTheStoppedThreadsNameAgainInTheView: JDI asks the stopped thread's
// name at the stop, then again in its threads view, after the list and the
// thread's status. The name goes out twice, once where each ask stands, so
// that neither answer is older than one the debugger saw before it: the
// whole view is answered from the stop's speculation.
func TestTheStoppedThreadsNameAgainInTheView(t *testing.T) {
	h := eventThreadStop(t)
	sent := len(h.toVM)
	view := append([]jdwp.CommandMessage{&jdwp.ThreadNameCommand{Thread: 1}}, threadsView(false)...)
	for _, m := range view {
		got, want := ask(h, m)
		require.Equal(t, want, got, "%s", m.Command())
		require.Equal(t, sent, len(h.toVM), "%s answered from the stop's speculation", m.Command())
	}
}

// TestAMovingReplyOlderThanOneDeliveredIsNotServed: rule (a). The
// debugger got a reply that tells a later state (another thread's depth,
// asked of the VM after the threads ran on): a status speculated before
// it would take the debugger back in time, and is asked of the VM.
func TestAMovingReplyOlderThanOneDeliveredIsNotServed(t *testing.T) {
	h := eventThreadStop(t)
	ask(h, &jdwp.VMAllThreadsCommand{})
	h.vm.Tick(3) // threads 2 and 3 run on: their status changes
	got, want := ask(h, &jdwp.ThreadFrameCountCommand{Thread: 3})
	require.Equal(t, want, got)
	sent := len(h.toVM)
	got, want = ask(h, &jdwp.ThreadStatusCommand{Thread: 2})
	require.Equal(t, want, got, "the status now, not the one speculated at the stop")
	require.Equal(t, 1, organic(h.organicSince(sent)), "asked of the VM")
}

// TestTheDebuggersWriteIsSeenByWhatFollows: rule (b). A debugger that
// changed something (here a local's value) and asks a running thread's
// status before the VM answered the change gets the VM's answer, which
// comes after the change: the debugger's own writes are visible in every
// answer it gets after them. (Once the write's reply reached the
// debugger, rule (a) alone keeps what was speculated before it out.)
func TestTheDebuggersWriteIsSeenByWhatFollows(t *testing.T) {
	h := eventThreadStop(t)
	ask(h, &jdwp.VMAllThreadsCommand{})
	th := h.vm.Thread(1)
	frame := h.vm.FrameID(th, th.Generation, 0)
	sent := len(h.toVM)
	h.sendRaw(jdwp.AppendCommand(nil, 900, jdwp.CmdStackFrameSetValues, jdwp.Marshal(&setValues{1, frame, 0, 77}, sizes8)))
	got, want := ask(h, &jdwp.ThreadStatusCommand{Thread: 2}) // pipelined behind the write
	require.Equal(t, want, got)
	require.Equal(t, 2, organic(h.organicSince(sent)), "asked of the VM behind the write")
}

// TestAViewAskedInAnotherOrder: a debugger that asks a thread's name
// before its status gets the name from speculation; the status,
// speculated before the name, would go back in time and is asked of the
// VM. Every reply is the VM's.
func TestAViewAskedInAnotherOrder(t *testing.T) {
	h := eventThreadStop(t)
	ask(h, &jdwp.VMAllThreadsCommand{})
	sent := len(h.toVM)
	got, want := ask(h, &jdwp.ThreadNameCommand{Thread: 2})
	require.Equal(t, want, got)
	require.Equal(t, sent, len(h.toVM), "the name from speculation")
	got, want = ask(h, &jdwp.ThreadStatusCommand{Thread: 2})
	require.Equal(t, want, got)
	require.Equal(t, 1, organic(h.organicSince(sent)), "the status speculated before the name is asked of the VM")
}

// TestTheDebuggersSuspendIsSeenByTheStatusAskedAfterIt: rule (b) with the
// write the issue names. A debugger that suspends a running thread and
// asks its status right behind gets the status the VM gives after the
// suspension (suspended), not the one speculated while the thread ran.
func TestTheDebuggersSuspendIsSeenByTheStatusAskedAfterIt(t *testing.T) {
	h := eventThreadStop(t)
	ask(h, &jdwp.VMAllThreadsCommand{})
	sent := len(h.toVM)
	h.sendRaw(jdwp.AppendCommand(nil, 901, jdwp.CmdThreadReferenceSuspend, jdwp.Marshal(&jdwp.ThreadStatusCommand{Thread: 2}, sizes8)))
	got, _ := ask(h, &jdwp.ThreadStatusCommand{Thread: 2}) // pipelined behind the Suspend
	now := h.vm.Clone().Handle(jdwp.AppendCommandPacket(nil, jdwp.PacketID(got), &jdwp.ThreadStatusCommand{Thread: 2}, sizes8))
	require.Equal(t, now, got, "the VM's answer after the Suspend")
	var status jdwp.ThreadStatusReply
	require.NoError(t, jdwp.Unmarshal(jdwp.Data(got), sizes8, &status))
	require.NotZero(t, status.SuspendStatus, "the thread is suspended in the answer")
	require.Equal(t, 2, organic(h.organicSince(sent)), "asked of the VM behind the Suspend")
}

// TestAnEventBetweenTheSpeculationAndTheAsk: thread 3 hits a breakpoint
// after the stop's view was speculated, its event reaches the debugger,
// and then the debugger asks thread 3's status: the status speculated
// while thread 3 ran would take the debugger back before the event, and
// is not served.
func TestAnEventBetweenTheSpeculationAndTheAsk(t *testing.T) {
	h := eventThreadStop(t)
	ask(h, &jdwp.VMAllThreadsCommand{})
	h.stopEvent(3, jdwp.SuspendPolicyEventThread)
	h.drain()
	got, want := ask(h, &jdwp.ThreadStatusCommand{Thread: 3})
	require.Equal(t, want, got, "the status after the event")
	var status jdwp.ThreadStatusReply
	require.NoError(t, jdwp.Unmarshal(jdwp.Data(got), sizes8, &status))
	require.NotZero(t, status.SuspendStatus, "suspended at its breakpoint")
}

// organic counts the debugger's commands of counts (harness.organicSince).
func organic(counts map[jdwp.Command]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// TestAMissOfTheViewAsksTheRestAgain: once a running thread's status goes
// to the VM (rule a kept what was speculated out), its reply is newer
// than the rest of the view speculated at the stop; the view goes out
// again right behind it, and the debugger's next asks are answered from
// that, each the VM's answer, none asked of the VM.
func TestAMissOfTheViewAsksTheRestAgain(t *testing.T) {
	h := eventThreadStop(t)
	ask(h, &jdwp.VMAllThreadsCommand{})
	h.vm.Tick(3)
	ask(h, &jdwp.ThreadFrameCountCommand{Thread: 3}) // a later state delivered
	sent := len(h.toVM)
	got, want := ask(h, &jdwp.ThreadStatusCommand{Thread: 2})
	require.Equal(t, want, got)
	require.Equal(t, 1, organic(h.organicSince(sent)), "the status, older than the depth, asked of the VM")
	sent = len(h.toVM)
	for _, m := range []jdwp.CommandMessage{&jdwp.ThreadNameCommand{Thread: 2},
		&jdwp.ThreadStatusCommand{Thread: 3}, &jdwp.ThreadNameCommand{Thread: 3}} {
		got, want := ask(h, m)
		require.Equal(t, want, got, "%s", m.Command())
	}
	require.Zero(t, organic(h.organicSince(sent)), "the rest of the view, asked again behind the miss, answers")
}

// slowLink plays the harness's VM behind a link of round trip link, serving
// one command per service, on a clock of its own (the Speculator's): a
// command reaches the VM half a round trip after it was sent, waits for
// the ones before it, and its reply arrives half a round trip after its
// service.
type slowLink struct {
	h             *harness
	now, vmFree   time.Time
	link, service time.Duration
	sentAt        []time.Time // of h.vmQueue's commands
}

func (l *slowLink) clock() time.Time { return l.now }

// sync dates the commands queued since the last call: sent now.
func (l *slowLink) sync() {
	for len(l.sentAt) < len(l.h.vmQueue) {
		l.sentAt = append(l.sentAt, l.now)
	}
}

// drain lets the VM answer every queued command, the clock moving to
// each reply's arrival.
func (l *slowLink) drain() {
	for l.sync(); len(l.h.vmQueue) > 0; l.sync() {
		start := l.sentAt[0].Add(l.link / 2)
		if l.vmFree.After(start) {
			start = l.vmFree
		}
		l.vmFree = start.Add(l.service)
		if arrival := l.vmFree.Add(l.link / 2); arrival.After(l.now) {
			l.now = arrival
		}
		l.sentAt = l.sentAt[1:]
		l.h.step()
	}
}

// ask is the package's ask, on the slow link.
func (l *slowLink) ask(m jdwp.CommandMessage) (got, want []byte) {
	id := l.h.nextID
	want = l.h.vm.Clone().Handle(jdwp.AppendCommandPacket(nil, id, m, sizes8))
	l.h.send(m)
	l.drain()
	return l.h.replyTo(id), want
}

// stop stops thread 1 at an EVENT_THREAD breakpoint, and lets the
// speculation it starts come back.
func (l *slowLink) stop() {
	l.h.stopEvent(1, jdwp.SuspendPolicyEventThread)
	l.drain()
}

// slowEventThreadStop is eventThreadStop next to a VM known to be slow (a
// 0.5 ms service) behind a 10 ms round trip, made with opts too.
func slowEventThreadStop(t *testing.T, opts ...scache.Option) *slowLink {
	l := &slowLink{now: time.Unix(1000, 0), link: 10 * time.Millisecond, service: 500 * time.Microsecond}
	opts = append([]scache.Option{scache.WithFamilies(scache.FamilyThreads | scache.FamilyStop), scache.WithClock(l.clock)}, opts...)
	l.h = threadsWorld(t, 3, false, opts...)
	l.ask(&jdwp.VMIDSizesCommand{})
	l.ask(&jdwp.VMResumeCommand{})
	for range 2 {
		l.stop()
		for _, m := range append([]jdwp.CommandMessage{&jdwp.ThreadNameCommand{Thread: 1}}, threadsView(false)...) {
			got, want := l.ask(m)
			require.Equal(t, want, got, "%s", m.Command())
		}
		l.ask(&jdwp.ThreadResumeCommand{Thread: 1})
	}
	l.stop()
	st := l.h.s.Stats()
	require.GreaterOrEqual(t, st.ServiceTime, 200*time.Microsecond, "the VM is known to be slow")
	require.Greater(t, st.RoundTrip, 5*time.Millisecond, "behind a link")
	return l
}

// deliverALaterState has the debugger read the list, let thread 3 run
// and read its depth: a state later than the view's delivered, so that
// thread 2's status, asked next, misses.
func deliverALaterState(l *slowLink) {
	l.ask(&jdwp.VMAllThreadsCommand{})
	l.h.vm.Tick(3)
	l.ask(&jdwp.ThreadFrameCountCommand{Thread: 3})
}

// readsOverlap has the debugger read as a parallel client does: after a
// later state was delivered, thread 2's status misses, and thread 3's
// name is sent while it is unanswered.
func readsOverlap(l *slowLink) {
	deliverALaterState(l)
	l.h.send(&jdwp.ThreadStatusCommand{Thread: 2})
	l.h.send(&jdwp.ThreadNameCommand{Thread: 3})
	l.drain()
}

// missTheView has the debugger miss the view (deliverALaterState, then
// thread 2's status), and returns how many of the rest of the view's
// reads then went to the VM, each answer the VM's.
func missTheView(t *testing.T, l *slowLink) int {
	deliverALaterState(l)
	l.ask(&jdwp.ThreadStatusCommand{Thread: 2})
	sent := len(l.h.toVM)
	for _, m := range []jdwp.CommandMessage{&jdwp.ThreadNameCommand{Thread: 2},
		&jdwp.ThreadStatusCommand{Thread: 3}, &jdwp.ThreadNameCommand{Thread: 3}} {
		got, want := l.ask(m)
		require.Equal(t, want, got, "%s", m.Command())
	}
	return organic(l.h.organicSince(sent))
}

// TestOnASlowVMTheViewGoesAgainForAReaderOfOneAtATime: next to a VM known
// to be slow, behind a link, a miss of the view asks the rest again for a
// debugger that reads one command at a time: each read the view answers
// would cost it a round trip and a service time. Once the debugger has
// sent a read while another was unanswered (a parallel client, whose
// misses overlap), a miss asks nothing again there.
func TestOnASlowVMTheViewGoesAgainForAReaderOfOneAtATime(t *testing.T) {
	l := slowEventThreadStop(t)
	require.Zero(t, missTheView(t, l), "one at a time: the rest of the view, asked again behind the miss, answers")

	l = slowEventThreadStop(t)
	readsOverlap(l)
	l.ask(&jdwp.ThreadResumeCommand{Thread: 1})
	l.stop()
	require.Positive(t, missTheView(t, l), "reads that overlapped: nothing asked again on a slow VM")
}

// TestTheDebuggersAskTakesTheQueuedTwinsPlace: a parallel debugger next
// to a slow VM asks a running thread's name before the name speculated at
// the stop went out (the in-flight bound held it in the queue). Its own
// command goes to the VM in the speculation's place: the VM is asked the
// name once, and the reply is the VM's.
func TestTheDebuggersAskTakesTheQueuedTwinsPlace(t *testing.T) {
	l := slowEventThreadStop(t, scache.WithMaxInFlight(3))
	readsOverlap(l)
	l.ask(&jdwp.ThreadResumeCommand{Thread: 1})
	l.h.stopEvent(1, jdwp.SuspendPolicyEventThread)
	sent, replaced := len(l.h.toVM), l.h.s.Stats().Replaced
	l.h.send(&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1})
	id := l.h.nextID
	want := l.h.vm.Clone().Handle(jdwp.AppendCommandPacket(nil, id, &jdwp.ThreadNameCommand{Thread: 3}, sizes8))
	l.h.send(&jdwp.ThreadNameCommand{Thread: 3})
	require.Equal(t, 1, l.h.reachedVM(id), "asked of the VM at once")
	l.drain()
	require.Equal(t, want, l.h.replyTo(id))
	names := 0
	for _, p := range l.h.toVM[sent:] {
		if ph, _ := jdwp.ParseHeader(p); ph.Cmd() == jdwp.CmdThreadReferenceName && jdwp.Data(p)[7] == 3 {
			names++
		}
	}
	require.Equal(t, 1, names, "thread 3's name asked once, the debugger's")
	require.Equal(t, replaced+1, l.h.s.Stats().Replaced)
}

// TestOnASlowVMAParallelReadersViewGoesOnceAtTheStop: next to a VM known
// to be slow, for a debugger whose reads overlap (a parallel client), the
// view of a stop asks each thread's status and name once, though both
// FamilyAgain (what it asked at its last stops) and the threads view ask
// them: a second copy would cost the VM's service and could only answer
// a read in another order, which on a slow VM costs more than the round
// trip it saves (as askViewAgain's copies). A debugger that reads one at
// a time reads in the order they went out, and needs none.
func TestOnASlowVMAParallelReadersViewGoesOnceAtTheStop(t *testing.T) {
	for _, overlap := range []bool{false, true} {
		l := slowEventThreadStop(t, scache.WithFamilies(scache.FamilyThreads|scache.FamilyStop|scache.FamilyAgain))
		if overlap {
			readsOverlap(l)
		}
		l.ask(&jdwp.ThreadResumeCommand{Thread: 1})
		sent := len(l.h.toVM)
		l.stop()
		most := 0
		for _, cmd := range []jdwp.Command{jdwp.CmdThreadReferenceStatus, jdwp.CmdThreadReferenceName} {
			asked := map[byte]int{}
			for _, p := range l.h.toVM[sent:] {
				if ph, _ := jdwp.ParseHeader(p); !ph.IsReply() && ph.Cmd() == cmd && scache.IsSyntheticID(ph.ID) {
					asked[jdwp.Data(p)[7]]++
					most = max(most, asked[jdwp.Data(p)[7]])
				}
			}
			require.NotEmpty(t, asked, "overlap %v: %s speculated at the stop", overlap, cmd)
		}
		require.Equal(t, 1, most, "overlap %v: each thread's status and name asked once", overlap)
	}
}
