package scache

import "github.com/jdwpscache/scache/jdwp"

// The frames below the top (FamilyTopFrame). A user walking up a deep
// stack selects one frame after another, and the IDE's variables view asks
// each one's this and the values of its visible variables (Eclipse's JDI
// asks this of static frames too: derived.go answers those). Frame ids
// change at every resume, but depths name the same frames from stop to
// stop: the family notes at which depths below the top the debugger asked
// a frame's this or values at its recent stops of each kind (breakpoint,
// step), and at the next stop of that kind asks them of the frames at
// those depths as soon as a Frames reply of the stopped thread shows them
// and their methods' metadata tells what there is, as it does for the top
// frame. A depth is forgotten once againIdle stops of its kind went by
// without the debugger asking it.

// maxDeeper bounds the depths below the top that are remembered.
const maxDeeper = 32

// deeperFrames is what the family keeps of the frames below the top.
type deeperFrames struct {
	// asked holds, per kind of stop, the count of stops of that kind when
	// the debugger last asked this or values of the frame at each depth
	// (0: never).
	asked [2][maxDeeper]int
	// frames are the current stop's frames below the top being asked, and
	// seen whether a Frames reply of the stop showed them yet.
	frames []topFrame
	seen   bool
}

// noteDeeper notes the depth of a frame of the stopped thread whose this
// or values the debugger asks (onAsked).
func noteDeeper(s *Speculator, key Key, m jdwp.CommandMessage) {
	if !s.stop.on {
		return
	}
	if m == nil {
		var err error
		if m, err = key.Message(s.sizes); err != nil {
			return
		}
	}
	var thread jdwp.ThreadID
	var frame jdwp.FrameID
	switch c := m.(type) {
	case *jdwp.FrameThisObjectCommand:
		thread, frame = c.Thread, c.Frame
	case *jdwp.FrameGetValuesCommand:
		thread, frame = c.Thread, c.Frame
	default:
		return
	}
	if thread != s.stop.event.thread {
		return
	}
	if d, ok := s.stop.depthOf(thread, frame); ok && d >= 1 && d < maxDeeper {
		k := boolIndex(s.stop.event.step)
		s.deeper.asked[k][d] = s.stop.count[k]
	}
}

// askDeeper asks, once a stop, this and the visible values of the frames
// of the stopped thread at the depths the debugger asked at its recent
// stops of the kind, from the frames of a Frames reply starting at the top.
func askDeeper(s *Speculator, thread jdwp.ThreadID, frames []jdwp.Frame) {
	if !s.stop.on || thread != s.stop.event.thread || s.deeper.seen {
		return
	}
	s.deeper.seen = true
	k := boolIndex(s.stop.event.step)
	now := s.stop.count[k]
	for d := 1; d < min(len(frames), maxDeeper); d++ {
		if last := s.deeper.asked[k][d]; last == 0 || now-last > againIdle {
			continue
		}
		s.deeper.frames = append(s.deeper.frames, topFrame{set: true, thread: thread, frame: frames[d].Frame, loc: frames[d].Location, asked: true})
	}
	advanceDeeper(s)
}

// advanceDeeper goes on with each frame below the top being asked, as
// advanceTop does with the top one.
func advanceDeeper(s *Speculator) {
	for i := range s.deeper.frames {
		advanceFrame(s, &s.deeper.frames[i])
	}
}

// askDeeperValuesAgain asks the values of the frames below the top again
// once the debugger changed values.
func askDeeperValuesAgain(s *Speculator) {
	for i := range s.deeper.frames {
		s.deeper.frames[i].valuesDone = false
	}
	advanceDeeper(s)
}

// endDeeperStop forgets the stop's frames below the top (onEndStop).
func endDeeperStop(s *Speculator, _ bool) {
	s.deeper.frames, s.deeper.seen = s.deeper.frames[:0], false
}

// resetDeeper forgets everything of the frames below the top (onReset).
func resetDeeper(s *Speculator) {
	s.deeper = deeperFrames{}
}

// enqueueAsked is enqueue for a command the debugger asked itself at its
// recent stops (admit's asked): the learner does not pause it.
func enqueueAsked(s *Speculator, m jdwp.CommandMessage, urgent bool) {
	if sub, ok := s.admit(m, true); ok {
		s.enqueueKey(s.newKey(m), m, sub, urgent)
	}
}
