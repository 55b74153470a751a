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
//
// Once the top frame's id is predicted at the stop event (framePredictor),
// the frames below it are predicted too, when the last stop of the kind
// stood where this one does: at the same depths as then, in the same
// places, their ids as far from the top's as then (OpenJDK's agent
// numbers a thread's frames by depth). Their this and values then go out
// with the stop, in the same round trip as the frames. A wrong guess costs
// only waste: a reply answers only a command with the same bytes in the
// same suspension, and the real frames are asked once a Frames reply
// shows them.

// maxDeeper bounds the depths below the top that are remembered.
const maxDeeper = 32

// deeperFrames is what the family keeps of the frames below the top.
type deeperFrames struct {
	// asked holds, per kind of stop, the count of stops of that kind when
	// the debugger last asked this or values of the frame at each depth
	// (0: never).
	asked [numStopKinds][maxDeeper]int
	// frames are the current stop's frames below the top being asked, and
	// seen whether a Frames reply of the stop showed them yet.
	frames []topFrame
	seen   bool
	// last holds, per kind of stop, the top frames of the stopped thread
	// at the last stop of the kind (at most maxDeeper).
	last [numStopKinds][]jdwp.Frame
}

// noteDeeper notes the depth of a frame of the stopped thread whose this
// or values the debugger asks (onAsked).
func noteDeeper(s *Speculator, key Key, m jdwp.CommandMessage) {
	if cmd := key.Command(); !s.stop.on || cmd != jdwp.CmdStackFrameThisObject && cmd != jdwp.CmdStackFrameGetValues {
		return // before decoding: every state command asked comes here
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
		k := s.stop.event.kind
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
	k := s.stop.event.kind
	s.deeper.last[k] = append(s.deeper.last[k][:0], frames[:min(len(frames), maxDeeper)]...)
	s.deeper.frames = s.deeper.frames[:0] // predicted ones that were right are cached or in flight
	for _, d := range deeperDepths(s, k, len(frames)) {
		s.deeper.frames = append(s.deeper.frames, topFrame{set: true, thread: thread, frame: frames[d].Frame, loc: frames[d].Location, asked: true})
	}
	advanceDeeper(s)
}

// deeperDepths returns the depths below the top, in a stack of n frames,
// that the debugger asked at its recent stops of kind k.
func deeperDepths(s *Speculator, k stopKind, n int) []int {
	var depths []int
	now := s.stop.count[k]
	for d := 1; d < min(n, maxDeeper); d++ {
		if last := s.deeper.asked[k][d]; last != 0 && now-last <= againIdle {
			depths = append(depths, d)
		}
	}
	return depths
}

// predictDeeper asks, at a stop whose top frame id is predicted (top),
// this and values of the frames below it that the debugger asks, where
// the last stop of the kind had them, if it stood where this one does.
func predictDeeper(s *Speculator, stop stopEvent, top jdwp.FrameID) {
	k := stop.kind
	last := s.deeper.last[k]
	if len(last) == 0 || last[0].Location != stop.loc {
		return
	}
	mask := frameIDMask(s.sizes)
	for _, d := range deeperDepths(s, k, len(last)) {
		frame := jdwp.FrameID((uint64(top) + uint64(last[d].Frame) - uint64(last[0].Frame)) & mask)
		s.deeper.frames = append(s.deeper.frames, topFrame{set: true, thread: stop.thread, frame: frame, loc: last[d].Location, asked: true, predicted: true})
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
// once the debugger changed values, as askTopValuesAgain does the top
// frame's: those a Frames reply showed.
func askDeeperValuesAgain(s *Speculator) {
	for i := range s.deeper.frames {
		if f := &s.deeper.frames[i]; !f.predicted {
			f.valuesDone = false
		}
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
	enqueueAs(s, m, true, urgent, false)
}
