package scache

import "github.com/jdwpscache/scache/jdwp"

// Values read again after an edit. A user who sets a field, an array
// element or a static in the variables view sees the view refreshed: the
// debugger reads again what it showed, and the edit drops every values
// reply of the stop (endValues), those the debugger read and those
// speculated for it. FamilyAgain asks them again as the edit goes out,
// right behind it: the VM answers commands in order, so the replies show
// the edit. A frame's own values are FamilyTopFrame's
// (askFramesValuesAgain), asked again there in the frame's order.

// maxValuesAgain bounds the values asked again after one edit.
const maxValuesAgain = 64

// askValuesAgain asks again, as the debugger's edit goes out, the values
// commands whose replies it dropped, but the frames' (onValuesChanged).
func askValuesAgain(s *Speculator, dropped []Key) {
	n := 0
	for _, key := range dropped {
		if key.Command().Set == jdwp.SetStackFrame || n >= maxValuesAgain {
			continue
		}
		if m, err := key.Message(s.sizes); err == nil {
			n++
			enqueueAs(s, m, true, true, false)
		}
	}
}
