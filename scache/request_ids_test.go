package scache_test

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
)

// stepRequest is JDI's step request: a step of thread, one event, the JDK's
// classes excluded.
func stepRequest(thread jdwp.ObjectID, mods ...jdwp.Modifier) *jdwp.EventRequestSetCommand {
	if mods == nil {
		mods = []jdwp.Modifier{&jdwp.CountModifier{Count: 1}, &jdwp.ClassExcludeModifier{Pattern: "java.*"}}
	}
	return &jdwp.EventRequestSetCommand{EventKind: jdwp.EventSingleStep, SuspendPolicy: jdwp.SuspendPolicyAll,
		Modifiers: append([]jdwp.Modifier{&jdwp.StepModifier{Thread: thread, Size: jdwp.StepSizeLine, Depth: jdwp.StepDepthOver}}, mods...)}
}

// withRequests returns a harness (with opts) whose debugger has made two
// requests, their ids given in order, and whose thread 1 then stopped with
// policy ALL.
func withRequests(t *testing.T, opts ...scache.Option) *harness {
	h := running(t, opts...)
	h.send(&jdwp.EventRequestSetCommand{EventKind: jdwp.EventClassPrepare, SuspendPolicy: jdwp.SuspendPolicyAll})
	h.send(&jdwp.EventRequestSetCommand{EventKind: jdwp.EventBreakpoint, SuspendPolicy: jdwp.SuspendPolicyAll})
	h.drain()
	stopThread1(t, h, jdwp.SuspendPolicyAll)
	return h
}

func requestID(t *testing.T, reply []byte) int32 {
	data := jdwp.Data(reply)
	require.Len(t, data, 4, "a Set reply holds a request id")
	return int32(binary.BigEndian.Uint32(data))
}

// firedAs makes the VM send an event for each of its requests ids and
// returns the request ids of the events the debugger received.
func firedAs(t *testing.T, h *harness, ids ...int32) []int32 {
	before := len(h.toDebugger)
	h.event(h.vm.Fire(ids))
	require.Len(t, h.toDebugger, before+1, "the events reach the debugger")
	var c jdwp.Composite
	require.NoError(t, jdwp.Unmarshal(jdwp.Data(h.toDebugger[before]), sizes8, &c))
	var got []int32
	for _, e := range c.Events {
		got = append(got, e.Request())
	}
	return got
}

// The debugger's step request is answered at once with the id the VM gives
// it, the command still reaches the VM, and the VM's reply is absorbed.
func TestStepRequestIsAnsweredAheadWithTheVMsID(t *testing.T) {
	h := withRequests(t, scache.WithAnswerAhead(true))
	want := h.vm.Clone().Handle(jdwp.AppendCommandPacket(nil, h.nextID, stepRequest(1), sizes8))
	id := h.send(stepRequest(1))
	require.Equal(t, want, h.replyTo(id), "answered before the VM saw it, with its id")
	require.Len(t, h.vmQueue, 1, "the command is on its way to the VM")
	h.drain()
	require.Len(t, h.vm.Requests(), 3, "the VM made the request")
	h.replyTo(id) // still exactly one reply
	st := h.s.Stats()
	require.Equal(t, int64(1), st.AnsweredAhead)
	require.Zero(t, st.AheadContradicted)
}

// Next to the debugger, by default, a step request and its Clear are
// answered ahead (see WithAnswerAhead): jdb clears its step request as it
// leaves a stop, a round trip nothing else overlaps. The Clear still
// reaches the VM, whose reply is absorbed.
func TestByDefaultStepRequestsAndClearsAreAnsweredAhead(t *testing.T) {
	h := withRequests(t)
	before := len(h.toDebugger)
	h.send(stepRequest(1))
	require.Len(t, h.toDebugger, before+1, "the Set is answered ahead")
	h.drain()
	before = len(h.toDebugger)
	h.send(&jdwp.EventRequestClearCommand{EventKind: jdwp.EventSingleStep, RequestID: 3})
	require.Len(t, h.toDebugger, before+1, "the Clear is answered ahead")
	require.Len(t, h.vmQueue, 1, "and is on its way to the VM")
	h.drain()
	require.Len(t, h.toDebugger, before+1, "the VM's reply is absorbed")
	require.Len(t, h.vm.Requests(), 2, "the VM cleared the request")
	require.Equal(t, int64(2), h.s.Stats().AnsweredAhead)
}

// A Set is answered ahead only when it cannot fail and its id is known:
// otherwise the debugger waits for the VM's reply.
func TestRequestsAnsweredAheadOnlyWhenCertain(t *testing.T) {
	cases := map[string]struct {
		opts []scache.Option
		prep func(h *harness)
		set  *jdwp.EventRequestSetCommand
	}{
		"turned off": {opts: []scache.Option{scache.WithAnswerAhead(false)}, set: stepRequest(1)},
		"classic":    {opts: []scache.Option{scache.Classic()}, set: stepRequest(1)},
		"a breakpoint": {set: &jdwp.EventRequestSetCommand{EventKind: jdwp.EventBreakpoint, SuspendPolicy: jdwp.SuspendPolicyAll,
			Modifiers: []jdwp.Modifier{&jdwp.LocationOnlyModifier{}}}},
		"another thread than the stopped one": {set: stepRequest(2)},
		"a thread that does not exist":        {set: stepRequest(0x999)},
		"a count the agent refuses":           {set: stepRequest(1, &jdwp.CountModifier{Count: 0})},
		"a modifier that may fail":            {set: stepRequest(1, &jdwp.InstanceOnlyModifier{Instance: 7})},
		"two step modifiers":                  {set: stepRequest(1, &jdwp.StepModifier{Thread: 1})},
		"the thread resumed": {prep: func(h *harness) {
			h.sendRaw(jdwp.AppendCommand(nil, 90, jdwp.CmdThreadReferenceResume, []byte{0, 0, 0, 0, 0, 0, 0, 1}))
		}, set: stepRequest(1)},
		"another Set awaited": {prep: func(h *harness) {
			h.send(&jdwp.EventRequestSetCommand{EventKind: jdwp.EventBreakpoint, SuspendPolicy: jdwp.SuspendPolicyNone})
		}, set: stepRequest(1)},
		"a class's events for one class": {set: &jdwp.EventRequestSetCommand{EventKind: jdwp.EventClassPrepare,
			Modifiers: []jdwp.Modifier{&jdwp.ClassOnlyModifier{Class: 7}}}},
		"a thread's start for one thread": {set: &jdwp.EventRequestSetCommand{EventKind: jdwp.EventThreadStart,
			Modifiers: []jdwp.Modifier{&jdwp.ThreadOnlyModifier{Thread: 1}}}},
		"a class pattern on threads": {set: &jdwp.EventRequestSetCommand{EventKind: jdwp.EventThreadDeath,
			Modifiers: []jdwp.Modifier{&jdwp.ClassMatchModifier{Pattern: "java.*"}}}},
		"a class prepare counting 0": {set: &jdwp.EventRequestSetCommand{EventKind: jdwp.EventClassPrepare,
			Modifiers: []jdwp.Modifier{&jdwp.CountModifier{Count: 0}}}},
		"an exception of a type not seen loaded": {set: &jdwp.EventRequestSetCommand{EventKind: jdwp.EventException,
			Modifiers: []jdwp.Modifier{&jdwp.ExceptionOnlyModifier{Exception: 0x999, Caught: true, Uncaught: true}}}},
		"method exits of a class not seen loaded": {set: &jdwp.EventRequestSetCommand{EventKind: jdwp.EventMethodExitWithReturnValue,
			Modifiers: []jdwp.Modifier{&jdwp.ClassOnlyModifier{Class: 0x999}}}},
		"method entries of one thread": {set: &jdwp.EventRequestSetCommand{EventKind: jdwp.EventMethodEntry,
			Modifiers: []jdwp.Modifier{&jdwp.ThreadOnlyModifier{Thread: 1}}}},
		"a field's modifications": {set: &jdwp.EventRequestSetCommand{EventKind: jdwp.EventFieldModification,
			Modifiers: []jdwp.Modifier{&jdwp.FieldOnlyModifier{Class: 0x100, Field: 1}}}},
		"a suspend policy that is none": {set: &jdwp.EventRequestSetCommand{EventKind: jdwp.EventClassUnload, SuspendPolicy: 3}},
		"the session is ending":         {prep: func(h *harness) { h.send(&jdwp.VMDisposeCommand{}) }, set: stepRequest(1)},
		"its thread disposed": {prep: func(h *harness) {
			h.send(&jdwp.VMDisposeObjectsCommand{Requests: []jdwp.DisposeRequest{{Object: 1, RefCount: 1}}})
		}, set: stepRequest(1)},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			opts := c.opts
			if opts == nil {
				opts = []scache.Option{scache.WithAnswerAhead(true)}
			}
			h := withRequests(t, opts...)
			if c.prep != nil {
				c.prep(h)
			}
			requireNotAhead(t, h, c.set)
			require.Zero(t, h.s.Stats().AnsweredAhead)
		})
	}
}

// The requests a debugger makes as it attaches, for the events of classes
// and threads, are answered at once with the ids the VM gives them, once
// two replies showed the order; each reaches the VM, whose reply is
// absorbed.
func TestClassAndThreadRequestsAreAnsweredAhead(t *testing.T) {
	h := running(t, scache.WithAnswerAhead(true))
	h.send(&jdwp.EventRequestSetCommand{EventKind: jdwp.EventClassPrepare, SuspendPolicy: jdwp.SuspendPolicyNone})
	h.send(&jdwp.EventRequestSetCommand{EventKind: jdwp.EventClassUnload, SuspendPolicy: jdwp.SuspendPolicyNone})
	h.drain()
	require.Zero(t, h.s.Stats().AnsweredAhead, "two replies first")
	requireAnsweredAhead(t, h, 3,
		&jdwp.EventRequestSetCommand{EventKind: jdwp.EventClassPrepare, SuspendPolicy: jdwp.SuspendPolicyAll,
			Modifiers: []jdwp.Modifier{&jdwp.ClassMatchModifier{Pattern: "Debuggee"}, &jdwp.ClassExcludeModifier{Pattern: "java.*"}}},
		&jdwp.EventRequestSetCommand{EventKind: jdwp.EventThreadStart, SuspendPolicy: jdwp.SuspendPolicyNone, Modifiers: []jdwp.Modifier{&jdwp.CountModifier{Count: 1}}},
		&jdwp.EventRequestSetCommand{EventKind: jdwp.EventThreadDeath, SuspendPolicy: jdwp.SuspendPolicyEventThread})
}

// requireAnsweredAhead sends the Set commands one by one and checks that
// each is answered at once, with the ids from first on, that the VM then
// makes every request with those ids, and that their events keep them.
func requireAnsweredAhead(t *testing.T, h *harness, first int32, sets ...*jdwp.EventRequestSetCommand) {
	t.Helper()
	made := len(h.vm.Requests())
	ahead := h.s.Stats().AnsweredAhead
	for i, set := range sets {
		before := len(h.toDebugger)
		id := h.send(set)
		require.Len(t, h.toDebugger, before+1, "%v answered at once", set.EventKind)
		require.Equal(t, first+int32(i), requestID(t, h.replyTo(id)), "with the id the VM will give it")
	}
	require.Len(t, h.vmQueue, len(sets), "the commands are on their way to the VM")
	h.drain()
	require.Len(t, h.vm.Requests(), made+len(sets), "the VM made every request")
	st := h.s.Stats()
	require.Equal(t, ahead+int64(len(sets)), st.AnsweredAhead)
	require.Zero(t, st.AheadContradicted)
	last := first + int32(len(sets)) - 1
	require.Equal(t, []int32{last}, firedAs(t, h, last), "their events keep their ids")
}

// An IDE's exception breakpoint for any exception and its method
// breakpoints, filtered by class patterns, name nothing that may have gone:
// each is answered at once with the id the VM gives it.
func TestExceptionAndMethodRequestsAreAnsweredAhead(t *testing.T) {
	h := withRequests(t, scache.WithAnswerAhead(true))
	debuggee := []jdwp.Modifier{&jdwp.ClassMatchModifier{Pattern: "Debuggee"}}
	requireAnsweredAhead(t, h, 3,
		&jdwp.EventRequestSetCommand{EventKind: jdwp.EventException, SuspendPolicy: jdwp.SuspendPolicyAll,
			Modifiers: append([]jdwp.Modifier{&jdwp.ExceptionOnlyModifier{Caught: true, Uncaught: true}}, debuggee...)},
		&jdwp.EventRequestSetCommand{EventKind: jdwp.EventException, SuspendPolicy: jdwp.SuspendPolicyEventThread,
			Modifiers: []jdwp.Modifier{&jdwp.ExceptionOnlyModifier{Uncaught: true}, &jdwp.ClassExcludeModifier{Pattern: "java.*"}}},
		&jdwp.EventRequestSetCommand{EventKind: jdwp.EventMethodExitWithReturnValue, SuspendPolicy: jdwp.SuspendPolicyAll, Modifiers: debuggee},
		&jdwp.EventRequestSetCommand{EventKind: jdwp.EventMethodEntry, SuspendPolicy: jdwp.SuspendPolicyAll,
			Modifiers: []jdwp.Modifier{&jdwp.CountModifier{Count: 2}}})
}

// An exception breakpoint on one type and a method breakpoint on one
// class, named by ids the session saw loaded, are answered ahead too; once
// the class is unloaded, its id is for the VM to judge.
func TestRequestsNamingALoadedClassAreAnsweredAhead(t *testing.T) {
	h := withRequests(t, scache.WithAnswerAhead(true))
	h.send(&jdwp.VMAllClassesCommand{})
	h.drain()
	main := h.vm.Classes()[0]
	requireAnsweredAhead(t, h, 3,
		&jdwp.EventRequestSetCommand{EventKind: jdwp.EventException, SuspendPolicy: jdwp.SuspendPolicyAll,
			Modifiers: []jdwp.Modifier{&jdwp.ExceptionOnlyModifier{Exception: main.ID, Caught: true}}},
		&jdwp.EventRequestSetCommand{EventKind: jdwp.EventMethodEntry, SuspendPolicy: jdwp.SuspendPolicyAll,
			Modifiers: []jdwp.Modifier{&jdwp.ClassOnlyModifier{Class: main.ID}}})
	h.event(h.vm.Unload(main.Signature))
	h.drain()
	requireNotAhead(t, h, &jdwp.EventRequestSetCommand{EventKind: jdwp.EventMethodEntry, SuspendPolicy: jdwp.SuspendPolicyAll,
		Modifiers: []jdwp.Modifier{&jdwp.ClassOnlyModifier{Class: main.ID}}})
}

// So are those naming a class the debugger looked up by its signature.
func TestRequestsNamingAClassLookedUpAreAnsweredAhead(t *testing.T) {
	h := withRequests(t, scache.WithAnswerAhead(true))
	helper := h.vm.Classes()[1]
	exception := &jdwp.EventRequestSetCommand{EventKind: jdwp.EventException, SuspendPolicy: jdwp.SuspendPolicyAll,
		Modifiers: []jdwp.Modifier{&jdwp.ExceptionOnlyModifier{Exception: helper.ID, Uncaught: true}}}
	requireNotAhead(t, h, exception)
	h.send(&jdwp.VMClassesBySignatureCommand{Signature: helper.Signature})
	h.drain()
	requireAnsweredAhead(t, h, 4, exception)
}

// requireNotAhead sends the Set command and checks that the debugger gets
// the VM's reply, not one before the VM saw it: with nothing else on its
// way to the VM, the model's answer to it now.
func requireNotAhead(t *testing.T, h *harness, set *jdwp.EventRequestSetCommand) {
	t.Helper()
	ahead := h.s.Stats().AnsweredAhead
	idle := len(h.vmQueue) == 0
	want := h.vm.Clone().Handle(jdwp.AppendCommandPacket(nil, h.nextID, set, sizes8))
	before := len(h.toDebugger)
	id := h.send(set)
	for _, p := range h.toDebugger[before:] {
		require.NotEqual(t, id, jdwp.PacketID(p), "answered before the VM")
	}
	h.drain()
	got := h.replyTo(id)
	if idle {
		require.Equal(t, want, got, "the VM's answer")
	}
	require.Equal(t, ahead, h.s.Stats().AnsweredAhead)
}

// Not before the session showed how the VM numbers requests: two replies
// in order.
func TestRequestIDsAreLearnedFirst(t *testing.T) {
	h := running(t, scache.WithAnswerAhead(true))
	h.send(&jdwp.EventRequestSetCommand{EventKind: jdwp.EventClassPrepare, SuspendPolicy: jdwp.SuspendPolicyAll})
	h.drain()
	stopThread1(t, h, jdwp.SuspendPolicyAll)
	h.send(stepRequest(1))
	h.drain()
	require.Zero(t, h.s.Stats().AnsweredAhead, "one reply says nothing of the order")
	h.send(&jdwp.EventRequestClearCommand{EventKind: jdwp.EventSingleStep, RequestID: 2})
	h.drain()
	before := len(h.toDebugger)
	id := h.send(stepRequest(1))
	require.Len(t, h.toDebugger, before+1, "two did")
	require.Equal(t, int32(3), requestID(t, h.replyTo(id)))
	h.drain()
}

// A VM that gives a request answered ahead another id: the debugger keeps
// the id it was given, in the VM's events and in its Clear, and the ids the
// VM gives later never collide with it; no more Sets are answered ahead.
func TestAContradictedRequestIDIsRenamed(t *testing.T) {
	h := withRequests(t, scache.WithAnswerAhead(true))
	h.vm.SkipRequestIDs(1) // the VM will give 4, the debugger is told 3
	id := h.send(stepRequest(1))
	told := requestID(t, h.replyTo(id))
	require.Equal(t, int32(3), told)
	h.drain()
	require.Equal(t, []int32{1, 2, 4}, h.vm.Requests())
	require.Equal(t, int64(1), h.s.Stats().AheadContradicted)

	// The VM's events name request 4: the debugger sees 3.
	require.Equal(t, []int32{3, 1}, firedAs(t, h, 4, 1))

	// A request made now gets 5 from the VM: the debugger has no 5, it keeps it.
	later := h.send(&jdwp.EventRequestSetCommand{EventKind: jdwp.EventThreadStart, SuspendPolicy: jdwp.SuspendPolicyNone})
	h.drain()
	require.Equal(t, int32(5), requestID(t, h.replyTo(later)))

	// The debugger clears its 3: the VM clears its 4.
	h.send(&jdwp.EventRequestClearCommand{EventKind: jdwp.EventSingleStep, RequestID: 3})
	h.drain()
	require.Equal(t, []int32{1, 2, 5}, h.vm.Requests())

	// No more ahead: a step request waits for the VM.
	resumeAndStop(t, h)
	before := len(h.toDebugger)
	step := h.send(stepRequest(1))
	require.Len(t, h.toDebugger, before, "not answered ahead")
	h.drain()
	require.Equal(t, int32(6), requestID(t, h.replyTo(step)))
}

// A VM id that the debugger already holds for another request (the VM
// refused one answered ahead: the next Set answered ahead was given the id
// the VM gives the next one) is renamed to a fresh id, in the reply and in
// events; a Clear of the refused request's id clears nothing of the VM's.
func TestARefusedRequestAnsweredAheadLeavesNoCollision(t *testing.T) {
	h := withRequests(t, scache.WithAnswerAhead(true))
	first := h.send(stepRequest(1))
	second := h.send(stepRequest(1, &jdwp.CountModifier{Count: 2}))
	require.Equal(t, int32(3), requestID(t, h.replyTo(first)))
	require.Equal(t, int32(4), requestID(t, h.replyTo(second)))
	// The VM refuses the first (as a dying VM would), so it gives the second 3.
	h.vm.RefuseRequests = 1
	h.drain()
	require.Equal(t, []int32{1, 2, 3}, h.vm.Requests())
	st := h.s.Stats()
	require.Equal(t, int64(2), st.AheadContradicted, "a refusal and a renamed id")

	// The next request gets 4 from the VM, which the debugger holds: renamed.
	third := h.send(&jdwp.EventRequestSetCommand{EventKind: jdwp.EventThreadStart, SuspendPolicy: jdwp.SuspendPolicyNone})
	h.drain()
	fresh := requestID(t, h.replyTo(third))
	require.NotContains(t, []int32{1, 2, 3, 4}, fresh)

	require.Equal(t, []int32{4, fresh}, firedAs(t, h, 3, 4))

	// The debugger clears its 3, which the VM never made: the VM's 3 stays.
	h.send(&jdwp.EventRequestClearCommand{EventKind: jdwp.EventSingleStep, RequestID: 3})
	h.drain()
	require.Equal(t, []int32{1, 2, 3, 4}, h.vm.Requests())
	h.send(&jdwp.EventRequestClearCommand{EventKind: jdwp.EventSingleStep, RequestID: 4})
	h.drain()
	require.Equal(t, []int32{1, 2, 4}, h.vm.Requests())
}

// Renaming goes on after speculation is switched off.
func TestRenamingSurvivesDisable(t *testing.T) {
	h := withRequests(t, scache.WithAnswerAhead(true))
	h.vm.SkipRequestIDs(1)
	h.send(stepRequest(1))
	h.drain()
	h.sendRaw([]byte{1, 2, 3})
	require.False(t, h.s.Stats().Enabled)
	h.vmQueue = nil // the garbage never reaches a VM that answers
	require.Equal(t, []int32{3}, firedAs(t, h, 4))
}

// A VM whose Version names OpenJDK's agent numbers the session's requests
// from 2: the attach's Sets are answered ahead from the first, and the VM
// agrees. A VM that says nothing of its agent gets the two replies first.
func TestTheAttachsRequestsAreAnsweredAheadOnOpenJDKsAgent(t *testing.T) {
	attach := []*jdwp.EventRequestSetCommand{
		{EventKind: jdwp.EventClassPrepare, SuspendPolicy: jdwp.SuspendPolicyNone},
		{EventKind: jdwp.EventClassUnload, SuspendPolicy: jdwp.SuspendPolicyNone},
		{EventKind: jdwp.EventClassPrepare, SuspendPolicy: jdwp.SuspendPolicyAll, Modifiers: []jdwp.Modifier{&jdwp.ClassMatchModifier{Pattern: "Debuggee"}}},
	}
	for _, reference := range []bool{true, false} {
		t.Run(fmt.Sprintf("reference agent %v", reference), func(t *testing.T) {
			vm, _ := scachetest.World(sizes8)
			vm.ReferenceAgent = reference
			h := newHarness(t, vm, scache.WithAnswerAhead(true))
			h.apply(h.s.OnHandshake())
			h.drain()
			h.send(&jdwp.VMIDSizesCommand{})
			first := int32(1) // the model's numbering
			if reference {
				first = 2 // OpenJDK's agent's
			}
			ahead := 0
			for i, set := range attach {
				before := len(h.toDebugger)
				id := h.send(set)
				if len(h.toDebugger) > before {
					ahead++
					require.Equal(t, first+int32(i), requestID(t, h.replyTo(id)))
				}
				h.drain()
			}
			st := h.s.Stats()
			require.Zero(t, st.AheadContradicted)
			if reference {
				require.Equal(t, 3, ahead, "every Set answered at once")
				require.Equal(t, int64(3), st.AnsweredAhead)
			} else {
				require.Equal(t, 1, ahead, "the third, after two replies in order")
			}
			require.Len(t, h.vm.Requests(), 3, "the VM made every request")
		})
	}
}

// The session's numbering is taken only before its first Set: a Version
// reply that comes after one teaches nothing of the next id.
func TestAVersionAfterASetTeachesNothing(t *testing.T) {
	vm, _ := scachetest.World(sizes8)
	vm.ReferenceAgent = true
	// Without FamilyAttach, nothing asks the version before the debugger.
	h := newHarness(t, vm, scache.WithAnswerAhead(true), scache.WithFamilies(scache.AllFamilies&^scache.FamilyAttach))
	h.send(&jdwp.VMIDSizesCommand{})
	h.drain()
	h.send(&jdwp.EventRequestSetCommand{EventKind: jdwp.EventClassPrepare, SuspendPolicy: jdwp.SuspendPolicyNone})
	h.send(&jdwp.VMVersionCommand{})
	h.drain()
	before := len(h.toDebugger)
	h.send(&jdwp.EventRequestSetCommand{EventKind: jdwp.EventClassUnload, SuspendPolicy: jdwp.SuspendPolicyNone})
	require.Len(t, h.toDebugger, before, "one reply says nothing of the order")
	h.drain()
}

// At a suspend-thread stop the debugger pauses the VM and resumes it (an
// IDE's Pause and Resume), then steps on: the pause's resume leaves the
// stopped thread suspended at its event (parked), so its step request is
// answered ahead with the VM's id. After a resume that lets it run, it is
// not.
func TestAStepAfterAPauseIsAnsweredAhead(t *testing.T) {
	for _, pause := range []bool{true, false} {
		h := running(t)
		h.send(&jdwp.EventRequestSetCommand{EventKind: jdwp.EventClassPrepare, SuspendPolicy: jdwp.SuspendPolicyAll})
		h.send(&jdwp.EventRequestSetCommand{EventKind: jdwp.EventBreakpoint, SuspendPolicy: jdwp.SuspendPolicyAll})
		h.drain()
		stopThread1(t, h, jdwp.SuspendPolicyEventThread)
		if pause {
			ask(h, &jdwp.VMSuspendCommand{})
		}
		ask(h, &jdwp.VMResumeCommand{})
		if !pause {
			requireNotAhead(t, h, stepRequest(1))
			continue
		}
		want := h.vm.Clone().Handle(jdwp.AppendCommandPacket(nil, h.nextID, stepRequest(1), sizes8))
		id := h.send(stepRequest(1))
		require.Equal(t, want, h.replyTo(id), "answered before the VM saw it, with its id")
		h.drain()
		h.replyTo(id) // still exactly one reply
		require.Equal(t, int64(1), h.s.Stats().AnsweredAhead)
	}
}
