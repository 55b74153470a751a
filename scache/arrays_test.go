package scache_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jdwpscache/scache/jdwp"
)

// arrayShown is what a debugger with this's array expanded asks at a stop:
// this's fields (the array among them), the array's length, then its
// elements from first, as many as length gives (0: all). It checks every
// reply against the VM's and reports how many of the asks reached the VM.
func arrayShown(t *testing.T, h *harness, this, array jdwp.ObjectID, length int32) (reached int) {
	for _, m := range []jdwp.CommandMessage{
		&jdwp.ObjectRefGetValuesCommand{Object: this, Fields: []jdwp.FieldID{1, holdsArray}},
		&jdwp.ArrayRefLengthCommand{Array: array},
		&jdwp.ArrayRefGetValuesCommand{Array: array, First: 0, Length: length},
	} {
		sent := len(h.toVM)
		got, want := ask(h, m)
		require.Equal(t, want, got, "%s", m.Command())
		reached += len(h.toVM) - sent
	}
	return reached
}

// holdsArray is the field of this that holds the array in these tests.
const holdsArray jdwp.FieldID = 3

// holdArray makes array the value of this's field holdsArray.
func holdArray(h *harness, this, array jdwp.ObjectID) {
	h.vm.Object(this).Fields[holdsArray] = jdwp.ObjectValue(jdwp.TagArray, array)
}

// showAndResume is the stop-th stop's view of this's array once its
// speculation is answered (see arrayShown), then a resume; from the
// from-th stop on none of the view's asks may reach the VM.
func showAndResume(t *testing.T, h *harness, this, array jdwp.ObjectID, length int32, stop, from int) {
	h.drain()
	askThis(t, h)
	reached := arrayShown(t, h, this, array, length)
	if stop >= from {
		require.Zero(t, reached, "stop %d: asks that reached the VM", stop)
	}
	resume(h)
}

// An IDE with this's int[] expanded, at a method called on one object
// after another: each stop's this holds a new array. From the third stop
// on, its fields, the array's length and all its elements are answered
// without reaching the VM, each answer the VM's.
func TestAnArrayHeldByThisIsReadAtTheNextStop(t *testing.T) {
	h, class := inInstanceMethod(t)
	for stop := 0; stop < 5; stop++ {
		array := h.vm.NewArray(class.ID, jdwp.TagInt, jdwp.IntValue(int32(stop)), jdwp.IntValue(7), jdwp.IntValue(-1))
		this := h.vm.NewObject(class.ID)
		holdArray(h, this, array)
		stopOn(t, h, this)
		showAndResume(t, h, this, array, 3, stop, 2)
	}
}

// A list's backing array grows from one stop to the next: the debugger
// reads the whole of it (JDI's getValues()) at its new length, which the
// Speculator reads once the length arrives. Every answer is the VM's, and
// from the third stop on the elements are answered without reaching the
// VM.
func TestAWholeArrayIsReadAtItsNewLength(t *testing.T) {
	h, class := inInstanceMethod(t)
	for stop := 0; stop < 5; stop++ {
		elements := make([]jdwp.Value, 4+2*stop)
		for i := range elements {
			elements[i] = jdwp.IntValue(int32(i * stop))
		}
		array := h.vm.NewArray(class.ID, jdwp.TagInt, elements...)
		this := h.vm.NewObject(class.ID)
		holdArray(h, this, array)
		stopOn(t, h, this)
		showAndResume(t, h, this, array, int32(len(elements)), stop, 2)
	}
}

// Steps in one frame show the same this, whose field the method sets to
// a new array at each step (a buffer made anew in a loop): this's fields
// go out on the guess that this is the last stop's, before the top
// frame's this is known, and the array they hold is read as soon as they
// arrive. From the third step on nothing reaches the VM.
func TestAnArrayHeldByThisIsReadAtEachStep(t *testing.T) {
	h, class := inInstanceMethod(t)
	this := h.vm.NewObject(class.ID)
	for stop := 0; stop < 6; stop++ {
		array := h.vm.NewArray(class.ID, jdwp.TagInt, jdwp.IntValue(int32(stop)), jdwp.IntValue(4))
		holdArray(h, this, array)
		if stop == 0 {
			stopOn(t, h, this)
		} else {
			stepOn(t, h, this)
		}
		showAndResume(t, h, this, array, 2, stop, 3)
	}
}

// An Object[] shown in the view: the debugger reads its elements, then
// each one's type, and a string's value. Once the elements' reply arrived
// the facts are answered without reaching the VM, each the VM's answer.
func TestTheFactsOfAnArraysElementsGoOutWithThem(t *testing.T) {
	h, class := inInstanceMethod(t)
	elements := []jdwp.Value{jdwp.ObjectValue(jdwp.TagObject, h.vm.NewObject(class.ID)),
		jdwp.ObjectValue(jdwp.TagString, h.vm.NewString("shown")), jdwp.ObjectValue(jdwp.TagObject, 0)}
	array := h.vm.NewArray(class.ID, jdwp.TagObject, elements...)
	stopOn(t, h, h.vm.NewObject(class.ID))
	h.drain()
	got, want := ask(h, &jdwp.ArrayRefGetValuesCommand{Array: array, First: 0, Length: 3})
	require.Equal(t, want, got)
	h.drain()
	sent := len(h.toVM)
	for _, m := range []jdwp.CommandMessage{
		&jdwp.ObjectRefReferenceTypeCommand{Object: elements[0].ObjectID()},
		&jdwp.ObjectRefReferenceTypeCommand{Object: elements[1].ObjectID()},
		&jdwp.StringRefValueCommand{Object: elements[1].ObjectID()},
	} {
		got, want := ask(h, m)
		require.Equal(t, want, got, "%s", m.Command())
	}
	require.Equal(t, sent, len(h.toVM), "the elements' facts answered from speculation")
}

// The array this holds is new at every stop, given out right after this
// (the agent numbers objects as it first shows them): once its distance
// from this was seen, it is read on that guess with this's fields, before
// their reply names it — a round trip sooner from one proxy.
func TestAnArrayHeldByThisIsReadOnAGuess(t *testing.T) {
	h, class := inInstanceMethod(t)
	for stop := 0; stop < 5; stop++ {
		this := h.vm.NewObject(class.ID)
		array := h.vm.NewArray(class.ID, jdwp.TagInt, jdwp.IntValue(int32(stop)), jdwp.IntValue(1))
		holdArray(h, this, array)
		stopOn(t, h, this)
		for queuedFor(h, jdwp.CmdObjectReferenceGetValues, this) == 0 && h.step() {
		}
		if stop >= 3 {
			require.Equal(t, 1, queuedFor(h, jdwp.CmdArrayReferenceGetValues, array), "stop %d: read with this's fields", stop)
		}
		showAndResume(t, h, this, array, 2, stop, 2)
	}
}

// Under a suspend-thread breakpoint this's fields, the statics and an
// array's elements move (others run), and rule (a) serves each read only
// from a reply that came after the last one delivered. A variables view
// reads this's fields, the statics, this's fields again, then the new
// array's elements (as the JDI driver does at eventextras' breakpoints): the
// reads in that order go out once this is known, of the array this holds
// on the guess (TestAnArrayHeldByThisIsReadOnAGuess's), not of the last
// stop's array. So from the fifth stop on the whole stop is answered from
// the replies to what went out with this's fields, before the VM answers
// anything sent once their reply named the array, each answer the VM's.
func TestAGuessedArrayIsReadInTheViewsOrder(t *testing.T) {
	h, class := inInstanceMethod(t)
	for stop := 0; stop < 6; stop++ {
		this := h.vm.NewObject(class.ID)
		array := h.vm.NewArray(class.ID, jdwp.TagInt, jdwp.IntValue(int32(stop)), jdwp.IntValue(1))
		holdArray(h, this, array)
		h.vm.Thread(1).Frames[0].This = this
		ev, ok := h.vm.Stop(1, jdwp.SuspendPolicyEventThread)
		require.True(t, ok)
		h.event(ev)
		view := []jdwp.CommandMessage{
			&jdwp.ObjectRefGetValuesCommand{Object: this, Fields: []jdwp.FieldID{1, holdsArray}},
			&jdwp.RefTypeGetValuesCommand{RefType: class.ID, Fields: []jdwp.FieldID{1}},
			&jdwp.ObjectRefGetValuesCommand{Object: this, Fields: []jdwp.FieldID{1, holdsArray}},
			&jdwp.ArrayRefGetValuesCommand{Array: array, First: 0, Length: 2},
		}
		if stop < 4 {
			h.drain()
			askThis(t, h)
			for _, m := range view {
				got, want := ask(h, m)
				require.Equal(t, want, got, "%s", m.Command())
			}
			resume(h)
			continue
		}
		for queuedFor(h, jdwp.CmdObjectReferenceGetValues, this) == 0 && h.step() {
		}
		for range len(h.vmQueue) { // what went out with this's fields, not what their reply leads to
			h.step()
		}
		th := h.vm.Thread(1)
		shown := append([]jdwp.CommandMessage{
			&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1},
			&jdwp.FrameThisObjectCommand{Thread: 1, Frame: h.vm.FrameID(th, th.Generation, 0)},
			&jdwp.ObjectRefReferenceTypeCommand{Object: this},
		}, view...)
		for _, m := range shown {
			got, want := askAtOnce(h, m)
			require.Equal(t, want, got, "stop %d: %s answered at once", stop, m.Command())
		}
		resume(h)
	}
}
