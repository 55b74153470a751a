package scache_test

import (
	"fmt"
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// stringMethod returns an instance method of the model class whose
// variable table has a String variable (slot 2).
func stringMethod(t tb, class *scachetest.ModelClass) jdwp.MethodID {
	var method jdwp.MethodID
	for _, m := range class.Methods {
		if scachetest.ModelModBits(m)&jdwp.ModStatic == 0 && m%4 >= 2 {
			method = m
		}
	}
	require.NotZero(t, method)
	return method
}

// loopLocals returns the values of slots at a pass n through a loop: the
// String variable (slot 2) holds text, the other objects this, the ints n.
func loopLocals(slots []jdwp.SlotRequest, this, text jdwp.ObjectID, n int) map[int32]jdwp.Value {
	locals := map[int32]jdwp.Value{}
	for _, sl := range slots {
		switch {
		case sl.Slot == 2:
			locals[sl.Slot] = jdwp.ObjectValue(jdwp.TagString, text)
		case sl.Tag.IsObject():
			locals[sl.Slot] = jdwp.ObjectValue(jdwp.TagObject, this)
		default:
			locals[sl.Slot] = jdwp.IntValue(int32(n))
		}
	}
	return locals
}

// A string built anew at each pass through a code location, as a loop
// does: once the distance between its ids was seen (two stops) and the top
// frame is predicted, its value goes out with the stop event, right behind
// the GetValues that shows it, and the debugger's StringReference.Value is
// answered without reaching the VM.
func TestTheNextLocalObjectIsGuessed(t *testing.T) {
	h := running(t)
	class := h.vm.Classes()[0]
	method := stringMethod(t, class)
	const index = 10
	slots := scache.VisibleSlots(scachetest.ModelVariableTable(method), index)
	require.Contains(t, slots, jdwp.SlotRequest{Slot: 2, Tag: jdwp.TagObject}, "the String variable is visible")
	h.vm.SetThread(1, []scachetest.ModelFrame{{Class: class.ID, Method: method, Index: index,
		Locals: map[int32]jdwp.Value{}}}).Suspends = 0
	for stop := 0; stop < 5; stop++ {
		this := h.vm.NewObject(class.ID)
		text := h.vm.NewString(fmt.Sprintf("value-%d", stop))
		th := h.vm.Thread(1)
		th.Frames[0].Locals = loopLocals(slots, this, text, stop)
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

// The guesses (the next this, its fields, the next object of a variable)
// never make a reply wrong: a thread loops through an instance method, on
// a new object most of the time (now and then of another class), with a new
// string in its variable, the VM showing other objects in between (so that
// guesses miss), now and then at another line, stopping at breakpoints and
// steps; the VM answers part of the speculation before the debugger asks;
// the debugger's views ask, at every stop, a drawn part of what jdb and
// IDEs ask (and of the objects shown at the last stop), in a drawn order. Every reply
// equals the VM's answer at the moment it was asked.
func TestGuessedIDsNeverStale(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		vm, _ := scachetest.World(sizes8)
		h := newHarness(t, vm)
		h.send(&jdwp.VMIDSizesCommand{})
		h.send(&jdwp.VMResumeCommand{})
		h.drain()
		class, other := vm.Classes()[0], vm.Classes()[1]
		method := stringMethod(t, class)
		vm.SetThread(1, []scachetest.ModelFrame{{Class: class.ID, Method: method, Index: 10}}).Suspends = 0
		this, text := vm.NewObject(class.ID), vm.NewString("start")
		lastThis, lastText := this, text
		// What this debugger's views ask at every stop, by index in asks.
		views := rapid.SliceOfNDistinct(rapid.IntRange(0, 11), 1, -1, rapid.ID[int]).Draw(t, "views")
		for stop, stops := 0, rapid.IntRange(3, 12).Draw(t, "stops"); stop < stops; stop++ {
			if rapid.IntRange(0, 3).Draw(t, "newThis") > 0 {
				c := class.ID
				if rapid.IntRange(0, 4).Draw(t, "otherClass") == 0 {
					c = other.ID
				}
				this = vm.NewObject(c)
			}
			for n := rapid.IntRange(0, 2).Draw(t, "otherObjects"); n > 0; n-- {
				vm.NewObject(class.ID)
			}
			if rapid.IntRange(0, 3).Draw(t, "newString") > 0 {
				text = vm.NewString(fmt.Sprintf("pass-%d", stop))
			}
			top := &vm.Thread(1).Frames[0]
			top.Index = 10
			if rapid.IntRange(0, 4).Draw(t, "otherLine") == 0 {
				top.Index = 14
			}
			slots := scache.VisibleSlots(scachetest.ModelVariableTable(method), top.Index)
			top.This, top.Locals = this, loopLocals(slots, this, text, stop)
			ev, ok := vm.Stop(1, jdwp.SuspendPolicyAll)
			require.True(t, ok)
			if rapid.Bool().Draw(t, "step") {
				ev = asStep(t, ev)
			}
			h.event(ev)
			for n := rapid.IntRange(0, 30).Draw(t, "answeredFirst"); n > 0 && h.step(); n-- {
			}
			th := vm.Thread(1)
			frame := vm.FrameID(th, th.Generation, 0)
			asks := []jdwp.CommandMessage{
				&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1},
				&jdwp.FrameThisObjectCommand{Thread: 1, Frame: frame},
				&jdwp.FrameGetValuesCommand{Thread: 1, Frame: frame, Slots: slots},
				&jdwp.ObjectRefReferenceTypeCommand{Object: this},
				&jdwp.StringRefValueCommand{Object: text},
				&jdwp.ObjectRefGetValuesCommand{Object: this, Fields: []jdwp.FieldID{}},
				&jdwp.ObjectRefGetValuesCommand{Object: this, Fields: []jdwp.FieldID{1}},
				&jdwp.ObjectRefGetValuesCommand{Object: this, Fields: []jdwp.FieldID{2, 1}},
				// Objects shown at the last stop (a watch), which a wrong
				// guess of this stop may have named.
				&jdwp.ObjectRefReferenceTypeCommand{Object: lastThis},
				&jdwp.StringRefValueCommand{Object: lastText},
				&jdwp.ObjectRefGetValuesCommand{Object: lastThis, Fields: []jdwp.FieldID{1}},
				// An id not given out yet (a debugger that names ids it was
				// not shown): its error must not outlive the moment.
				&jdwp.StringRefValueCommand{Object: text + 1},
			}
			for _, i := range rapid.Permutation(views).Draw(t, "order") {
				got, want := ask(h, asks[i])
				require.Equal(t, want, got, "stop %d: %T", stop, asks[i])
			}
			h.send(&jdwp.VMResumeCommand{})
			h.drain()
			lastThis, lastText = this, text
		}
	})
}
