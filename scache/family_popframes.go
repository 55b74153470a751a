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
// frames again, as after a step. This family asks them right behind the
// pop (behind.go: the agent pops before it reads its next command), and
// at the reply what did not go out behind it (their reply sets off the top
// frame's this and values: FamilyTopFrame); FamilyAgain asks what this
// debugger asked after its last pops, behind the pop and at its reply.
//
// The agent resumes the thread on its own to pop (HotSpot 17's ids moved
// two generations for one frame popped), which the frame predictor's
// count of resumes does not follow: it learns instead how far a pop moves
// the top frame's id, and once two pops agreed, the new top frame (where
// the thread's frame below the one popped stood, from its frames cached
// before the pop) has its this and values asked with its frames
// (family_topframe_predict.go: lose, predictPop). A pop the agent refuses
// (a native or opaque frame) asks nothing.

// askPoppedFrames asks, right behind the debugger's PopFrames, what
// onPopped asks at its reply: the thread's frames and, once the predictor
// knows how far a pop moves the top frame's id, the new top frame's this
// and visible values, where the method's modifiers and variable table are
// known. The agent reads them once the frames are popped, so they are back
// in the pop's own round trip (behind.go).
func askPoppedFrames(s *Speculator, cmd jdwp.Command, back stopEvent) {
	t := back.thread
	if cmd != jdwp.CmdStackFramePopFrames || t == 0 {
		return
	}
	enqueueBehind(s, &jdwp.ThreadFramesCommand{Thread: t, StartFrame: 0, Length: 1})
	enqueueBehind(s, &jdwp.ThreadFramesCommand{Thread: t, StartFrame: 0, Length: -1})
	frame, ok := s.predictor.predictPop(t, frameIDMask(s.sizes))
	if !ok || back.loc.Class == 0 {
		return
	}
	if static, known := s.lookup.methodIsStatic(back.loc.Class, back.loc.Method); known && !static {
		enqueueBehind(s, &jdwp.FrameThisObjectCommand{Thread: t, Frame: frame})
	}
	if vt, found, known := s.lookup.variableTable(back.loc.Class, back.loc.Method); known && found {
		if slots := VisibleSlots(vt, back.loc.Index); len(slots) > 0 {
			enqueueBehind(s, &jdwp.FrameGetValuesCommand{Thread: t, Frame: frame, Slots: slots})
		}
	}
}

// onPopped speculates at the successful reply to a PopFrames: the
// thread's frames, as a debugger reads them after a step, and the new top
// frame's this and values once the predictor knows how far a pop moves
// its id.
func onPopped(s *Speculator, _ *inFlight, _ *replyData) error {
	back := s.stop.invoked.back
	if back.thread == 0 {
		return nil // the suspension did not go on: nothing is known of the thread
	}
	s.enqueue(&jdwp.ThreadFramesCommand{Thread: back.thread, StartFrame: 0, Length: 1}, true)
	s.enqueue(&jdwp.ThreadFramesCommand{Thread: back.thread, StartFrame: 0, Length: -1}, true)
	if back.loc.Class == 0 {
		return nil
	}
	if frame, ok := s.predictor.predictPop(back.thread, frameIDMask(s.sizes)); ok {
		setPredictedTop(s, back.thread, frame, back.loc)
	}
	return nil
}
