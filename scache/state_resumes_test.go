package scache_test

import (
	"fmt"
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
)

// workersStopped has three threads run, stops thread 1 under suspend
// policy EVENT_THREAD, where the debugger looks at its frames and name, and
// lets the VM answer everything: a debugger of workers, looking at one.
func workersStopped(t *testing.T) *harness {
	h := stoppedWhileOthersRun(t, false)
	for _, m := range []jdwp.CommandMessage{&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1},
		&jdwp.ThreadNameCommand{Thread: 1}} {
		got, want := ask(h, m)
		require.Equal(t, want, got)
	}
	return h
}

// TestAStopWhileAnotherThreadsResumeIsUnanswered: the debugger lets
// worker 1 go (ThreadReference.Resume) and, before the reply, worker 2's
// breakpoint event arrives. Processed before or after that event, the
// resume of another thread leaves worker 2 suspended: its stop is
// speculated at once, and what was speculated still answers the debugger
// after the resume's reply.
func TestAStopWhileAnotherThreadsResumeIsUnanswered(t *testing.T) {
	h := workersStopped(t)
	h.send(&jdwp.ThreadResumeCommand{Thread: 1}) // not answered yet
	sent := h.stopEvent(2, jdwp.SuspendPolicyEventThread)
	require.Positive(t, sent[jdwp.CmdThreadReferenceFrames], "worker 2's frames go out with its stop: %v", sent)
	h.drain() // the resume's reply, then the speculation's
	before := len(h.toVM)
	got, want := ask(h, &jdwp.ThreadFramesCommand{Thread: 2, StartFrame: 0, Length: -1})
	require.Equal(t, want, got)
	require.Equal(t, before, len(h.toVM), "answered from the stop's speculation, after the resume's reply")
}

// TestAStopOfTheThreadBeingResumedIsNotTrusted: the debugger resumes
// worker 2, which it did not know suspended. Worker 3's stop arrives (and
// is trusted: othersResumed), and then one of worker 2 that the VM sent
// before it processed the resume: worker 2 runs once the resume is
// processed, so its stop is not trusted, and each ask of its frames
// reaches the VM (none is held on an earlier one, as it would be for a
// suspended thread).
func TestAStopOfTheThreadBeingResumedIsNotTrusted(t *testing.T) {
	h := workersStopped(t)
	ev3, ok := h.vm.Stop(3, jdwp.SuspendPolicyEventThread)
	require.True(t, ok)
	ev2, ok := h.vm.Stop(2, jdwp.SuspendPolicyEventThread)
	require.True(t, ok)
	h.send(&jdwp.ThreadResumeCommand{Thread: 2}) // reaches the VM after both events
	h.event(ev3)
	h.event(ev2)
	frames := &jdwp.ThreadFramesCommand{Thread: 2, StartFrame: 0, Length: -1}
	first, second := h.send(frames), h.send(frames)
	h.drain()
	asked := h.reachedVM(first, second)
	require.Equal(t, 2, asked, "both asks of a thread that may run reach the VM")
	want := h.vm.Clone().Handle(jdwp.AppendCommandPacket(nil, second, frames, sizes8))
	require.Equal(t, want, h.replyTo(second), "worker 2 runs: the VM's answer")
}

// TestASuspendFollowedByAResumeOfAnotherThread: the debugger suspends
// every thread (VirtualMachine.Suspend) and, right behind, resumes worker 2
// (a threads view's "resume" on one thread). Worker 3's stop, which the VM
// sent before it processed either, arrives while both are unanswered: it
// holds (othersResumed). But the Suspend's reply does not prove every
// thread suspended: the resume sent after it lets worker 2 run again, so
// each ask of worker 2's status reaches the VM (under Linearizable: a
// running thread's status is never served from a cache). Found by the
// race property of running threads: the Suspend's reply was taken for
// proof while only the resumes that were not "elsewhere" counted, and
// worker 2's status was served, stale, from a reply cached as if it were
// suspended. (Its frames would not show it: THREAD_NOT_SUSPENDED ends the
// epoch.)
func TestASuspendFollowedByAResumeOfAnotherThread(t *testing.T) {
	h := threadsWorld(t, 3, false, scache.WithFamilies(scache.FamilyStop|scache.FamilyThreads),
		scache.WithConsistency(scache.Linearizable))
	ask(h, &jdwp.VMIDSizesCommand{})
	ask(h, &jdwp.VMResumeCommand{})
	ev3, ok := h.vm.Stop(3, jdwp.SuspendPolicyEventThread)
	require.True(t, ok)
	h.send(&jdwp.VMSuspendCommand{})
	h.send(&jdwp.ThreadResumeCommand{Thread: 2})
	h.event(ev3) // sent by the VM before it read the two commands
	h.drain()
	require.Zero(t, h.vm.Thread(2).Suspends, "worker 2 runs")
	status := &jdwp.ThreadStatusCommand{Thread: 2}
	first := h.send(status)
	h.drain()
	h.vm.Tick(7) // worker 2 runs on
	second := h.send(status)
	h.drain()
	asked := h.reachedVM(first, second)
	require.Equal(t, 2, asked, "both asks of a thread that runs reach the VM")
	want := h.vm.Clone().Handle(jdwp.AppendCommandPacket(nil, second, status, sizes8))
	require.Equal(t, want, h.replyTo(second), "worker 2's status now")
}

// TestSettingAThreadsNameFieldRenamesIt: a thread's name is a field of its
// object (java.lang.Thread.name); ObjectReference.SetValues of it renames
// the thread, and the name cached at the stop is not served after it.
func TestSettingAThreadsNameFieldRenamesIt(t *testing.T) {
	h := threadsWorld(t, 2, false, scache.WithFamilies(scache.FamilyThreads))
	ask(h, &jdwp.VMIDSizesCommand{})
	ask(h, &jdwp.VMResumeCommand{})
	h.stopEvent(1, jdwp.SuspendPolicyAll)
	h.drain()
	got, want := ask(h, &jdwp.ThreadNameCommand{Thread: 2})
	require.Equal(t, want, got)
	name := h.vm.NewString("renamed")
	h.sendRaw(jdwp.AppendCommand(nil, 700, jdwp.CmdObjectReferenceSetValues, func() []byte {
		w := jdwp.NewWriter(sizes8)
		w.ObjectID(2)
		w.Int32(1)
		w.FieldID(scachetest.ThreadNameField)
		w.ObjectID(name)
		return w.Bytes()
	}()))
	h.drain()
	got, want = ask(h, &jdwp.ThreadNameCommand{Thread: 2})
	require.Equal(t, want, got)
	require.Equal(t, "renamed", h.vm.Thread(2).Name)
}

// TestAListAskedWhileThreadsRunGuessesTheNextStop: a thread list the
// debugger asked while the threads ran (an IDE's threads view as it
// attaches) is the first stop's guess of its threads: their view goes out
// with the stop, not one reply behind AllThreads.
func TestAListAskedWhileThreadsRunGuessesTheNextStop(t *testing.T) {
	h := threadsWorld(t, 3, false, scache.WithFamilies(scache.FamilyThreads))
	ask(h, &jdwp.VMIDSizesCommand{})
	ask(h, &jdwp.VMResumeCommand{})
	ask(h, &jdwp.VMAllThreadsCommand{})
	sent := h.stopEvent(1, jdwp.SuspendPolicyAll)
	require.Equal(t, 3, sent[jdwp.CmdThreadReferenceName], "the listed threads' names go out with the first stop: %v", sent)
}

// TestARenameMakesANameInFlightUnservable: a thread's Name in flight
// when the debugger renames the thread (the debugger's own ask, or the
// stop's speculation of it) answers only what asked it before the write:
// the debugger's next Name gets the new name, whether or not belay indexes
// the commands in flight. The held-out property found it with
// WithBelay(false), under either promise.
func TestARenameMakesANameInFlightUnservable(t *testing.T) {
	for _, belay := range []bool{true, false} {
		for _, consistency := range []scache.Consistency{scache.Sequential, scache.Linearizable} {
			opts := []scache.Option{scache.WithBelay(belay), scache.WithConsistency(consistency)}
			t.Run(fmt.Sprintf("belay=%v/%v/the debugger's ask", belay, consistency), func(t *testing.T) {
				h := threadsWorld(t, 2, false, append(opts, scache.WithFamilies(scache.FamilyClass))...)
				ask(h, &jdwp.VMIDSizesCommand{})
				ask(h, &jdwp.VMResumeCommand{})
				h.stopEvent(1, jdwp.SuspendPolicyAll)
				h.drain()
				before := h.send(&jdwp.ThreadNameCommand{Thread: 2})
				renameThread(h, 2, "renamed")
				h.drain()
				require.Equal(t, 1, h.reachedVM(before), "the first ask went to the VM")
				got, want := ask(h, &jdwp.ThreadNameCommand{Thread: 2})
				require.Equal(t, want, got, "the name after the rename")
			})
			t.Run(fmt.Sprintf("belay=%v/%v/the stop's speculation", belay, consistency), func(t *testing.T) {
				h := threadsWorld(t, 2, false, append(opts, scache.WithFamilies(scache.FamilyThreads))...)
				ask(h, &jdwp.VMIDSizesCommand{})
				ask(h, &jdwp.VMResumeCommand{})
				h.stopEvent(1, jdwp.SuspendPolicyAll)
				h.drain()
				ask(h, &jdwp.VMAllThreadsCommand{}) // the threads view: wanted at the next stop
				for _, id := range []jdwp.ThreadID{1, 2} {
					ask(h, &jdwp.ThreadStatusCommand{Thread: id})
					ask(h, &jdwp.ThreadNameCommand{Thread: id})
				}
				ask(h, &jdwp.VMResumeCommand{})
				sent := h.stopEvent(1, jdwp.SuspendPolicyAll) // the view goes out, unanswered yet
				require.Equal(t, 2, sent[jdwp.CmdThreadReferenceName], "the names go out with the stop: %v", sent)
				renameThread(h, 2, "renamed")
				h.drain()
				got, want := ask(h, &jdwp.ThreadNameCommand{Thread: 2})
				require.Equal(t, want, got, "the name after the rename")
			})
		}
	}
}

// renameThread sends the debugger's ObjectReference.SetValues of thread's
// name field (jdb's "set t.name = ..."), with a string made for it.
func renameThread(h *harness, thread jdwp.ObjectID, name string) {
	s := h.vm.NewString(name)
	id := h.nextID
	h.nextID++
	h.sendRaw(jdwp.AppendCommand(nil, id, jdwp.CmdObjectReferenceSetValues, func() []byte {
		w := jdwp.NewWriter(sizes8)
		w.ObjectID(thread)
		w.Int32(1)
		w.FieldID(scachetest.ThreadNameField)
		w.ObjectID(s)
		return w.Bytes()
	}()))
}
