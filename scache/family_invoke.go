package scache

import "github.com/jdwpscache/scache/jdwp"

// FamilyInvoke: an IDE's renderers call toString() and size() on the
// objects a stop shows, jdb's print calls toString(), in the stopped thread,
// at every stop. The thread runs, so everything read of the stop before is
// gone (the epoch ended), and the debugger reads the thread's top frame
// again (JDI forgets a thread's frames once it ran), then the returned
// string's value. The VM suspends the thread again before it replies, where
// it stood (onSettle, state.go), so at the reply this family asks the top
// frame, its this and values under the frame id the predictor expects (the
// invocation resumed the thread: a new generation), and what a debugger
// reads of the returned value or exception. The invocation itself is the
// debugger's: never speculated, delayed or reordered.

// onInvoked speculates at the successful reply to an invocation.
func onInvoked(s *Speculator, _ *inFlight, reply *replyData) error {
	m, err := reply.typed(s)
	if err != nil {
		return err
	}
	switch m := m.(type) {
	case *jdwp.InvokeMethodReply:
		enqueueReturned(s, m.Return.Tag, m.Return.ObjectID())
		enqueueReturned(s, m.Exception.Tag, m.Exception.ID)
	case *jdwp.NewInstanceReply:
		enqueueReturned(s, m.Object.Tag, m.Object.ID)
		enqueueReturned(s, m.Exception.Tag, m.Exception.ID)
	}
	back := s.stop.invoked.back
	if back.thread == 0 {
		return nil // the suspension did not go on: nothing is known of the thread
	}
	s.enqueue(&jdwp.ThreadFramesCommand{Thread: back.thread, StartFrame: 0, Length: 1}, true)
	if back.loc.Class != 0 {
		predictTop(s, back)
	}
	return nil
}

// enqueueReturned asks the facts of an object an invocation returned (a
// string's value, an array's length, an object's type), if it is one.
func enqueueReturned(s *Speculator, tag jdwp.Tag, obj jdwp.ObjectID) {
	if tag.IsObject() && obj != 0 {
		enqueueValueFacts(s, tag, obj)
	}
}
