package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

// An IDE's renderer reads one field of a new object alone at every stop
// (a collection's size, through ObjectReference.getValue) and none of the
// others. jdb's dump would go on with each other field alone, and they go
// out at the first read's reply; once this debugger did not go on, they
// go out only at every 8th such read (a probe). When it does go on with
// another field alone, they go out again from its next read on. Every
// answer is the VM's.
func TestOneFieldReadAloneAndNoOtherKeepsTheOthersIn(t *testing.T) {
	h, class := inInstanceMethod(t)
	for _, m := range []jdwp.CommandMessage{
		&jdwp.RefTypeFieldsWithGenericCommand{RefType: class.ID},
		&jdwp.ClassTypeSuperclassCommand{RefType: class.ID},
	} {
		got, want := ask(h, m)
		require.Equal(t, want, got, "%s", m.Command())
	}
	for stop := 0; stop < 10; stop++ {
		stopOn(t, h, h.vm.NewObject(class.ID))
		h.drain()
		obj := h.vm.NewHolder(class.ID)
		got, want := ask(h, &jdwp.ObjectRefReferenceTypeCommand{Object: obj})
		require.Equal(t, want, got)
		got, want = ask(h, &jdwp.ObjectRefGetValuesCommand{Object: obj, Fields: []jdwp.FieldID{1}})
		require.Equal(t, want, got)
		others := queuedFor(h, jdwp.CmdObjectReferenceGetValues, obj)
		switch {
		case stop == 0:
			require.Positive(t, others, "the first read: as jdb's dump goes on")
		case stop == 7:
			require.Positive(t, others, "the 8th read: a probe")
			sent := len(h.toVM)
			got, want = ask(h, &jdwp.ObjectRefGetValuesCommand{Object: obj, Fields: []jdwp.FieldID{2}})
			require.Equal(t, want, got)
			require.Equal(t, sent, len(h.toVM), "the probe answered the next field")
		case stop > 7:
			require.Positive(t, others, "stop %d: the debugger went on at the probe", stop)
			got, want = ask(h, &jdwp.ObjectRefGetValuesCommand{Object: obj, Fields: []jdwp.FieldID{2}})
			require.Equal(t, want, got)
		default:
			require.Zero(t, others, "stop %d: the debugger read no other field at the last", stop)
		}
		resume(h)
	}
}
