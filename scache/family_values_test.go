package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

// TestWhatAnEventNamesGoesOutWithTheStop: an exception breakpoint's stop
// names the exception and where it is caught, a watchpoint's the object
// and the value written, a method exit's the value returned. A debugger
// shows them with the stop: the type of each object, and the class
// metadata of the catch location, go out with the event and answer it.
func TestWhatAnEventNamesGoesOutWithTheStop(t *testing.T) {
	for _, kind := range []string{"exception", "watchpoint", "method exit"} {
		t.Run(kind, func(t *testing.T) {
			h := running(t)
			class := h.vm.Classes()[0]
			thrown, holder := h.vm.NewObject(class.ID), h.vm.NewObject(class.ID)
			written := h.vm.NewObject(class.ID)
			catcher := h.vm.AddClass("LCatcher;", 2, false, false)
			ev, ok := h.vm.Stop(1, jdwp.SuspendPolicyAll)
			require.True(t, ok)
			var c jdwp.Composite
			require.NoError(t, jdwp.Unmarshal(jdwp.Data(ev), sizes8, &c))
			at := c.Events[0].(*jdwp.LocationEvent)
			var objects []jdwp.ObjectID
			switch kind {
			case "exception":
				c.Events[0] = &jdwp.ExceptionEvent{RequestID: 4, Thread: at.Thread, Location: at.Location,
					Exception:     jdwp.TaggedObjectID{Tag: jdwp.TagObject, ID: thrown},
					CatchLocation: jdwp.Location{TypeTag: jdwp.TypeTagClass, Class: catcher.ID, Method: catcher.Methods[1], Index: 7}}
				objects = []jdwp.ObjectID{thrown}
			case "watchpoint":
				c.Events[0] = &jdwp.FieldModificationEvent{RequestID: 4, Thread: at.Thread, Location: at.Location,
					TypeTag: jdwp.TypeTagClass, TypeID: class.ID, Field: 1,
					Object: jdwp.TaggedObjectID{Tag: jdwp.TagObject, ID: holder}, ValueToBe: jdwp.ObjectValue(jdwp.TagObject, written)}
				objects = []jdwp.ObjectID{holder, written}
			case "method exit":
				c.Events[0] = &jdwp.MethodExitWithReturnValueEvent{RequestID: 4, Thread: at.Thread, Location: at.Location,
					Value: jdwp.ObjectValue(jdwp.TagObject, written)}
				objects = []jdwp.ObjectID{written}
			}
			h.event(jdwp.AppendCommandPacket(nil, 90, &c, sizes8))
			for _, obj := range objects {
				require.Equal(t, 1, queuedFor(h, jdwp.CmdObjectReferenceReferenceType, obj), "the type of %d, with the event", obj)
			}
			h.drain()
			asked := []jdwp.CommandMessage{}
			for _, obj := range objects {
				asked = append(asked, &jdwp.ObjectRefReferenceTypeCommand{Object: obj})
			}
			if kind == "exception" {
				asked = append(asked, &jdwp.RefTypeMethodsWithGenericCommand{RefType: catcher.ID},
					&jdwp.MethodLineTableCommand{RefType: catcher.ID, Method: catcher.Methods[1]},
					&jdwp.RefTypeSourceFileCommand{RefType: catcher.ID})
			}
			sent := len(h.toVM)
			for _, m := range asked {
				got, want := ask(h, m)
				require.Equal(t, want, got, "%s", m.Command())
			}
			require.Equal(t, sent, len(h.toVM), "answered from what went out with the event")
			require.Positive(t, h.s.Stats().Hits)
		})
	}
}
