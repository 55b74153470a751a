package scache

import "github.com/jdwpscache/scache/jdwp"

// FamilyStop: at a trusted stop, what a debugger asks first of the
// stopped thread: its frames, and its name while every thread is suspended.

// speculateStop asks, at a stop of thread t, for what a debugger asks first:
// the thread's frames (after a step, its top frame alone first: debuggers
// that ask frame(0) then; its depth follows from them) and (all threads
// suspended) its name.
func speculateStop(s *Speculator, stop stopEvent) {
	t := stop.thread
	if stop.kind == stopStep {
		s.enqueue(&jdwp.ThreadFramesCommand{Thread: t, StartFrame: 0, Length: 1}, true)
	}
	s.enqueue(&jdwp.ThreadFramesCommand{Thread: t, StartFrame: 0, Length: -1}, true)
	if threadsViewSpeculable(s) { // with EVENT_THREAD, a moving entry (sequential.go)
		s.enqueue(&jdwp.ThreadNameCommand{Thread: t}, true)
	}
}
