package scache_test

import (
	"fmt"
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
)

// A string built anew at each pass through a code location, as a loop
// does: once the distance between its ids was seen (two stops) and the top
// frame is predicted, its value goes out with the stop event, right behind
// the GetValues that shows it, and the debugger's StringReference.Value is
// answered without reaching the VM.
func TestTheNextLocalObjectIsGuessed(t *testing.T) {
	h := running(t)
	class := h.vm.Classes()[0]
	var method jdwp.MethodID
	for _, m := range class.Methods {
		if scachetest.ModelModBits(m)&jdwp.ModStatic == 0 && m%4 >= 2 {
			method = m // an instance method with a String variable (slot 2)
		}
	}
	require.NotZero(t, method)
	const index = 10
	slots := scache.VisibleSlots(scachetest.ModelVariableTable(method), index)
	require.Contains(t, slots, jdwp.SlotRequest{Slot: 2, Tag: jdwp.TagObject}, "the String variable is visible")
	h.vm.SetThread(1, []scachetest.ModelFrame{{Class: class.ID, Method: method, Index: index,
		Locals: map[int32]jdwp.Value{}}}).Suspends = 0
	for stop := 0; stop < 5; stop++ {
		this := h.vm.NewObject(class.ID)
		text := h.vm.NewString(fmt.Sprintf("value-%d", stop))
		th := h.vm.Thread(1)
		locals := map[int32]jdwp.Value{}
		for _, sl := range slots {
			switch {
			case sl.Slot == 2:
				locals[sl.Slot] = jdwp.ObjectValue(jdwp.TagString, text)
			case sl.Tag.IsObject():
				locals[sl.Slot] = jdwp.ObjectValue(jdwp.TagObject, this)
			default:
				locals[sl.Slot] = jdwp.IntValue(int32(stop))
			}
		}
		th.Frames[0].Locals = locals
		stopOn(t, h, this)
		guessed := queuedFor(h, jdwp.CmdStringReferenceValue, text)
		h.drain()
		// As a debugger: the frames, the variables, the string's value.
		h.send(&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1})
		got, want := ask(h, &jdwp.FrameGetValuesCommand{Thread: 1, Frame: h.vm.FrameID(th, th.Generation, 0), Slots: slots})
		require.Equal(t, want, got)
		sent := len(h.toVM)
		got, want = ask(h, &jdwp.StringRefValueCommand{Object: text})
		require.Equal(t, want, got)
		if stop >= 2 {
			require.Equal(t, 1, guessed, "stop %d: the string's value asked with the event", stop)
			require.Equal(t, sent, len(h.toVM), "stop %d: answered from speculation", stop)
		}
		resume(h)
	}
}
