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

// At a ClassPrepare event that suspends, the class's methods and source
// names are asked, then each method's line table: what a debugger asks to
// set its deferred breakpoints is answered without going to the VM. An
// event that suspends nothing (a debugger's class tracking) starts nothing.
func TestClassPrepareSpeculatesWhatBreakpointsNeed(t *testing.T) {
	for _, policy := range []jdwp.SuspendPolicy{jdwp.SuspendPolicyAll, jdwp.SuspendPolicyNone} {
		h := running(t)
		c := h.vm.AddClass("LPrepared;", 3, false, false)
		h.event(jdwp.AppendCommandPacket(nil, 77, &jdwp.Composite{SuspendPolicy: policy, Events: []jdwp.Event{
			&jdwp.ClassPrepareEvent{RequestID: 5, Thread: 1, TypeTag: jdwp.TypeTagClass, TypeID: c.ID,
				Signature: c.Signature, Status: jdwp.ClassStatusPrepared | jdwp.ClassStatusVerified}}}, sizes8))
		h.drain()
		_, lineTables := h.vmCommands(jdwp.CmdMethodLineTable)
		_, methods := h.vmCommands(jdwp.CmdReferenceTypeMethodsWithGeneric)
		if policy == jdwp.SuspendPolicyNone {
			require.Zero(t, lineTables+methods, "nothing speculated for an event that suspends nothing")
			continue
		}
		require.Equal(t, 1, methods)
		require.Equal(t, len(c.Methods), lineTables, "a line table for each method")
		requireAnsweredWithLineTables(t, h, c, &jdwp.RefTypeMethodsWithGenericCommand{RefType: c.ID},
			&jdwp.RefTypeSourceDebugExtensionCommand{RefType: c.ID}, &jdwp.RefTypeSourceFileCommand{RefType: c.ID})
	}
}

// requireAnsweredWithLineTables asks the commands, then the line table of
// each of class c's methods, and fails unless each reply equals the model's
// and none went to the VM.
func requireAnsweredWithLineTables(t *testing.T, h *harness, c *scachetest.ModelClass, asked ...jdwp.CommandMessage) {
	t.Helper()
	sent := len(h.toVM)
	for _, m := range c.Methods {
		asked = append(asked, &jdwp.MethodLineTableCommand{RefType: c.ID, Method: m})
	}
	for _, m := range asked {
		got, want := ask(h, m)
		require.Equal(t, want, got, "%s", m.Command())
	}
	require.Equal(t, sent, len(h.toVM), "every command answered from the speculation")
}

// A debugger that asks a loaded class's methods itself (setting a
// breakpoint in it) gets its source debug extension and every method's
// line table from the speculation that follows the reply.
func TestTheDebuggersOwnMethodsBringTheLineTables(t *testing.T) {
	h := running(t)
	c := h.vm.AddClass("LLoaded;", 3, false, false)
	got, want := ask(h, &jdwp.RefTypeMethodsWithGenericCommand{RefType: c.ID})
	require.Equal(t, want, got)
	_, lineTables := h.vmCommands(jdwp.CmdMethodLineTable)
	require.Equal(t, len(c.Methods), lineTables, "a line table for each method")
	requireAnsweredWithLineTables(t, h, c, &jdwp.RefTypeSourceDebugExtensionCommand{RefType: c.ID})
}

// A debugger that asks the methods of a class in which the stop's frames
// stand (deeper than the frames FamilyClass covers) is resolving where
// those frames are: the line tables of their methods go out on the reply,
// the class's other methods' do not, and the two the debugger asks next
// are answered from the speculation.
func TestMethodsAskedForFramesBringOnlyTheirLineTables(t *testing.T) {
	vm, classes := scachetest.World(sizes8)
	h := newHarness(t, vm, scache.WithMaxFrames(1))
	h.send(&jdwp.VMIDSizesCommand{})
	h.send(&jdwp.VMResumeCommand{})
	h.drain()
	stopThread1(t, h, jdwp.SuspendPolicyAll)
	main := classes[0] // frames 2 and 3 stand in its methods 1 and 0
	got, want := ask(h, &jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1})
	require.Equal(t, want, got)
	got, want = ask(h, &jdwp.RefTypeMethodsWithGenericCommand{RefType: main.ID})
	require.Equal(t, want, got)
	require.ElementsMatch(t, []jdwp.MethodID{main.Methods[0], main.Methods[1]}, lineTablesSent(t, h, main.ID),
		"the line tables of the frames' methods, not of the class's third")
	sent := len(h.toVM)
	for _, m := range main.Methods[:2] {
		got, want := ask(h, &jdwp.MethodLineTableCommand{RefType: main.ID, Method: m})
		require.Equal(t, want, got)
	}
	require.Equal(t, sent, len(h.toVM), "both answered from the speculation")
}

// lineTablesSent returns the methods of class whose line table the VM was
// asked, in order.
func lineTablesSent(t *testing.T, h *harness, class jdwp.ReferenceTypeID) []jdwp.MethodID {
	var methods []jdwp.MethodID
	for _, p := range h.toVM {
		ph, err := jdwp.ParseHeader(p)
		require.NoError(t, err)
		if ph.IsReply() || ph.Cmd() != jdwp.CmdMethodLineTable {
			continue
		}
		data := p[jdwp.HeaderSize:] // the class's id, then the method's: 8 bytes each (sizes8)
		if jdwp.ReferenceTypeID(binary.BigEndian.Uint64(data)) == class {
			methods = append(methods, jdwp.MethodID(binary.BigEndian.Uint64(data[8:])))
		}
	}
	return methods
}

// At a stop, a debugger that lists the methods of a class no frame of the
// stop stands in is most often finding a method to invoke (an IDE's
// renderer, before or after its first invocation), and no line table goes
// out. Once it asks one (a breakpoint set there), the other methods' go
// out behind it, and each is answered from the speculation with the VM's
// answer.
func TestMethodsListedAtAStopBringTheLineTablesAtTheFirstAsked(t *testing.T) {
	for _, invoked := range []bool{false, true} {
		h, class := inInstanceMethod(t)
		loaded := h.vm.AddClass("LLoaded;", 4, false, false)
		this := h.vm.NewObject(class.ID)
		stopOn(t, h, this)
		h.drain()
		got, want := ask(h, &jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1})
		require.Equal(t, want, got)
		for _, f := range h.vm.Thread(1).Frames { // where each frame stands: the learner finds line tables used
			got, want := ask(h, &jdwp.MethodLineTableCommand{RefType: f.Class, Method: f.Method})
			require.Equal(t, want, got)
		}
		if invoked {
			invokeToString(t, h, this)
		}
		got, want = ask(h, &jdwp.RefTypeMethodsWithGenericCommand{RefType: loaded.ID})
		require.Equal(t, want, got)
		require.Empty(t, lineTablesSent(t, h, loaded.ID), "invoked %v: no line table before the debugger asks one", invoked)

		got, want = ask(h, &jdwp.MethodLineTableCommand{RefType: loaded.ID, Method: loaded.Methods[0]})
		require.Equal(t, want, got)
		require.Equal(t, loaded.Methods, lineTablesSent(t, h, loaded.ID), "invoked %v: the first asked, then the others behind it", invoked)
		sent := len(h.toVM)
		for _, m := range loaded.Methods[1:] {
			got, want := ask(h, &jdwp.MethodLineTableCommand{RefType: loaded.ID, Method: m})
			require.Equal(t, want, got)
		}
		require.Equal(t, sent, len(h.toVM), "invoked %v: the others answered from the speculation", invoked)
	}
}

// Line tables held back wait for at most MaxPrepared classes: a renderer
// that lists one class after another, session long, does not keep a
// breakpoint set later in the class it listed last from bringing them.
// The class listed longest ago is forgotten: its line tables go to the VM
// as the debugger asks them, each answer the VM's.
func TestLineTablesWaitForTheLastClassesListed(t *testing.T) {
	h, class := inInstanceMethod(t)
	stopOn(t, h, h.vm.NewObject(class.ID))
	h.drain()
	var listed []*scachetest.ModelClass
	for i := range scache.MaxPrepared + 1 {
		c := h.vm.AddClass(fmt.Sprintf("LListed%d;", i), 2, false, false)
		got, want := ask(h, &jdwp.RefTypeMethodsWithGenericCommand{RefType: c.ID})
		require.Equal(t, want, got)
		listed = append(listed, c)
	}
	for _, c := range []*scachetest.ModelClass{listed[0], listed[len(listed)-1]} {
		got, want := ask(h, &jdwp.MethodLineTableCommand{RefType: c.ID, Method: c.Methods[0]})
		require.Equal(t, want, got)
	}
	require.Equal(t, listed[0].Methods[:1], lineTablesSent(t, h, listed[0].ID), "forgotten: the one asked alone")
	require.Equal(t, listed[len(listed)-1].Methods, lineTablesSent(t, h, listed[len(listed)-1].ID), "the last listed: the rest behind the first")
}
