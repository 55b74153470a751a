package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
)

// jdb's `dump this.map` at every breakpoint: the fields of this, then the
// fields of the object one of them holds, one GetValues at a time (and one
// of no field). Both objects are new at every stop. From the third stop on
// every ask is answered without reaching the VM, and each answer is the
// VM's; at steps, where the debugger does not walk the chain, nothing of
// it is asked.
func TestObjectsHeldByThisAreAskedAgain(t *testing.T) {
	h, class := inInstanceMethod(t)
	const holds jdwp.FieldID = 3
	for stop := 0; stop < 5; stop++ {
		this, held := h.vm.NewObject(class.ID), h.vm.NewObject(class.ID)
		h.vm.Object(this).Fields[holds] = jdwp.ObjectValue(jdwp.TagObject, held)
		stopOn(t, h, this)
		h.drain()
		askThis(t, h)
		for _, a := range []struct {
			obj    jdwp.ObjectID
			fields []jdwp.FieldID
		}{{this, []jdwp.FieldID{1, holds}}, {held, nil}, {held, []jdwp.FieldID{1}}, {held, []jdwp.FieldID{2}}} {
			sent := len(h.toVM)
			got, want := ask(h, &jdwp.ObjectRefGetValuesCommand{Object: a.obj, Fields: a.fields})
			require.Equal(t, want, got)
			if stop >= 2 {
				require.Equal(t, sent, len(h.toVM), "stop %d: the fields %v of %#x answered from speculation", stop, a.fields, a.obj)
			}
		}
		resume(h)

		asked := queuedFor(h, jdwp.CmdObjectReferenceGetValues, held)
		stepOn(t, h, this)
		h.drain()
		askThis(t, h)
		require.Equal(t, asked, queuedFor(h, jdwp.CmdObjectReferenceGetValues, held), "stop %d: nothing of the chain asked at the step", stop)
		resume(h)
	}
}

// jdb's dump of an object never shown before, at a first stop where
// nothing was learned: it reads the class's fields, then asks each field
// in a command of its own, then one of no field. Once the first of them is
// answered, the others are asked at once: each is answered without
// reaching the VM, with the VM's answer.
func TestOneFieldAloneThenEachOther(t *testing.T) {
	h, class := inInstanceMethod(t)
	obj := h.vm.NewHolder(class.ID)
	stopOn(t, h, h.vm.NewObject(class.ID))
	h.drain()
	for _, m := range []jdwp.CommandMessage{
		&jdwp.RefTypeFieldsWithGenericCommand{RefType: class.ID},
		&jdwp.ClassTypeSuperclassCommand{RefType: class.ID},
		&jdwp.ObjectRefReferenceTypeCommand{Object: obj},
		&jdwp.ObjectRefGetValuesCommand{Object: obj, Fields: []jdwp.FieldID{1}},
	} {
		got, want := ask(h, m)
		require.Equal(t, want, got, "%s", m.Command())
	}
	sent := len(h.toVM)
	for _, fields := range [][]jdwp.FieldID{{2}, {scachetest.HeldField}, nil} {
		got, want := ask(h, &jdwp.ObjectRefGetValuesCommand{Object: obj, Fields: fields})
		require.Equal(t, want, got)
	}
	require.Equal(t, sent, len(h.toVM), "the other fields answered from speculation")
}

// A field of this holds an object of one class at some stops and of
// another at others (an ArrayList, then an empty list of its own class).
// The fields the debugger asked of the first class's objects are asked
// only of an object known to be of that class: never of the other's (a VM
// reads fields by offsets), and again as soon as the first class is back.
func TestHeldObjectsFieldsAreAskedOnlyOfTheirClass(t *testing.T) {
	h, class := inInstanceMethod(t)
	other := h.vm.Classes()[1]
	require.NotEqual(t, class.ID, other.ID)
	const holds jdwp.FieldID = 3
	for stop := 0; stop < 6; stop++ {
		heldClass := class.ID
		if stop == 3 {
			heldClass = other.ID
		}
		this, held := h.vm.NewObject(class.ID), h.vm.NewObject(heldClass)
		h.vm.Object(this).Fields[holds] = jdwp.ObjectValue(jdwp.TagObject, held)
		stopOn(t, h, this)
		h.drain()
		speculated := queuedFor(h, jdwp.CmdObjectReferenceGetValues, held)
		askThis(t, h)
		for _, m := range []jdwp.CommandMessage{
			&jdwp.ObjectRefGetValuesCommand{Object: this, Fields: []jdwp.FieldID{1, holds}},
			&jdwp.ObjectRefReferenceTypeCommand{Object: held},
		} {
			got, want := ask(h, m)
			require.Equal(t, want, got)
		}
		switch {
		case stop == 3:
			require.Zero(t, speculated, "stop %d: fields of %#x asked of an object of %#x", stop, class.ID, other.ID)
		case stop >= 2:
			require.Equal(t, 1, speculated, "stop %d: the held object's fields asked", stop)
		}
		if stop != 3 {
			got, want := ask(h, &jdwp.ObjectRefGetValuesCommand{Object: held, Fields: []jdwp.FieldID{1, 2}})
			require.Equal(t, want, got)
		}
		resume(h)
	}
}
