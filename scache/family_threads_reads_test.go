package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
)

// readsOutOfOrder is a threads view read as a parallel client's workers
// read it: the list, then the threads' status and name, the last thread
// first.
func readsOutOfOrder() []jdwp.CommandMessage {
	reads := []jdwp.CommandMessage{&jdwp.VMAllThreadsCommand{}}
	for _, t := range []jdwp.ThreadID{3, 2, 1} {
		reads = append(reads, &jdwp.ThreadStatusCommand{Thread: t}, &jdwp.ThreadNameCommand{Thread: t})
	}
	return reads
}

// TestReadsOutOfOrderAreAskedInTheirOrderAtTheNextStop: a debugger that
// reads the view of running threads in another order than the view's
// misses under rule (a) (thread 2's status, speculated before thread 3's,
// comes after it). At its next stop of the same kind, its reads go out
// again in the order it read them, behind the view, and every read is
// answered from speculation, each the VM's answer. A debugger that read
// in the view's order has its reads asked no more than the view (a VM not
// known to be fast gets none either: TestAFastVMIsKnownFromItsService).
func TestReadsOutOfOrderAreAskedInTheirOrderAtTheNextStop(t *testing.T) {
	h := eventThreadStop(t)
	require.NotZero(t, readView(t, h, readsOutOfOrder()), "read out of order, the view misses at the first stop")
	stopAgain(h)
	require.Zero(t, readView(t, h, readsOutOfOrder()), "the reads, asked again in their order, answer at the next stop")

	// In the view's order: nothing missed, nothing asked again.
	h = eventThreadStop(t)
	require.LessOrEqual(t, statusesAtTheNextStop(h, threadsView(false)), 3, "one view's statuses at the stop")
}

// readView has the debugger read reads in order, each answered as the VM
// would, and returns how many of them went to the VM.
func readView(t *testing.T, h *harness, reads []jdwp.CommandMessage) int {
	t.Helper()
	sent := len(h.toVM)
	for _, m := range reads {
		got, want := ask(h, m)
		require.Equal(t, want, got, "%s", m.Command())
	}
	return organic(h.organicSince(sent))
}

// stopAgain resumes the stopped thread 1 and stops it again under
// EVENT_THREAD, letting the speculation of the stop come back.
func stopAgain(h *harness) {
	ask(h, &jdwp.ThreadResumeCommand{Thread: 1})
	h.stopEvent(1, jdwp.SuspendPolicyEventThread)
	h.drain()
}

// statusesAtTheNextStop has the debugger read the view with reads, resume
// the stopped thread 1 and stop it again, and counts the statuses asked of
// the VM at that stop.
func statusesAtTheNextStop(h *harness, reads []jdwp.CommandMessage) int {
	for _, m := range reads {
		ask(h, m)
	}
	ask(h, &jdwp.ThreadResumeCommand{Thread: 1})
	before := len(h.toVM)
	h.stopEvent(1, jdwp.SuspendPolicyEventThread)
	h.drain()
	statuses := 0
	for _, p := range h.toVM[before:] {
		if hd, err := jdwp.ParseHeader(p); err == nil && hd.Cmd() == jdwp.CmdThreadReferenceStatus {
			statuses++
		}
	}
	return statuses
}

// writeLocal has the debugger set thread 1's top local (slot 0) to value,
// and waits for the reply.
func writeLocal(h *harness, value int32) { writeLocalIn(h, 1, value) }

// writeLocalIn is writeLocal in thread thread's top frame.
func writeLocalIn(h *harness, thread jdwp.ThreadID, value int32) {
	th := h.vm.Thread(thread)
	frame := h.vm.FrameID(th, th.Generation, 0)
	id := h.nextID
	h.nextID++
	h.sendRaw(jdwp.AppendCommand(nil, id, jdwp.CmdStackFrameSetValues, jdwp.Marshal(&setValues{thread, frame, 0, value}, sizes8)))
	h.drain()
	h.replyTo(id)
}

// TestTheViewReadAfterAWriteGoesOutBehindTheWrite: a debugger that edits a
// value at its stop and then shows its threads view (as an IDE refreshes
// after an edit) finds every reply speculated at the stop older than the
// write's, which rule (b) keeps from answering after it: at the first such
// stop the view misses. At the next stop of the kind, the view read after
// the write goes out again right behind the debugger's write, and answers
// every read, each the VM's answer; a debugger that reads nothing after
// its write gets nothing behind it.
func TestTheViewReadAfterAWriteGoesOutBehindTheWrite(t *testing.T) {
	h := eventThreadStop(t)
	writeLocal(h, 41)
	require.NotZero(t, readView(t, h, threadsView(false)), "after the write, the view speculated at the stop does not answer")
	stopAgain(h)
	writeLocal(h, 42)
	require.Zero(t, readView(t, h, threadsView(false)), "the view read after the write, asked again behind it, answers")

	// A debugger that read the view before its write, and nothing after
	// it: nothing goes out behind its next write.
	h = eventThreadStop(t)
	writeLocal(h, 41)
	stopAgain(h)
	sent := len(h.toVM)
	writeLocal(h, 42)
	require.Equal(t, map[jdwp.Command]int{jdwp.CmdStackFrameSetValues: 1}, h.sentSince(sent), "only the write")
}

// TestTheStoppedThreadsReadsAfterAWriteFollowTheStop: workers take turns
// at their breakpoints, and at each stop the debugger edits a local, then
// reads the stopped thread's name and suspend count and its threads view
// (as an IDE refreshes after an edit). The reads after the write go out
// again behind the write at the next stop, and those of the last stop's
// thread go out of the new stop's thread too: at the second stop, in
// another thread, every read after the write is answered from speculation,
// each the VM's answer.
func TestTheStoppedThreadsReadsAfterAWriteFollowTheStop(t *testing.T) {
	h := eventThreadStop(t)
	afterWrite := func(th jdwp.ThreadID) []jdwp.CommandMessage {
		return append([]jdwp.CommandMessage{&jdwp.ThreadNameCommand{Thread: th}, &jdwp.ThreadSuspendCountCommand{Thread: th}},
			threadsView(false)...)
	}
	writeLocalIn(h, 1, 41)
	require.NotZero(t, readView(t, h, afterWrite(1)), "after the first write, nothing speculated answers")
	ask(h, &jdwp.ThreadResumeCommand{Thread: 1})
	h.stopEvent(2, jdwp.SuspendPolicyEventThread)
	h.drain()
	writeLocalIn(h, 2, 42)
	require.Zero(t, readView(t, h, afterWrite(2)), "the reads after the write, asked behind it of the stop's thread, answer")
}

// jdiWorkersView is the JDK JDI's loop over a threads view, as an IDE's
// code written on it reads it: the list, then each thread's name and its
// status twice (status() and isSuspended()), threads 1 to n.
func jdiWorkersView(n jdwp.ThreadID) []jdwp.CommandMessage {
	view := []jdwp.CommandMessage{&jdwp.VMAllThreadsCommand{}}
	for t := jdwp.ThreadID(1); t <= n; t++ {
		view = append(view, &jdwp.ThreadNameCommand{Thread: t}, &jdwp.ThreadStatusCommand{Thread: t}, &jdwp.ThreadStatusCommand{Thread: t})
	}
	return view
}

// viewWorld is threadsWorld of n threads with a threads view's families
// alone, the session begun and every thread running.
func viewWorld(t *testing.T, n jdwp.ThreadID) *harness {
	h := threadsWorld(t, n, false, scache.WithFamilies(scache.FamilyThreads|scache.FamilyStop))
	ask(h, &jdwp.VMIDSizesCommand{})
	ask(h, &jdwp.VMResumeCommand{})
	return h
}

// readsAtStops stops thread 1 under EVENT_THREAD stops times, runs
// midStop if set (what else happens at the stop: it returns the threads
// to resume with thread 1), has the debugger read reads at each stop,
// each answered as the VM would, and resumes the threads; it returns what
// went to the VM of the debugger's own at the last stop.
func readsAtStops(t *testing.T, h *harness, reads []jdwp.CommandMessage, stops int, midStop func() []jdwp.ThreadID) map[jdwp.Command]int {
	var missed map[jdwp.Command]int
	for stop := 0; stop < stops; stop++ {
		h.stopEvent(1, jdwp.SuspendPolicyEventThread)
		h.drain()
		stopped := []jdwp.ThreadID{1}
		if midStop != nil {
			stopped = append(stopped, midStop()...)
		}
		sent := len(h.toVM)
		for _, m := range reads {
			got, want := ask(h, m)
			require.Equal(t, want, got, "stop %d: %s", stop, m.Command())
		}
		missed = h.organicSince(sent)
		for _, th := range stopped {
			ask(h, &jdwp.ThreadResumeCommand{Thread: th})
		}
	}
	return missed
}

// TestReadsAskedAgainAreKeptWhileTheyAnswer: a debugger reads its view of
// eight threads in the JDK JDI's order, which is not the view's. At the
// first stop reads miss; at the next ones, its reads asked again in that
// order answer every read, and they are asked again at each stop after,
// not only after one where a read missed.
func TestReadsAskedAgainAreKeptWhileTheyAnswer(t *testing.T) {
	const threads = 8
	h := viewWorld(t, threads)
	require.NotEmpty(t, readsAtStops(t, h, jdiWorkersView(threads), 1, nil), "the first stop teaches the order")
	for stop := 1; stop <= 3; stop++ {
		require.Empty(t, readsAtStops(t, h, jdiWorkersView(threads), 1, nil), "stop %d: every read answered", stop)
	}
}

// depthThenView is a running thread's depth (the VM refuses it: the
// thread is not suspended), then the JDK JDI's view of threads threads.
func depthThenView(threads jdwp.ThreadID) []jdwp.CommandMessage {
	return append([]jdwp.CommandMessage{&jdwp.ThreadFrameCountCommand{Thread: threads}}, jdiWorkersView(threads)...)
}

// theDepthAndTheList is what goes to the VM of depthThenView once the
// view is asked again in its order behind the list.
var theDepthAndTheList = map[jdwp.Command]int{jdwp.CmdThreadReferenceFrameCount: 1, jdwp.CmdVirtualMachineAllThreads: 1}

// TestAViewMissedGoesOutAgainInTheOrderItIsRead: at each stop the debugger
// first asks a running thread's depth, which goes to the VM and whose
// reply, newer than the view speculated at the stop, keeps all of it from
// answering (rule a). The thread list, asked next, misses too. Behind that
// miss the rest of the view goes out again in the order the debugger read
// it at its last stop (each thread's name, then its status twice), not in
// the view's: every read after the list is answered from it, each the
// VM's answer.
func TestAViewMissedGoesOutAgainInTheOrderItIsRead(t *testing.T) {
	const threads = 8
	h := viewWorld(t, threads)
	require.Equal(t, theDepthAndTheList, readsAtStops(t, h, depthThenView(threads), 3, nil),
		"only the running thread's depth and the list the view missed behind it go to the VM")
}

// TestAnEventAFewReadsIntoAStopKeepsTheLastStopsReads: at each stop of
// thread 1, thread 2 stops at its own breakpoint a read into it (its
// event ends the epoch), and the debugger reads on where it was: a
// running thread's depth, sent to the VM, then its view, in the JDK
// JDI's order. The one read before the event is not what the debugger
// reads at a stop: the reads of the last whole stop are kept, and behind
// the list the view missed, the rest goes out in their order.
func TestAnEventAFewReadsIntoAStopKeepsTheLastStopsReads(t *testing.T) {
	const threads = 8
	h := viewWorld(t, threads)
	secondStops := func() []jdwp.ThreadID {
		got, want := ask(h, &jdwp.ThreadNameCommand{Thread: 1})
		require.Equal(t, want, got)
		h.stopEvent(2, jdwp.SuspendPolicyEventThread)
		h.drain()
		return []jdwp.ThreadID{2}
	}
	require.Equal(t, theDepthAndTheList, readsAtStops(t, h, depthThenView(threads), 3, secondStops),
		"only the running thread's depth and the list the view missed behind it go to the VM")
}
