package scache

import "github.com/jdwpscache/scache/jdwp"

// A stop unlike the last of its kind. The learner pauses what went unused
// at the last stops of a kind (learn.go), but a debugger's stops of one
// kind can differ: an IDE evaluating a conditional breakpoint reads the
// top frame at most hits and resumes, and at the hit where the condition
// holds shows the user the thread's name, its whole stack, this and the
// variables. There each of those went to the VM, a round trip after the
// other. So at the first command of a stop that the learner had paused
// (the debugger asked for it: learner.resumed), the stop's own
// speculation goes out again past the learner, behind that command: the
// stopped thread's frames and name (FamilyStop), and the top frame's this
// and visible variables (FamilyTopFrame), and, where the debugger walked
// its threads view at its last stop of the kind that asked for the list,
// the list and the view (FamilyThreads, family_threads_walk.go); once an
// epoch. What was sent already is not sent twice (the queue keeps one of
// each).

// walkStop follows a state command m of the debugger that nothing
// answered (FamilyStop's onMissed).
func walkStop(s *Speculator, m jdwp.CommandMessage, life lifetime) {
	if life != lifetimeSuspension || !s.stop.on || !s.learn.resumed || s.walked == s.susp.epoch {
		return
	}
	s.walked = s.susp.epoch
	t := s.stop.event.thread
	missed := s.newKey(m)
	for _, c := range []jdwp.CommandMessage{&jdwp.ThreadFramesCommand{Thread: t, StartFrame: 0, Length: -1}, &jdwp.ThreadNameCommand{Thread: t}} {
		if s.newKey(c) != missed && (c.Command() != jdwp.CmdThreadReferenceName || threadsViewSpeculable(s)) {
			enqueueAsked(s, c, true) // not the missed command itself: its reply is on its way
		}
	}
	if top := &s.stop.top; s.table.on(FamilyTopFrame) && top.set && top.thread == t {
		// Asked again, as the debugger asks it at this stop: the learner
		// may have held either back.
		top.asked, top.thisDone, top.valuesDone = true, false, false
		advanceFrame(s, top)
	}
	if s.table.on(FamilyThreads) && s.view.walk.walks[s.stop.event.kind] {
		walkView(s, true)
	}
}
