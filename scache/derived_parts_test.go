package scache_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jdwpscache/scache/jdwp"
)

// A debugger that reads a few of a frame's locals, an object's fields or
// an array's elements after a read of all of them (JDI's getValue of one
// variable, an evaluator, a paged array) is answered from that read
// without the VM, each answer the VM's, in the order it asks. What the
// read did not hold (a slot under another type tag, a field it did not
// read, elements past it, even none of them) goes to the VM.
func TestPartsOfAReadOfValuesAreAnsweredFromIt(t *testing.T) {
	h, class := inInstanceMethod(t)
	array := h.vm.NewArray(class.ID, jdwp.TagInt, jdwp.IntValue(5), jdwp.IntValue(6), jdwp.IntValue(7), jdwp.IntValue(8))
	this := h.vm.NewObject(class.ID)
	holdArray(h, this, array)
	th := h.vm.Thread(1)
	slots := visibleInModel(t, h.vm, th.Frames[0])
	require.GreaterOrEqual(t, len(slots), 2, "the frame shows two locals")
	th.Frames[0].Locals = map[int32]jdwp.Value{}
	for i, slot := range slots {
		th.Frames[0].Locals[slot.Slot] = jdwp.IntValue(int32(10 + i))
		if slot.Tag.IsObject() {
			th.Frames[0].Locals[slot.Slot] = jdwp.ObjectValue(jdwp.TagObject, this)
		}
	}
	stopOn(t, h, this)
	h.drain()
	frame := h.vm.FrameID(th, th.Generation, 0)
	h.send(&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1})
	h.drain()
	for _, whole := range []jdwp.CommandMessage{
		&jdwp.FrameGetValuesCommand{Thread: 1, Frame: frame, Slots: slots},
		&jdwp.ObjectRefGetValuesCommand{Object: this, Fields: []jdwp.FieldID{1, holdsArray}},
		&jdwp.RefTypeGetValuesCommand{RefType: class.ID, Fields: []jdwp.FieldID{1, 2}},
		&jdwp.ArrayRefGetValuesCommand{Array: array, First: 0, Length: 4},
	} {
		got, want := ask(h, whole)
		requireSuccess(t, want)
		require.Equal(t, want, got, "%s", whole.Command())
	}
	otherTag := slots[0]
	otherTag.Tag = jdwp.TagLong
	if slots[0].Tag == jdwp.TagLong {
		otherTag.Tag = jdwp.TagInt
	}
	for _, c := range []struct {
		part     jdwp.CommandMessage
		answered bool
	}{
		{&jdwp.FrameGetValuesCommand{Thread: 1, Frame: frame, Slots: slots[1:2]}, true},
		{&jdwp.FrameGetValuesCommand{Thread: 1, Frame: frame, Slots: []jdwp.SlotRequest{slots[1], slots[0]}}, true},
		{&jdwp.ObjectRefGetValuesCommand{Object: this, Fields: []jdwp.FieldID{holdsArray}}, true},
		{&jdwp.ObjectRefGetValuesCommand{Object: this, Fields: []jdwp.FieldID{holdsArray, 1, holdsArray}}, true},
		{&jdwp.RefTypeGetValuesCommand{RefType: class.ID, Fields: []jdwp.FieldID{2}}, true},
		{&jdwp.ArrayRefGetValuesCommand{Array: array, First: 1, Length: 2}, true},
		{&jdwp.ArrayRefGetValuesCommand{Array: array, First: 3, Length: 1}, true},
		{&jdwp.ArrayRefGetValuesCommand{Array: array, First: 2, Length: 0}, true},
		{&jdwp.FrameGetValuesCommand{Thread: 1, Frame: frame, Slots: []jdwp.SlotRequest{otherTag}}, false},
		{&jdwp.ObjectRefGetValuesCommand{Object: this, Fields: []jdwp.FieldID{1, 2}}, false},
		{&jdwp.ArrayRefGetValuesCommand{Array: array, First: 2, Length: 3}, false},
		{&jdwp.ArrayRefGetValuesCommand{Array: array, First: 4, Length: 0}, false}, // HotSpot: INVALID_INDEX
	} {
		sent := len(h.toVM)
		got, want := ask(h, c.part)
		require.Equal(t, want, got, "%s %+v", c.part.Command(), c.part)
		require.Equal(t, !c.answered, len(h.toVM) > sent, "%s %+v reached the VM", c.part.Command(), c.part)
	}
	resume(h)
}

// While other threads run, an object's fields move (sequential.go): a part
// of a read of them is served only where the read itself would be, not
// once the debugger got newer state of the VM.
func TestAPartOfAMovingReadIsServedAsTheReadWouldBe(t *testing.T) {
	h, top := stopped(t, jdwp.SuspendPolicyEventThread)
	whole := &jdwp.ObjectRefGetValuesCommand{Object: top.This, Fields: []jdwp.FieldID{1, 2}}
	part := &jdwp.ObjectRefGetValuesCommand{Object: top.This, Fields: []jdwp.FieldID{2}}
	got, want := ask(h, whole)
	require.Equal(t, want, got)
	sent := len(h.toVM)
	got, want = ask(h, part)
	require.Equal(t, want, got)
	require.Equal(t, sent, len(h.toVM), "served from the read, the newest state the debugger has")

	// A running thread's status, newer than the read.
	got, want = ask(h, &jdwp.ThreadStatusCommand{Thread: 2})
	require.Equal(t, want, got)
	id := h.nextID
	got, want = ask(h, part)
	require.Equal(t, want, got)
	require.Equal(t, 1, h.reachedVM(id), "older than what the debugger has: the VM answers")
	resume(h)
}

// requireSuccess fails the test unless reply is a successful reply.
func requireSuccess(t *testing.T, reply []byte) {
	t.Helper()
	h, err := jdwp.ParseHeader(reply)
	require.NoError(t, err)
	require.Equal(t, jdwp.ErrNone, h.ErrorCode)
}
