package scache

import "github.com/jdwpscache/scache/jdwp"

// Drop Frame: an IDE's "Drop Frame" (Eclipse, IntelliJ, VS Code) pops the
// top frames of a suspended thread (StackFrame.PopFrames) to run a call
// again. OpenJDK's agent pops them one by one: it resumes that thread
// alone to single-step out of each frame and suspends it again before it
// replies (threadControl.c, popOneFrame); the other threads stay
// suspended. So, as at an invocation's reply (state.go: onSettle), the
// suspension goes on in a new epoch with the thread stopped at the call
// in the caller of the frame popped, and the debugger reads the thread's
// frames again, as after a step. At the reply this family asks them
// (their reply sets off the top frame's this and values: FamilyTopFrame),
// and FamilyAgain what this debugger asked after its last pops.
//
// The frame predictor does not guess the new top frame's id: the agent
// resumes the thread on its own to pop (HotSpot 17's ids moved two
// generations for one frame popped), so the predictor starts over from
// the frames asked here (family_topframe_predict.go: lose). A pop the
// agent refuses (a native or opaque frame) asks nothing.

// onPopped speculates at the successful reply to a PopFrames: the
// thread's frames, as a debugger reads them after a step.
func onPopped(s *Speculator, _ *inFlight, _ *replyData) error {
	back := s.stop.invoked.back
	if back.thread == 0 {
		return nil // the suspension did not go on: nothing is known of the thread
	}
	s.enqueue(&jdwp.ThreadFramesCommand{Thread: back.thread, StartFrame: 0, Length: 1}, true)
	s.enqueue(&jdwp.ThreadFramesCommand{Thread: back.thread, StartFrame: 0, Length: -1}, true)
	return nil
}
