package scachetest

import "github.com/jdwpscache/scache/jdwp"

// popFrames answers StackFrame.PopFrames (thread, frame) as OpenJDK's
// agent does: the frame and every frame above it are popped, and the
// thread stands at the call in the frame below, suspended again. The
// agent resumes the thread on its own to pop (threadControl.c,
// popOneFrame), and HotSpot 17's frame ids moved two generations for one
// frame popped: the model moves the thread two generations too. The
// thread must be suspended, the frame one of its frames now, and a frame
// must be left below it (the agent's JVMTI refuses to pop a thread's
// last frame: OPAQUE_FRAME).
func (vm *ModelVM) popFrames(r *jdwp.Reader) jdwp.ErrorCode {
	t, code := vm.suspendedThread(r)
	if code != jdwp.ErrNone {
		return code
	}
	id := r.FrameID()
	for depth := range t.Frames {
		if vm.FrameID(t, t.Generation, depth) != id {
			continue
		}
		if depth+1 >= len(t.Frames) {
			return jdwp.ErrOpaqueFrame
		}
		t.Frames = append([]ModelFrame(nil), t.Frames[depth+1:]...)
		vm.nextGeneration(t)
		vm.nextGeneration(t)
		return jdwp.ErrNone
	}
	return jdwp.ErrInvalidFrameID
}
