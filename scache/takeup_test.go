package scache_test

import (
	"encoding/binary"
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
)

// TestWorkersReadInTurnFindTheirThisSpeculated: under suspend-thread
// breakpoints three workers stop at once, in one method, each on its own
// object, and the debugger reads their stops first in first out, as a
// debugger written on JDI takes its event sets off its queue: each
// worker's frames, this and this's fields, then a resume of the worker.
// The last event's stop is the third worker's, but behind the resume of
// each worker the oldest parked stop is taken up again, and the fields of
// its this go out: from the second round on, the second and third
// workers' fields (state that moves while others run) are answered from
// speculation, each the VM's answer.
func TestWorkersReadInTurnFindTheirThisSpeculated(t *testing.T) {
	h, class := inInstanceMethod(t)
	frame := h.vm.Thread(1).Frames[0]
	workers := []jdwp.ThreadID{1, 2, 3}
	for _, w := range workers[1:] {
		h.vm.SetThread(w, []scachetest.ModelFrame{frame}).Suspends = 0
	}
	for round := 0; round < 4; round++ {
		for _, w := range workers {
			h.vm.Thread(w).Frames[0].This = h.vm.NewObject(class.ID)
			ev, ok := h.vm.Stop(w, jdwp.SuspendPolicyEventThread)
			require.True(t, ok)
			h.event(ev)
		}
		h.drain()
		for i, w := range workers {
			forwarded := readThisFields(t, h, w)
			if round > 0 && i > 0 {
				require.Zero(t, forwarded, "round %d, worker %d: this's fields from speculation", round, w)
			}
			ask(h, &jdwp.ThreadResumeCommand{Thread: w})
			h.drain()
		}
	}
	require.NotZero(t, h.s.Stats().StopsTakenUp)
}

// readThisFields reads worker w's stop as a variables view does (its
// frames, its top frame's this, this's fields 1 and 2), checks that each
// answer is the VM's, and returns how many debugger commands the fields'
// read sent to the VM.
func readThisFields(t *testing.T, h *harness, w jdwp.ThreadID) int {
	th := h.vm.Thread(w)
	got, want := ask(h, &jdwp.ThreadFramesCommand{Thread: w, StartFrame: 0, Length: -1})
	require.Equal(t, want, got)
	got, want = ask(h, &jdwp.FrameThisObjectCommand{Thread: w, Frame: h.vm.FrameID(th, th.Generation, 0)})
	require.Equal(t, want, got)
	sent := len(h.toVM)
	got, want = ask(h, &jdwp.ObjectRefGetValuesCommand{Object: th.Frames[0].This, Fields: []jdwp.FieldID{1, 2}})
	require.Equal(t, want, got, "worker %d's this's fields", w)
	return organic(h.organicSince(sent))
}

// TestAResumedWorkersNextStopQueuesBehindTheOneTakenUp: three workers
// stopped at once, read first in first out as in
// TestWorkersReadInTurnFindTheirThisSpeculated, but each worker hits its
// breakpoint again as soon as it is resumed: its new event comes before
// the debugger reads the stop taken up behind the resume. In the
// debugger's queue the new stop is behind the others, so it is parked and
// the stop taken up goes on: from the third read on, the fields of each
// stop's this (state that moves while others run) are answered from
// speculation, each the VM's answer.
func TestAResumedWorkersNextStopQueuesBehindTheOneTakenUp(t *testing.T) {
	readWorkersThatHitAgain(t, false)
}

// TestAStopIsTakenUpBehindTheResumeThatFollowsAPause: the same, but at
// each stop the debugger pauses the VM (an IDE's Pause:
// VirtualMachine.Suspend, which ends the stop's epoch) and resumes it
// before it resumes the worker. The worker's resume still takes up the
// oldest parked stop: from the third read on, the fields of each stop's
// this are answered from speculation.
func TestAStopIsTakenUpBehindTheResumeThatFollowsAPause(t *testing.T) {
	readWorkersThatHitAgain(t, true)
}

// workersStoppedAtOnce has three workers stop at once in an instance
// method, each on a new object, their replies drained, and returns them in
// the order they stopped, and hit, which stops a resumed worker again on
// a new object.
func workersStoppedAtOnce(t *testing.T) (*harness, []jdwp.ThreadID, func(jdwp.ThreadID)) {
	return workersStoppedAtOnceOn(t, func(h *harness, class jdwp.ReferenceTypeID, _ jdwp.ThreadID) jdwp.ObjectID {
		return h.vm.NewObject(class)
	})
}

// workersStoppedAtOnceOn is workersStoppedAtOnce with each stop's object
// made by newThis, for worker w, in the method's class.
func workersStoppedAtOnceOn(t *testing.T, newThis func(h *harness, class jdwp.ReferenceTypeID, w jdwp.ThreadID) jdwp.ObjectID) (
	*harness, []jdwp.ThreadID, func(jdwp.ThreadID)) {
	h, class := inInstanceMethod(t)
	frame := h.vm.Thread(1).Frames[0]
	queue := []jdwp.ThreadID{1, 2, 3}
	for _, w := range queue[1:] {
		h.vm.SetThread(w, []scachetest.ModelFrame{frame}).Suspends = 0
	}
	hit := func(w jdwp.ThreadID) {
		h.vm.Thread(w).Frames[0].This = newThis(h, class.ID, w)
		ev, ok := h.vm.Stop(w, jdwp.SuspendPolicyEventThread)
		require.True(t, ok)
		h.event(ev)
	}
	for _, w := range queue {
		hit(w)
	}
	h.drain()
	return h, queue, hit
}

// readWorkersThatHitAgain has three workers stop at once in an instance
// method and a debugger read nine stops first in first out (frames, this,
// this's fields; with pause, a pause of the VM), each worker stopping
// again as soon as it is resumed, and checks that from the third read on
// this's fields are answered from speculation.
func readWorkersThatHitAgain(t *testing.T, pause bool) {
	h, queue, hit := workersStoppedAtOnce(t)
	for read := 0; read < 9; read++ {
		w := queue[0]
		forwarded := readThisFields(t, h, w)
		if read >= 2 {
			require.Zero(t, forwarded, "read %d, worker %d: this's fields from speculation", read, w)
		}
		queue = leaveStop(h, queue, hit, pause)
	}
}

// leaveStop ends the debugger's read of the stop of worker queue[0] (with
// pause, after a pause of the VM and its resume): it resumes the worker,
// which stops again at once, and returns the queue with it last.
func leaveStop(h *harness, queue []jdwp.ThreadID, hit func(jdwp.ThreadID), pause bool) []jdwp.ThreadID {
	w := queue[0]
	if pause {
		ask(h, &jdwp.VMSuspendCommand{})
		ask(h, &jdwp.VMResumeCommand{})
	}
	ask(h, &jdwp.ThreadResumeCommand{Thread: w})
	hit(w)
	h.drain()
	return append(queue[1:], w)
}

// TestAThreadTheDebuggerSuspendedIsNoStopToTakeUp: thread 2 stopped at its
// breakpoint before thread 1 did, and the debugger reads thread 1's stop.
// It suspends a third thread and resumes it (a user's Suspend, then
// Resume, in the threads view): that thread had no stop of its own, and
// the debugger goes on with thread 1's; no parked stop is taken up. Once
// it resumes thread 1, thread 2's stop, the oldest, is.
func TestAThreadTheDebuggerSuspendedIsNoStopToTakeUp(t *testing.T) {
	h := threadsWorld(t, 3, false)
	ask(h, &jdwp.VMIDSizesCommand{})
	ask(h, &jdwp.VMResumeCommand{})
	for _, w := range []jdwp.ThreadID{2, 1} {
		h.stopEvent(w, jdwp.SuspendPolicyEventThread)
	}
	h.drain()
	ask(h, &jdwp.ThreadSuspendCommand{Thread: 3})
	ask(h, &jdwp.ThreadResumeCommand{Thread: 3})
	require.Zero(t, h.s.Stats().StopsTakenUp, "thread 1's stop goes on")
	ask(h, &jdwp.ThreadResumeCommand{Thread: 1})
	require.Equal(t, int64(1), h.s.Stats().StopsTakenUp, "thread 2's stop is read next")
}

// TestRepliesAfterAWorkersNewEventAnswerTheStopTakenUp: three workers
// read first in first out, each hitting its breakpoint again as soon as it
// is resumed, as in readWorkersThatHitAgain, but as HotSpot sends it: the
// worker's new event reaches the proxy before the replies to the reads
// that went out behind its resume. Those replies came after the event
// (rule a holds), and after the resume's reply (rule b): from the third
// read on, the stop taken up is read at once, this's fields too, before
// the VM answers anything more, and each answer is the VM's.
func TestRepliesAfterAWorkersNewEventAnswerTheStopTakenUp(t *testing.T) {
	h, queue, hit := workersStoppedAtOnce(t)
	for read := 0; read < 9; read++ {
		w := queue[0]
		if read < 2 {
			readThisFields(t, h, w)
		} else {
			th := h.vm.Thread(w)
			for _, m := range []jdwp.CommandMessage{
				&jdwp.ThreadFramesCommand{Thread: w, StartFrame: 0, Length: -1},
				&jdwp.FrameThisObjectCommand{Thread: w, Frame: h.vm.FrameID(th, th.Generation, 0)},
				&jdwp.ObjectRefGetValuesCommand{Object: th.Frames[0].This, Fields: []jdwp.FieldID{1, 2}},
			} {
				got, want := askAtOnce(h, m)
				require.Equal(t, want, got, "read %d, worker %d: %s answered at once", read, w, m.Command())
			}
		}
		h.drain()
		h.send(&jdwp.ThreadResumeCommand{Thread: w})
		behind := len(h.vmQueue)
		require.True(t, h.step(), "the resume's reply")
		queue = append(queue[1:], w)
		hit(w)
		for range behind - 1 {
			h.step() // the replies to what went out behind the resume, after the event
		}
	}
}

// TestWhatTheDebuggerStoppedAskingIsForgottenAtStopsTakenUp: workers that
// hit their breakpoint again as soon as they are resumed (as in
// TestAStopIsTakenUpBehindTheResumeThatFollowsAPause, a pause at each
// stop) leave every stop the debugger reads parked behind a newer event:
// its thread stays suspended at its event while the debugger reads it, and
// the pause closes it. The debugger reads another object's fields at its
// first two stops, and not after. What it asks at its stops ages at each
// stop it read, taken up or not, once a stop: the read it dropped goes out
// no more from the fourth stop on.
func TestWhatTheDebuggerStoppedAskingIsForgottenAtStopsTakenUp(t *testing.T) {
	h, queue, hit := workersStoppedAtOnce(t)
	other := h.vm.NewObject(h.vm.Classes()[0].ID)
	var from int
	for read := 0; read < 8; read++ {
		if read == 3 {
			from = len(h.toVM)
		}
		w := queue[0]
		readThisFields(t, h, w)
		if read < 2 {
			got, want := ask(h, &jdwp.ObjectRefGetValuesCommand{Object: other, Fields: []jdwp.FieldID{1, 2}})
			require.Equal(t, want, got)
		}
		queue = leaveStop(h, queue, hit, true)
	}
	require.NotZero(t, h.s.Stats().StopsTakenUp)
	asked := 0
	for _, p := range h.toVM[from:] {
		ph, _ := jdwp.ParseHeader(p)
		d := jdwp.Data(p)
		if ph.Cmd() == jdwp.CmdObjectReferenceGetValues && len(d) >= 8 && jdwp.ObjectID(binary.BigEndian.Uint64(d)) == other {
			asked++
		}
	}
	require.Zero(t, asked, "the fields of the object the debugger stopped reading, asked from the fourth stop on")
}

// TestAnArrayOfAStopTakenUpAgainGoesOutWithItsThis: three workers read
// first in first out, each hitting its breakpoint again as soon as it is
// resumed, once the replies to what went out behind its resume are back:
// those replies are older than its event, which rule (a) keeps them from
// answering after (sequential.go), and the stop taken up again in the new
// epoch asks what moves anew. Each stop's this holds an array made before
// it, so no distance from this guesses it (TestAnArrayHeldByThisIsReadOnAGuess);
// the debugger reads this's fields, then the array's elements. this's
// fields were read in the epoch before: the array they held then goes out
// with them, not a round trip behind their reply, and from the fourth read
// on the whole stop is answered from what went out at the event, each
// answer the VM's.
func TestAnArrayOfAStopTakenUpAgainGoesOutWithItsThis(t *testing.T) {
	arrays := map[jdwp.ThreadID]jdwp.ObjectID{}
	h, queue, hit := workersStoppedAtOnceOn(t, func(h *harness, class jdwp.ReferenceTypeID, w jdwp.ThreadID) jdwp.ObjectID {
		arrays[w] = h.vm.NewArray(class, jdwp.TagInt, jdwp.IntValue(int32(w)), jdwp.IntValue(1))
		this := h.vm.NewObject(class)
		holdArray(h, this, arrays[w])
		return this
	})
	for read := 0; read < 9; read++ {
		w := queue[0]
		th := h.vm.Thread(w)
		for _, m := range []jdwp.CommandMessage{
			&jdwp.ThreadFramesCommand{Thread: w, StartFrame: 0, Length: -1},
			&jdwp.FrameThisObjectCommand{Thread: w, Frame: h.vm.FrameID(th, th.Generation, 0)},
			&jdwp.ObjectRefGetValuesCommand{Object: th.Frames[0].This, Fields: []jdwp.FieldID{1, holdsArray}},
			&jdwp.ArrayRefGetValuesCommand{Array: arrays[w], First: 0, Length: 2},
		} {
			if read < 3 {
				got, want := ask(h, m)
				require.Equal(t, want, got, "read %d: %s", read, m.Command())
				continue
			}
			got, want := askAtOnce(h, m)
			require.Equal(t, want, got, "read %d, worker %d: %s answered at once", read, w, m.Command())
		}
		h.drain()
		ask(h, &jdwp.ThreadResumeCommand{Thread: w})
		h.drain()
		queue = append(queue[1:], w)
		hit(w)
		for range len(h.vmQueue) { // what went out at the event, not what their replies lead to
			h.step()
		}
	}
}
