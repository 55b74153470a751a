package scache_test

import (
	"encoding/binary"
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
)

// inInstanceMethod returns a harness whose thread 1 runs in an instance
// method of the first class, and that class.
func inInstanceMethod(t *testing.T) (*harness, *scachetest.ModelClass) {
	h := running(t)
	class := h.vm.Classes()[0]
	var method jdwp.MethodID
	for _, m := range class.Methods {
		if scachetest.ModelModBits(m)&jdwp.ModStatic == 0 {
			method = m
		}
	}
	require.NotZero(t, method)
	h.vm.SetThread(1, []scachetest.ModelFrame{{Class: class.ID, Method: method, Index: 3}}).Suspends = 0
	return h, class
}

// stopOn stops thread 1 with this as its top frame's this and delivers the
// event, without answering anything yet.
func stopOn(t *testing.T, h *harness, this jdwp.ObjectID) {
	h.vm.Thread(1).Frames[0].This = this
	ev, ok := h.vm.Stop(1, jdwp.SuspendPolicyAll)
	require.True(t, ok)
	h.event(ev)
}

// queuedFor counts the synthetic commands of kind cmd about obj the VM has
// received.
func queuedFor(h *harness, cmd jdwp.Command, obj jdwp.ObjectID) int {
	n := 0
	for _, p := range h.toVM {
		ph, _ := jdwp.ParseHeader(p)
		d := jdwp.Data(p)
		if ph.Cmd() == cmd && scache.IsSyntheticID(ph.ID) && len(d) >= 8 && jdwp.ObjectID(binary.BigEndian.Uint64(d)) == obj {
			n++
		}
	}
	return n
}

// askThis asks, as a debugger, for the frames, the top frame's this and
// its type, and checks every reply against the VM's. It reports whether
// the type was answered without a command reaching the VM.
func askThis(t *testing.T, h *harness) (typeFromSpeculation bool) {
	th := h.vm.Thread(1)
	h.send(&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1})
	got, want := ask(h, &jdwp.FrameThisObjectCommand{Thread: 1, Frame: h.vm.FrameID(th, th.Generation, 0)})
	require.Equal(t, want, got)
	sent := len(h.toVM)
	got, want = ask(h, &jdwp.ObjectRefReferenceTypeCommand{Object: th.Frames[0].This})
	require.Equal(t, want, got)
	return len(h.toVM) == sent
}

// resume resumes every thread and lets the VM answer everything.
func resume(h *harness) {
	h.send(&jdwp.VMResumeCommand{})
	h.drain()
}

// inspectThis is askThis, then a resume.
func inspectThis(t *testing.T, h *harness) (typeFromSpeculation bool) {
	typeFromSpeculation = askThis(t, h)
	resume(h)
	return typeFromSpeculation
}

// A method called on one object after another: each stop's this is a new
// object, the same number of ids after the last one. Once that distance was
// seen (two stops) and the top frame is predicted, the type of the next
// this goes out with the stop event, behind the ThisObject that shows it.
func TestTheNextThisIsGuessed(t *testing.T) {
	h, class := inInstanceMethod(t)
	for stop := 0; stop < 5; stop++ {
		this := h.vm.NewObject(class.ID)
		stopOn(t, h, this)
		guessed := queuedFor(h, jdwp.CmdObjectReferenceReferenceType, this)
		h.drain()
		fromSpeculation := inspectThis(t, h)
		if stop >= 2 {
			require.Equal(t, 1, guessed, "stop %d: its type asked with the event", stop)
			require.True(t, fromSpeculation, "stop %d", stop)
		}
	}
}

// A guess about an object the VM has not given out yet is answered with
// an error: the error is neither kept nor given to the debugger's command
// held on it, which goes to the VM itself and gets the VM's answer about
// the object the id names by then.
func TestAnErrorAboutAGuessedObjectIsNotKept(t *testing.T) {
	h, class := inInstanceMethod(t)
	first := h.vm.NewObject(class.ID)
	for stop := 0; stop < 3; stop++ {
		stopOn(t, h, h.vm.NewObject(class.ID))
		h.drain()
		inspectThis(t, h)
	}
	// This stop is on an old object: the guess names an id not given out.
	stopOn(t, h, first)
	var guess jdwp.ObjectID
	for _, p := range h.vmQueue {
		ph, _ := jdwp.ParseHeader(p)
		if ph.Cmd() == jdwp.CmdObjectReferenceReferenceType && scache.IsSyntheticID(ph.ID) {
			guess = jdwp.ObjectID(binary.BigEndian.Uint64(jdwp.Data(p)))
		}
	}
	require.NotZero(t, guess, "a guess went out with the event")
	id := h.send(&jdwp.ObjectRefReferenceTypeCommand{Object: guess})
	require.Zero(t, repliesTo(h, id), "held: nothing answered it yet")
	// The VM answers everything queued so far (the guess: an error), then
	// gives the id out, then answers what is left.
	for n := len(h.vmQueue); n > 0; n-- {
		h.step()
	}
	require.Equal(t, guess, h.vm.NewObject(class.ID))
	want := h.vm.Clone().Handle(jdwp.AppendCommandPacket(nil, id, &jdwp.ObjectRefReferenceTypeCommand{Object: guess}, sizes8))
	h.drain()
	require.Equal(t, want, h.replyTo(id), "the VM's answer, not the guess's error")

	// Asked again, it is not answered from the error either.
	got, want := ask(h, &jdwp.ObjectRefReferenceTypeCommand{Object: guess})
	require.Equal(t, want, got)
}

// repliesTo counts the debugger's replies to id.
func repliesTo(h *harness, id uint32) int {
	n := 0
	for _, p := range h.toDebugger {
		if ph, _ := jdwp.ParseHeader(p); ph.IsReply() && ph.ID == id {
			n++
		}
	}
	return n
}

// The fields the debugger asked of the this of a class's stops are asked
// of the next stop's this only when its type is the same: a VM reads
// fields by offsets, and another class's field ids on an object are outside
// the protocol.
func TestFieldsAreNotAskedOfAnObjectOfAnotherType(t *testing.T) {
	h, class := inInstanceMethod(t)
	fields := []jdwp.FieldID{2, 1}
	stopOn(t, h, h.vm.NewObject(class.ID))
	h.drain()
	inspectThis(t, h)
	// The debugger asked the fields at the first stop; asking them at a
	// second stop (on the same object) makes them worth asking again.
	this := h.vm.Thread(1).Frames[0].This
	stopOn(t, h, this)
	h.drain()
	askThis(t, h)
	got, want := ask(h, &jdwp.ObjectRefGetValuesCommand{Object: this, Fields: fields})
	require.Equal(t, want, got)
	resume(h)

	// A stop in the same class on an object of another class (a subclass).
	other := h.vm.Classes()[1]
	stranger := h.vm.NewObject(other.ID)
	stopOn(t, h, stranger)
	h.drain()
	require.Zero(t, queuedFor(h, jdwp.CmdObjectReferenceGetValues, stranger), "not asked of an object of another type")
	// The debugger asks the fields of the other type; those are kept apart.
	askThis(t, h)
	got, want = ask(h, &jdwp.ObjectRefGetValuesCommand{Object: stranger, Fields: []jdwp.FieldID{1}})
	require.Equal(t, want, got)
	resume(h)

	// And on one of the same class again: asked.
	same := h.vm.NewObject(class.ID)
	stopOn(t, h, same)
	h.drain()
	require.Equal(t, 1, queuedFor(h, jdwp.CmdObjectReferenceGetValues, same))
	got, want = ask(h, &jdwp.ObjectRefGetValuesCommand{Object: same, Fields: fields})
	require.Equal(t, want, got)
}

// stepOn stops thread 1 at the end of a single step, with this as its top
// frame's this, and delivers the event.
func stepOn(t *testing.T, h *harness, this jdwp.ObjectID) {
	h.vm.Thread(1).Frames[0].This = this
	ev, ok := h.vm.Stop(1, jdwp.SuspendPolicyAll)
	require.True(t, ok)
	h.event(asStep(t, ev))
}

// asStep returns the model's breakpoint event packet ev as the end of a
// single step at the same place.
func asStep(t tb, ev []byte) []byte { return asKind(t, ev, jdwp.EventSingleStep) }

// asKind returns the model's breakpoint event packet ev as an event of
// kind (a located one: a step, a method's entry or exit, ...) at the same
// place.
func asKind(t tb, ev []byte, kind jdwp.EventKind) []byte {
	var c jdwp.Composite
	require.NoError(t, jdwp.Unmarshal(jdwp.Data(ev), sizes8, &c))
	c.Events[0].(*jdwp.LocationEvent).EventKind = kind
	ph, _ := jdwp.ParseHeader(ev)
	return jdwp.AppendCommandPacket(nil, ph.ID, &c, sizes8)
}

// jdb's dump asks the fields of this one GetValues at a time (and first
// one of no field): at a breakpoint on the next object each is answered
// without reaching the VM. At a step jdb shows the locals only: the fields
// asked at breakpoints are not asked there.
func TestThisFieldsAskedOneByOne(t *testing.T) {
	h, class := inInstanceMethod(t)
	asks := [][]jdwp.FieldID{{}, {1}, {2}}
	for stop := 0; stop < 5; stop++ {
		this := h.vm.NewObject(class.ID)
		stopOn(t, h, this)
		h.drain()
		askThis(t, h)
		for _, fields := range asks {
			sent := len(h.toVM)
			got, want := ask(h, &jdwp.ObjectRefGetValuesCommand{Object: this, Fields: fields})
			require.Equal(t, want, got)
			if stop >= 2 {
				require.Equal(t, sent, len(h.toVM), "stop %d: the fields %v answered from speculation", stop, fields)
			}
		}
		resume(h)

		asked := queuedFor(h, jdwp.CmdObjectReferenceGetValues, this)
		stepOn(t, h, this)
		h.drain()
		askThis(t, h)
		require.Equal(t, asked, queuedFor(h, jdwp.CmdObjectReferenceGetValues, this), "stop %d: no fields asked at the step", stop)
		resume(h)
	}
}

// An IDE expands this at breakpoints and at steps. A step mostly stays in
// the frame it started from, on the same this: from the second round on,
// the fields it asked of this at its steps go out with the step's event,
// for the last stop's this, and answer the debugger as the VM would.
func TestAStepAsksTheFieldsOfTheLastStopsThis(t *testing.T) {
	h, class := inInstanceMethod(t)
	fields := []jdwp.FieldID{1, 2}
	for round := 0; round < 4; round++ {
		this := h.vm.NewObject(class.ID)
		stopOn(t, h, this)
		h.drain()
		askThis(t, h)
		got, want := ask(h, &jdwp.ObjectRefGetValuesCommand{Object: this, Fields: fields})
		require.Equal(t, want, got)
		resume(h)

		before := queuedFor(h, jdwp.CmdObjectReferenceGetValues, this)
		stepOn(t, h, this)
		withEvent := queuedFor(h, jdwp.CmdObjectReferenceGetValues, this) - before
		h.drain()
		askThis(t, h)
		sent := len(h.toVM)
		got, want = ask(h, &jdwp.ObjectRefGetValuesCommand{Object: this, Fields: fields})
		require.Equal(t, want, got)
		if round >= 1 {
			require.Equal(t, 1, withEvent, "round %d: this's fields went out with the step's event", round)
			require.Equal(t, sent, len(h.toVM), "round %d: and answered the debugger", round)
		}
		resume(h)
	}
}
