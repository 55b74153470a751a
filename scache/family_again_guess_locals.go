package scache

import "github.com/jdwpscache/scache/jdwp"

// Guessed locals. A variable that holds a new object at each pass through
// a code location (a string built in a loop, a new list) is shown to the
// debugger for the first time by the stop's StackFrame.GetValues: the type,
// string value or length the debugger asks of it next can only be asked
// once that reply names it, a round trip after the stop's own. As with
// `this` (family_again_guess.go), the VM gives the object the next id of its counter,
// and a loop shows the same number of new objects from one pass to the
// next: so the Speculator learns, per code location and slot, how far apart
// the variable's objects are from one stop to the next, and right behind
// the top frame's GetValues that goes out with the event (which gives the
// id out) asks what the debugger asked of the last one of the object that
// distance after it. Only a variable whose object changed (a distance not
// 0) is guessed; one that holds the same object is answered from what was
// asked of it before. The same rules as for `this` keep a wrong guess to
// waste: only facts that are right whatever the id names, keyed like any
// command, errors not kept; two stops in a row without a right guess pause
// guessing at that site until one would have been right.

// maxLocals bounds the variable sites remembered.
const maxLocals = 1024

// localSite is a variable's slot at a code location.
type localSite struct {
	loc  jdwp.Location
	slot int32
}

// localHistory is what the Speculator knows of a variable's object at a
// site: its ids from stop to stop, and the tag of the last one.
type localHistory struct {
	idHistory
	tag jdwp.Tag
}

// guessLocals asks, behind the top frame's GetValues of slots sent with
// the event, for the facts of the objects the variables that held a new
// object at each of the last stops here will hold now.
func guessLocals(s *Speculator, loc jdwp.Location, slots []jdwp.SlotRequest) {
	mask := idMask(s.sizes.ObjectID)
	for _, slot := range slots {
		h := s.guesses.localsSeen[localSite{loc, slot.Slot}]
		if h == nil || h.delta == 0 {
			continue
		}
		// Only the distance: the newest id seen says nothing of a variable.
		if guess := h.guess(0, mask)[0]; guess != 0 {
			enqueueValueFacts(s, h.tag, guess)
		}
	}
}

// observeLocals notes, from the reply to the top frame's GetValues at a
// stop, the object each variable holds.
func observeLocals(s *Speculator, p *inFlight, reply *replyData) error {
	l := &s.again
	if !l.recording || !s.stop.top.set {
		return nil
	}
	cmd, err := p.key.Message(s.sizes)
	asked, ok := cmd.(*jdwp.FrameGetValuesCommand)
	if err != nil || !ok || asked.Thread != s.stop.top.thread || asked.Frame != s.stop.top.frame {
		return nil
	}
	m, err := reply.typed(s)
	if err != nil {
		return err
	}
	values := m.(*jdwp.ValuesReply).Values
	for i, slot := range asked.Slots {
		if i >= len(values) || !values[i].Tag.IsObject() || values[i].Bits == 0 {
			continue
		}
		h := boundedEntry(&s.guesses.localsSeen, localSite{s.stop.top.loc, slot.Slot}, maxLocals)
		if h == nil {
			continue
		}
		h.observe(values[i].ObjectID(), s.stop.stops())
		h.tag = values[i].Tag
	}
	return nil
}
