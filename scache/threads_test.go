package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
)

// threadsWorld returns a harness whose model VM has n threads, each
// suspended in one class's first method (and, with deep, called from its
// second).
func threadsWorld(t *testing.T, n jdwp.ThreadID, deep bool, opts ...scache.Option) *harness {
	vm := scachetest.NewModelVM(sizes8)
	c := vm.AddClass("LThreads;", 2, false, false)
	for id := jdwp.ThreadID(1); id <= n; id++ {
		frames := []scachetest.ModelFrame{{Class: c.ID, Method: c.Methods[0], Index: 3}}
		if deep {
			frames = append(frames, scachetest.ModelFrame{Class: c.ID, Method: c.Methods[1], Index: 5})
		}
		vm.SetThread(id, frames)
	}
	return newHarness(t, vm, opts...)
}

// sentSince counts, by command, the packets the VM received from the
// before-th on.
func (h *harness) sentSince(before int) map[jdwp.Command]int {
	n := map[jdwp.Command]int{}
	for _, p := range h.toVM[before:] {
		ph, err := jdwp.ParseHeader(p)
		require.NoError(h.t, err)
		n[ph.Cmd()]++
	}
	return n
}

// debuggersSince lists the debugger's commands the VM received from the
// before-th packet on.
func (h *harness) debuggersSince(before int) []jdwp.Command {
	var cmds []jdwp.Command
	for _, p := range h.toVM[before:] {
		ph, err := jdwp.ParseHeader(p)
		require.NoError(h.t, err)
		if !ph.IsReply() && !scache.IsSyntheticID(ph.ID) {
			cmds = append(cmds, ph.Cmd())
		}
	}
	return cmds
}

// stopEvent delivers thread's stop with policy and returns what went to the
// VM with the event, before any reply.
func (h *harness) stopEvent(thread jdwp.ThreadID, policy jdwp.SuspendPolicy) map[jdwp.Command]int {
	ev, ok := h.vm.Stop(thread, policy)
	require.True(h.t, ok)
	before := len(h.toVM)
	h.event(ev)
	return h.sentSince(before)
}

// TestThreadsViewGoesOutWithTheStop: from the second stop on, the view of
// the threads the last AllThreads listed (status, depth, name) goes to the VM
// with the stop's first commands, not one reply behind AllThreads; what it
// caches answers the debugger as the VM would.
func TestThreadsViewGoesOutWithTheStop(t *testing.T) {
	h := threadsWorld(t, 3, false, scache.WithFamilies(scache.FamilyThreads))
	ask(h, &jdwp.VMIDSizesCommand{})
	ask(h, &jdwp.VMResumeCommand{})
	require.Equal(t, map[jdwp.Command]int{jdwp.CmdVirtualMachineAllThreads: 1}, h.stopEvent(1, jdwp.SuspendPolicyAll),
		"first stop: no threads known yet")
	h.drain()
	// The debugger shows its threads view: speculation of it is wanted.
	ask(h, &jdwp.VMAllThreadsCommand{})
	for _, id := range []jdwp.ThreadID{1, 2, 3} {
		ask(h, &jdwp.ThreadStatusCommand{Thread: id})
		ask(h, &jdwp.ThreadFrameCountCommand{Thread: id})
		ask(h, &jdwp.ThreadNameCommand{Thread: id})
	}

	ask(h, &jdwp.VMResumeCommand{})
	require.Equal(t, map[jdwp.Command]int{jdwp.CmdVirtualMachineAllThreads: 1, jdwp.CmdThreadReferenceStatus: 3,
		jdwp.CmdThreadReferenceFrameCount: 3, jdwp.CmdThreadReferenceName: 3}, h.stopEvent(2, jdwp.SuspendPolicyAll),
		"the last stop's threads, with the stop's first commands")
	h.drain()
	hits := h.s.Stats().Hits
	for _, id := range []jdwp.ThreadID{1, 2, 3} {
		for _, m := range []jdwp.CommandMessage{&jdwp.ThreadStatusCommand{Thread: id},
			&jdwp.ThreadFrameCountCommand{Thread: id}, &jdwp.ThreadNameCommand{Thread: id}} {
			sent := len(h.toVM)
			got, want := ask(h, m)
			require.Equal(t, sent, len(h.toVM), "%s answered here", m.Command())
			require.Equal(t, want, got, "%s", m.Command())
		}
	}
	require.Equal(t, hits+9, h.s.Stats().Hits)
}

// TestStoppedThreadStatusAtAnEventThreadStop: with only the stopped thread
// suspended, its status goes out with the stop and answers the debugger;
// under Linearizable a running thread's status is always the VM's, asked
// when the debugger asks.
func TestStoppedThreadStatusAtAnEventThreadStop(t *testing.T) {
	h := threadsWorld(t, 2, false, scache.WithFamilies(scache.FamilyThreads), scache.WithConsistency(scache.Linearizable))
	ask(h, &jdwp.VMIDSizesCommand{})
	ask(h, &jdwp.VMResumeCommand{})
	require.Equal(t, map[jdwp.Command]int{jdwp.CmdThreadReferenceStatus: 1}, h.stopEvent(1, jdwp.SuspendPolicyEventThread))
	h.drain()
	h.vm.Tick(3) // thread 2 runs on

	sent := len(h.toVM)
	got, want := ask(h, &jdwp.ThreadStatusCommand{Thread: 1})
	require.Equal(t, sent, len(h.toVM), "the stopped thread's status is answered here")
	require.Equal(t, want, got)

	sent = len(h.toVM)
	ask(h, &jdwp.ThreadStatusCommand{Thread: 2})
	require.Equal(t, sent+1, len(h.toVM), "a running thread's status is asked of the VM")
}

// TestAStopOfManyThreadsGoesOutInOneRound: with a dozen threads (an app's
// workers beside the VM's own) and a debugger that shows its threads view,
// the stop's whole speculation (its frames, name, this and values, the
// thread list, each thread's status, depth, top frame and name) is sent
// with the event: none of it waits for a reply to free a place in flight.
func TestAStopOfManyThreadsGoesOutInOneRound(t *testing.T) {
	const threads = 12
	h := threadsWorld(t, threads, true)
	threadsView := func(stopped jdwp.ThreadID) {
		ask(h, &jdwp.VMAllThreadsCommand{})
		for id := jdwp.ThreadID(1); id <= threads; id++ {
			ask(h, &jdwp.ThreadStatusCommand{Thread: id})
			ask(h, &jdwp.ThreadFrameCountCommand{Thread: id})
			if id != stopped {
				ask(h, &jdwp.ThreadFramesCommand{Thread: id, StartFrame: 0, Length: 1})
			}
			ask(h, &jdwp.ThreadNameCommand{Thread: id})
		}
	}
	ask(h, &jdwp.VMIDSizesCommand{})
	for stop := jdwp.ThreadID(1); stop <= 3; stop++ {
		ask(h, &jdwp.VMResumeCommand{})
		sent := h.stopEvent(stop, jdwp.SuspendPolicyAll)
		if stop == 3 {
			total := 0
			for _, n := range sent {
				total += n
			}
			require.Greater(t, total, 4*threads, "the whole stop, with the event")
			require.Zero(t, h.s.Stats().Held)
			require.Equal(t, threads, sent[jdwp.CmdThreadReferenceName], "every thread's name")
			require.Equal(t, threads, sent[jdwp.CmdThreadReferenceStatus], "every thread's status")
		}
		h.drain()
		ask(h, &jdwp.ThreadFramesCommand{Thread: stop, StartFrame: 0, Length: -1})
		threadsView(stop)
	}
}

// TestTheListAskedAgainBeforeAResumeIsReady: Eclipse's JDI asks the thread
// list in its threads view and again before every resume. With the other
// threads running (EVENT_THREAD), the list speculated at the stop cannot
// answer the second ask once the view told newer states (rule a). From the
// stop after a debugger asked it twice, the list goes out again at the
// end of the view sent with the event (a far half hears of the first ask
// only half a round trip after it), and the second ask is answered from
// that newer reply, as the VM would answer it.
func TestTheListAskedAgainBeforeAResumeIsReady(t *testing.T) {
	h := threadsWorld(t, 3, false)
	ask(h, &jdwp.VMIDSizesCommand{})
	ask(h, &jdwp.VMResumeCommand{})
	stops := 0
	view := func() (forwardedAgain int) {
		h.stopEvent(1, jdwp.SuspendPolicyEventThread)
		h.drain()
		stops++
		_, sentWithEvent := h.vmCommands(jdwp.CmdVirtualMachineAllThreads)
		defer func() {
			if stops > 1 {
				_, sent := h.vmCommands(jdwp.CmdVirtualMachineAllThreads)
				require.Equal(t, sentWithEvent, sent, "stop %d: every list went out with the event", stops)
			}
		}()
		got, want := ask(h, &jdwp.VMAllThreadsCommand{})
		require.Equal(t, want, got)
		for th := jdwp.ThreadID(1); th <= 3; th++ {
			for _, m := range []jdwp.CommandMessage{&jdwp.ThreadStatusCommand{Thread: th}, &jdwp.ThreadNameCommand{Thread: th}} {
				got, want := ask(h, m)
				require.Equal(t, want, got)
			}
		}
		before := len(h.toVM)
		got, want = ask(h, &jdwp.VMAllThreadsCommand{})
		require.Equal(t, want, got)
		forwardedAgain = h.organicSince(before)[jdwp.CmdVirtualMachineAllThreads]
		ask(h, &jdwp.ThreadResumeCommand{Thread: 1})
		return forwardedAgain
	}
	require.Equal(t, 1, view(), "the first stop: the list read before the view cannot answer after it")
	for stop := 2; stop <= 4; stop++ {
		require.Zero(t, view(), "stop %d: answered from the list asked again", stop)
	}
}

// startVM has the debugger ask the id sizes, then the VM send its VMStart
// event with policy, and lets the VM answer what that starts.
func startVM(h *harness, policy jdwp.SuspendPolicy) {
	ask(h, &jdwp.VMIDSizesCommand{})
	h.event(jdwp.AppendCommandPacket(nil, 1, &jdwp.Composite{SuspendPolicy: policy, Events: []jdwp.Event{
		&jdwp.ThreadEvent{EventKind: jdwp.EventVMStart, Thread: 1}}}, sizes8))
	h.drain()
}

// A VM started suspended: at its VMStart event the thread list is asked,
// and the debugger's, after the requests it makes as it attaches (Eclipse's
// JDI asks it before its first resume), is answered from the cache.
func TestTheThreadListIsAskedAtTheVMsStart(t *testing.T) {
	vm, _ := scachetest.OneFrameWorld(sizes8)
	h := newHarness(t, vm)
	startVM(h, jdwp.SuspendPolicyAll)
	_, synthetic := h.vmCommands(jdwp.CmdVirtualMachineAllThreads)
	require.Equal(t, 1, synthetic, "asked at the start")
	ask(h, &jdwp.EventRequestSetCommand{EventKind: jdwp.EventThreadDeath, SuspendPolicy: jdwp.SuspendPolicyNone})
	ask(h, &jdwp.EventRequestSetCommand{EventKind: jdwp.EventClassPrepare, SuspendPolicy: jdwp.SuspendPolicyAll,
		Modifiers: []jdwp.Modifier{&jdwp.ClassMatchModifier{Pattern: "Debuggee"}}})
	got, want := ask(h, &jdwp.VMAllThreadsCommand{})
	require.Equal(t, want, got)
	total, _ := h.vmCommands(jdwp.CmdVirtualMachineAllThreads)
	require.Equal(t, 1, total, "the debugger's was answered from the cache")

	// A VMStart that suspends nothing asks nothing.
	h = newHarness(t, vm)
	startVM(h, jdwp.SuspendPolicyNone)
	total, _ = h.vmCommands(jdwp.CmdVirtualMachineAllThreads)
	require.Zero(t, total)
}

// A debugger that asked the thread list while its VM was suspended at its
// start (Eclipse's JDI, before every resume) gets it from the cache at a
// class prepared with every thread suspended too; one that did not (the
// JDK's JDI) gets no list speculated there.
func TestTheThreadListAtAClassPreparedFollowsTheDebugger(t *testing.T) {
	for _, asksAtStart := range []bool{true, false} {
		vm, classes := scachetest.World(sizes8)
		h := newHarness(t, vm)
		startVM(h, jdwp.SuspendPolicyAll)
		if asksAtStart {
			ask(h, &jdwp.VMAllThreadsCommand{})
		}
		ask(h, &jdwp.VMResumeCommand{})
		for _, th := range h.vm.Threads() { // the class prepared suspends every thread
			th.Suspends++
		}
		c := classes[0]
		h.event(jdwp.AppendCommandPacket(nil, 2, &jdwp.Composite{SuspendPolicy: jdwp.SuspendPolicyAll, Events: []jdwp.Event{
			&jdwp.ClassPrepareEvent{RequestID: 5, Thread: 1, TypeTag: jdwp.TypeTagClass, TypeID: c.ID,
				Signature: c.Signature, Status: jdwp.ClassStatusPrepared | jdwp.ClassStatusVerified}}}, sizes8))
		h.drain()
		_, synthetic := h.vmCommands(jdwp.CmdVirtualMachineAllThreads)
		if !asksAtStart {
			require.Equal(t, 1, synthetic, "the list at the start only")
			continue
		}
		require.Equal(t, 2, synthetic, "the list at the start and at the class prepared")
		sent := len(h.toVM)
		got, want := ask(h, &jdwp.VMAllThreadsCommand{})
		require.Equal(t, want, got)
		require.Equal(t, sent, len(h.toVM), "answered from the cache")
	}
}

// TestAViewHeldBackGoesOutWhenTheDebuggerWalksIt: a conditional breakpoint
// as an IDE evaluates it. At the hits where the condition is false the
// debugger reads the top frame and resumes, and the learner holds the
// threads view back; at the hit the user sees, the debugger asks the
// thread list, and the view of every thread goes out right behind that
// ask: each thread's status, depth and name answers it from there, under
// either suspend policy.
func TestAViewHeldBackGoesOutWhenTheDebuggerWalksIt(t *testing.T) {
	for _, policy := range []jdwp.SuspendPolicy{jdwp.SuspendPolicyAll, jdwp.SuspendPolicyEventThread} {
		h := threadsWorld(t, 3, false, scache.WithFamilies(scache.FamilyStop|scache.FamilyThreads))
		ask(h, &jdwp.VMIDSizesCommand{})
		ask(h, &jdwp.VMResumeCommand{})
		var resume jdwp.CommandMessage = &jdwp.VMResumeCommand{}
		if policy == jdwp.SuspendPolicyEventThread {
			resume = &jdwp.ThreadResumeCommand{Thread: 1}
		}
		for hit := 1; hit <= 9; hit++ {
			h.stopEvent(1, policy)
			h.drain()
			if hit%3 != 0 { // the condition is false: the top frame read, resumed
				got, want := ask(h, &jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: 1})
				require.Equal(t, want, got)
				ask(h, resume)
				continue
			}
			ask(h, &jdwp.VMAllThreadsCommand{})
			forwarded := len(h.toVM)
			for _, id := range []jdwp.ThreadID{1, 2, 3} {
				view := []jdwp.CommandMessage{&jdwp.ThreadStatusCommand{Thread: id}, &jdwp.ThreadNameCommand{Thread: id}}
				if id == 1 || policy == jdwp.SuspendPolicyAll { // the depth of a suspended thread only, as JDI's views ask
					view = append(view, &jdwp.ThreadFrameCountCommand{Thread: id})
				}
				for _, m := range view {
					got, want := ask(h, m)
					require.Equal(t, want, got, "%s", m.Command())
				}
			}
			if hit > 3 { // at hit 3 the threads are not known yet
				require.Empty(t, h.debuggersSince(forwarded), "policy %d, hit %d: the view answered from speculation", policy, hit)
			}
			ask(h, resume)
		}
	}
}

// TestAWalkNobodyReadsGoesOutNoMore: a debugger that asks the thread list
// at its stops and reads no thread's view, and at every other stop reads
// the stopped thread's name and depth (as a far half forwards jdb's prompt
// and where when the pushes come late). The learner holds the view back,
// and the stopped thread's, so the first such read, a miss, walks the
// view; nothing reads it, and the next miss walks no view.
func TestAWalkNobodyReadsGoesOutNoMore(t *testing.T) {
	h := threadsWorld(t, 4, false, scache.WithFamilies(scache.FamilyStop|scache.FamilyThreads))
	ask(h, &jdwp.VMIDSizesCommand{})
	ask(h, &jdwp.VMResumeCommand{})
	top := &jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: 1}
	var walked []int
	for hit := 1; hit <= 7; hit++ { // (probeEvery is 8)
		h.stopEvent(1, jdwp.SuspendPolicyAll)
		h.drain()
		ask(h, &jdwp.VMAllThreadsCommand{})
		_, before := h.vmCommands(jdwp.CmdThreadReferenceStatus)
		reads := []jdwp.CommandMessage{top}
		if hit > 3 && hit%2 == 0 { // else the list and the top frame: the learner holds the rest back
			reads = append(reads, &jdwp.ThreadNameCommand{Thread: 1}, &jdwp.ThreadFrameCountCommand{Thread: 1})
		}
		for _, m := range reads {
			got, want := ask(h, m)
			require.Equal(t, want, got, "%s", m.Command())
		}
		_, after := h.vmCommands(jdwp.CmdThreadReferenceStatus)
		walked = append(walked, after-before)
		ask(h, &jdwp.VMResumeCommand{})
	}
	require.Positive(t, walked[3], "the first miss walks the view: %v", walked)
	require.Zero(t, walked[5], "the walk was not read: the next miss walks none: %v", walked)
}
