package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
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
func writeLocal(h *harness, value int32) {
	th := h.vm.Thread(1)
	frame := h.vm.FrameID(th, th.Generation, 0)
	id := h.nextID
	h.nextID++
	h.sendRaw(jdwp.AppendCommand(nil, id, jdwp.CmdStackFrameSetValues, jdwp.Marshal(&setValues{1, frame, 0, value}, sizes8)))
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
