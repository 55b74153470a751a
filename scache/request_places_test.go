package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
)

// breakpointAt is an IDE's breakpoint request at index of class c's i-th
// method, with mods after the location.
func breakpointAt(c *scachetest.ModelClass, i int, index uint64, mods ...jdwp.Modifier) *jdwp.EventRequestSetCommand {
	loc := jdwp.Location{TypeTag: jdwp.TypeTagClass, Class: jdwp.ClassID(c.ID), Method: c.Methods[i], Index: index}
	return &jdwp.EventRequestSetCommand{EventKind: jdwp.EventBreakpoint, SuspendPolicy: jdwp.SuspendPolicyAll,
		Modifiers: append([]jdwp.Modifier{&jdwp.LocationOnlyModifier{Location: loc}}, mods...)}
}

// withLineTable returns a harness as withRequests whose debugger has asked
// the line table of class Main's first method, and Main.
func withLineTable(t *testing.T, opts ...scache.Option) (*harness, *scachetest.ModelClass) {
	h := withRequests(t, opts...)
	main := h.vm.Classes()[0]
	h.send(&jdwp.MethodLineTableCommand{RefType: main.ID, Method: main.Methods[0]})
	h.drain()
	return h, main
}

// A breakpoint at a line of the line table the VM gave is answered at
// once with the id the VM gives it; the command reaches the VM, which
// makes the request, and its reply is absorbed.
func TestABreakpointAtALineTheVMGaveIsAnsweredAhead(t *testing.T) {
	h, main := withLineTable(t, scache.WithAnswerAhead(true))
	requireAnsweredAhead(t, h, 3,
		breakpointAt(main, 0, 8),
		breakpointAt(main, 0, 0, &jdwp.CountModifier{Count: 3}),
		breakpointAt(main, 0, 8)) // again at the same place: the agent counts it
}

// A breakpoint the VM might refuse goes to the VM and waits for its reply:
// its refusal, or its id, reaches the debugger as the VM gave it.
func TestABreakpointTheVMMightRefuseIsNotAnsweredAhead(t *testing.T) {
	cases := map[string]func(h *harness, main *scachetest.ModelClass) *jdwp.EventRequestSetCommand{
		"past the end of the line table": func(h *harness, main *scachetest.ModelClass) *jdwp.EventRequestSetCommand {
			return breakpointAt(main, 0, uint64(scachetest.ModelLineTable(main.Methods[0], 0).End+1))
		},
		"an index below 0": func(h *harness, main *scachetest.ModelClass) *jdwp.EventRequestSetCommand {
			return breakpointAt(main, 0, ^uint64(0))
		},
		"a class whose line tables the VM did not give": func(h *harness, main *scachetest.ModelClass) *jdwp.EventRequestSetCommand {
			return breakpointAt(h.vm.AddClass("LFresh;", 2, false, false), 0, 0)
		},
		"a thread filter": func(h *harness, main *scachetest.ModelClass) *jdwp.EventRequestSetCommand {
			return breakpointAt(main, 0, 0, &jdwp.ThreadOnlyModifier{Thread: 1})
		},
		"a count the agent refuses": func(h *harness, main *scachetest.ModelClass) *jdwp.EventRequestSetCommand {
			return breakpointAt(main, 0, 0, &jdwp.CountModifier{Count: 0})
		},
		"two locations": func(h *harness, main *scachetest.ModelClass) *jdwp.EventRequestSetCommand {
			b := breakpointAt(main, 0, 0)
			b.Modifiers = append(b.Modifiers, b.Modifiers[0])
			return b
		},
		"a place named with another class id": func(h *harness, main *scachetest.ModelClass) *jdwp.EventRequestSetCommand {
			other := breakpointAt(main, 0, 4)
			other.Modifiers[0].(*jdwp.LocationOnlyModifier).Location.Class = jdwp.ClassID(h.vm.Classes()[1].ID)
			h.send(other) // refused by the model (Main declares the method), yet the agent would answer DUPLICATE
			h.drain()
			return breakpointAt(main, 0, 4)
		},
		"during a hot swap of the class": func(h *harness, main *scachetest.ModelClass) *jdwp.EventRequestSetCommand {
			h.send(&jdwp.VMRedefineClassesCommand{Classes: []jdwp.ClassDef{{RefType: main.ID, ClassFile: []byte{1}}}})
			return breakpointAt(main, 0, 0)
		},
	}
	for name, prep := range cases {
		t.Run(name, func(t *testing.T) {
			h, main := withLineTable(t, scache.WithAnswerAhead(true))
			requireNotAhead(t, h, prep(h, main))
		})
	}
}

// Should the VM refuse one all the same (its class unloaded in the round
// trip), the debugger keeps the id it was given, the VM's next request is
// renamed past it, and a Clear of it goes to the VM as of a request it does
// not have.
func TestABreakpointRefusedAfterAllLeavesNoCollision(t *testing.T) {
	h, main := withLineTable(t, scache.WithAnswerAhead(true))
	id := h.send(breakpointAt(main, 0, 8))
	given := requestID(t, h.replyTo(id))
	h.vm.RefuseRequests = 1
	h.drain()
	st := h.s.Stats()
	require.Equal(t, int64(1), st.AnsweredAhead)
	next := h.send(&jdwp.EventRequestSetCommand{EventKind: jdwp.EventClassPrepare, SuspendPolicy: jdwp.SuspendPolicyNone})
	h.drain()
	require.NotEqual(t, given, requestID(t, h.replyTo(next)), "no two requests share an id")
	clear := h.send(&jdwp.EventRequestClearCommand{EventKind: jdwp.EventBreakpoint, RequestID: given})
	h.drain()
	require.NotNil(t, h.replyTo(clear))
}

// watchOf is an IDE's watch request on field of class c (kind: access or
// modification), with mods after it.
func watchOf(kind jdwp.EventKind, c *scachetest.ModelClass, field jdwp.FieldID, mods ...jdwp.Modifier) *jdwp.EventRequestSetCommand {
	return &jdwp.EventRequestSetCommand{EventKind: kind, SuspendPolicy: jdwp.SuspendPolicyAll,
		Modifiers: append([]jdwp.Modifier{&jdwp.FieldOnlyModifier{Class: c.ID, Field: field}}, mods...)}
}

// withFields returns a harness as withRequests, on a model VM that can
// watch fields unless noWatches, whose debugger has listed Main's fields.
func withFields(t *testing.T, noWatches bool) (*harness, *scachetest.ModelClass) {
	vm, _ := scachetest.World(sizes8)
	vm.NoFieldWatches = noWatches
	h := newHarness(t, vm, scache.WithAnswerAhead(true))
	h.send(&jdwp.VMIDSizesCommand{})
	h.send(&jdwp.VMCapabilitiesNewCommand{})
	h.send(&jdwp.VMResumeCommand{})
	h.send(&jdwp.EventRequestSetCommand{EventKind: jdwp.EventClassPrepare, SuspendPolicy: jdwp.SuspendPolicyAll})
	h.send(&jdwp.EventRequestSetCommand{EventKind: jdwp.EventClassPrepare, SuspendPolicy: jdwp.SuspendPolicyAll})
	h.drain()
	main := h.vm.Classes()[0]
	h.send(&jdwp.RefTypeFieldsWithGenericCommand{RefType: main.ID})
	h.drain()
	return h, main
}

// A watch of a field the VM listed for its class, on a VM that watches
// fields, is answered at once with the id the VM gives it.
func TestAWatchOfAFieldTheVMListedIsAnsweredAhead(t *testing.T) {
	h, main := withFields(t, false)
	requireAnsweredAhead(t, h, 3,
		watchOf(jdwp.EventFieldModification, main, 1),
		watchOf(jdwp.EventFieldAccess, main, 2, &jdwp.CountModifier{Count: 1}),
		watchOf(jdwp.EventFieldModification, main, 1)) // again: the agent counts it
}

// A watch the VM might refuse goes to the VM and waits for its reply.
func TestAWatchTheVMMightRefuseIsNotAnsweredAhead(t *testing.T) {
	cases := map[string]struct {
		noWatches bool
		set       func(h *harness, main *scachetest.ModelClass) *jdwp.EventRequestSetCommand
	}{
		"a field the class does not have": {set: func(h *harness, main *scachetest.ModelClass) *jdwp.EventRequestSetCommand {
			return watchOf(jdwp.EventFieldModification, main, 9)
		}},
		"a class whose fields the VM did not list": {set: func(h *harness, main *scachetest.ModelClass) *jdwp.EventRequestSetCommand {
			return watchOf(jdwp.EventFieldModification, h.vm.Classes()[1], 1)
		}},
		"a VM that cannot watch fields": {noWatches: true, set: func(h *harness, main *scachetest.ModelClass) *jdwp.EventRequestSetCommand {
			return watchOf(jdwp.EventFieldAccess, main, 1)
		}},
		"an instance filter": {set: func(h *harness, main *scachetest.ModelClass) *jdwp.EventRequestSetCommand {
			return watchOf(jdwp.EventFieldModification, main, 1, &jdwp.InstanceOnlyModifier{Instance: 7})
		}},
		"a field named with another class id": {set: func(h *harness, main *scachetest.ModelClass) *jdwp.EventRequestSetCommand {
			h.send(watchOf(jdwp.EventFieldModification, h.vm.Classes()[1], 2))
			h.drain()
			return watchOf(jdwp.EventFieldModification, main, 2)
		}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			h, main := withFields(t, c.noWatches)
			requireNotAhead(t, h, c.set(h, main))
		})
	}
}
