package scache_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jdwpscache/scache/jdwp"
)

// A user edits an element of an expanded array and the view reads what it
// showed again: nothing read before the edit is served after it; what was
// dropped went to the VM again right behind the edit, so the view's reads
// after it are answered without reaching the VM, with the VM's answers,
// which show the edit.
func TestAnArrayEditedIsReadAgain(t *testing.T) {
	h, class := inInstanceMethod(t)
	array := h.vm.NewArray(class.ID, jdwp.TagInt, jdwp.IntValue(1), jdwp.IntValue(2))
	this := h.vm.NewObject(class.ID)
	holdArray(h, this, array)
	stopOn(t, h, this)
	h.drain()
	askThis(t, h)
	arrayShown(t, h, this, array, 2)
	sent := len(h.toVM)
	before, _ := ask(h, &jdwp.ArrayRefGetValuesCommand{Array: array, First: 0, Length: 2})
	require.Equal(t, sent, len(h.toVM), "asked twice in a stop, answered from the cache")

	w := jdwp.NewWriter(sizes8)
	w.ObjectID(array)
	w.Int32(0)                        // the first index
	w.Int32(1)                        // one value
	w.UntaggedValue(jdwp.IntValue(5)) // untagged, as the array's
	h.sendRaw(jdwp.AppendCommand(nil, 900, jdwp.CmdArrayReferenceSetValues, w.Bytes()))
	h.drain()
	sent = len(h.toVM)
	got, want := ask(h, &jdwp.ArrayRefGetValuesCommand{Array: array, First: 0, Length: 2})
	require.Equal(t, want, got)
	require.NotEqual(t, before, got, "the edit shows")
	require.Zero(t, arrayShown(t, h, this, array, 2), "the view read again after the edit")
	require.Equal(t, sent, len(h.toVM), "answered from what went out behind the edit")
}

// A user edits a field of this in the view, and the view reads this's
// fields again: the reply from before the edit is not served, the one
// asked right behind the edit is, and it shows the edit.
func TestAFieldEditedIsReadAgain(t *testing.T) {
	h, class := inInstanceMethod(t)
	this := h.vm.NewObject(class.ID)
	stopOn(t, h, this)
	h.drain()
	askThis(t, h)
	fields := &jdwp.ObjectRefGetValuesCommand{Object: this, Fields: []jdwp.FieldID{1, 2}}
	before, want := ask(h, fields)
	require.Equal(t, want, before)

	editField(h, this, 2, 99)
	sent := len(h.toVM)
	got, want := ask(h, fields)
	require.Equal(t, want, got)
	require.NotEqual(t, before, got, "the edit shows")
	require.Equal(t, sent, len(h.toVM), "answered from what went out behind the edit")
}

// editField sets field of object to v, as a user editing it in a
// variables view does (ObjectReference.SetValues), and lets it through.
func editField(h *harness, object jdwp.ObjectID, field jdwp.FieldID, v int32) {
	w := jdwp.NewWriter(sizes8)
	w.ObjectID(object)
	w.Int32(1) // one field
	w.FieldID(field)
	w.UntaggedValue(jdwp.IntValue(v))
	h.sendRaw(jdwp.AppendCommand(nil, 901, jdwp.CmdObjectReferenceSetValues, w.Bytes()))
	h.drain()
}
