package scache

import (
	"sort"
	"strings"

	"github.com/jdwpscache/scache/jdwp"
)

// FamilyTopFrame: at a stop, the top frame's this and the values of the
// variables visible at its code index, as soon as the frame is known
// (predicted from the last stops' frame ids, or read from a Frames reply)
// and its method's metadata tells which variables there are. Every command here is a suspension entry:
// it lives until the epoch ends.

// onFrames notes the top frame of a Frames reply of the current epoch.
func onFrames(s *Speculator, p *inFlight, reply *replyData) error {
	asked, frames, ok, err := topOfFrames(s, p, reply)
	if err != nil || !ok {
		return err
	}
	top := frames[0]
	first := s.predictor.observe(asked.Thread, top.Frame, frameIDMask(s.sizes))
	if !s.susp.current(p) || s.susp.stopped != 0 && asked.Thread != s.susp.stopped {
		// A parked thread's of an epoch gone (parkedToo), or another
		// thread's, as a threads view asks: the top frame is the stopped
		// thread's, and a parked stop's goes on with its own.
		onParkedFrames(s, asked.Thread, top)
		return nil
	}
	askDeeper(s, asked.Thread, frames)
	if s.stop.top.set && s.stop.top.thread == asked.Thread {
		if !s.stop.top.predicted {
			return nil
		}
		if s.stop.top.frame == top.Frame && s.stop.top.loc == top.Location {
			s.stop.top.predicted = false // right: its this and values are on their way
			return nil
		}
		s.stats.FramesMispredicted++
		if !first {
			s.predictor.missed() // a new thread's first id leaves the step alone: observe took it
		}
	}
	s.stop.top = topFrame{set: true, thread: asked.Thread, frame: top.Frame, loc: top.Location}
	advanceTop(s)
	return nil
}

// predictTop asks, at a stop, for the top frame's this and visible
// variables under the frame id the VM will give it, when the predictor
// knows it (see framePredictor): in the same round trip as the frames.
func predictTop(s *Speculator, stop stopEvent) {
	if s.stop.takenUp {
		advanceTop(s) // a parked stop taken up: its top frame, if any, is known (takeup.go)
		return
	}
	frame, ok := s.predictor.predict(stop.thread, frameIDMask(s.sizes))
	if !ok {
		return
	}
	setPredictedTop(s, stop.thread, frame, stop.loc)
	predictDeeper(s, stop, frame)
}

// setPredictedTop makes frame, at loc, the predicted top frame of thread
// and asks its this and values as soon as its method's metadata allows.
func setPredictedTop(s *Speculator, thread jdwp.ThreadID, frame jdwp.FrameID, loc jdwp.Location) {
	s.stats.FramesPredicted++
	s.stop.top = topFrame{set: true, thread: thread, frame: frame, loc: loc, predicted: true}
	advanceTop(s)
}

// onTopMetadata goes on with the top frame when a method's modifiers or
// variable table arrive.
func onTopMetadata(s *Speculator, _ *inFlight, _ *replyData) error {
	advanceTop(s)
	advanceParkedTops(s)
	advanceDeeper(s)
	return nil
}

// topOfFrames returns the command and the frames of a Frames reply that
// starts at the top (ok false for another one, or an empty stack).
func topOfFrames(s *Speculator, p *inFlight, reply *replyData) (asked *jdwp.ThreadFramesCommand, frames []jdwp.Frame, ok bool, err error) {
	m, err := reply.typed(s)
	if err != nil {
		return nil, nil, false, err
	}
	frames = m.(*jdwp.ThreadFramesReply).Frames
	cmd, err := p.key.Message(s.sizes)
	asked, ok = cmd.(*jdwp.ThreadFramesCommand)
	if err != nil || !ok || len(frames) == 0 || asked.StartFrame != 0 {
		return nil, nil, false, nil
	}
	return asked, frames, true, nil
}

// onParkedFrames goes on with the top frame of a parked thread whose stop
// a later one superseded (parked.go) when its frames arrive (first, the
// top one): the reply is still true, and the debugger reads that stop in
// its turn.
func onParkedFrames(s *Speculator, thread jdwp.ObjectID, first jdwp.Frame) {
	top, ok := s.stop.parkedTop(thread)
	if !ok {
		return
	}
	if top.set && (!top.predicted || top.frame == first.Frame && top.loc == first.Location) {
		top.predicted = false
		s.stop.setParkedTop(thread, top)
		return
	}
	s.stop.setParkedTop(thread, topFrame{set: true, thread: thread, frame: first.Frame, loc: first.Location})
	advanceParkedTops(s)
}

// advanceParkedTops goes on with each parked top frame (onParkedFrames)
// as advanceTop does with the stop's.
func advanceParkedTops(s *Speculator) {
	for t, p := range s.stop.parked {
		if p.top.thisDone && p.top.valuesDone {
			continue
		}
		current := s.stop.top
		s.stop.top = p.top
		advanceTop(s)
		p.top, s.stop.top = s.stop.top, current
		s.stop.parked[t] = p
	}
}

// advanceTop asks for the top frame's this and visible variables as soon as
// the method's modifiers and variable table are known.
func advanceTop(s *Speculator) { advanceFrame(s, &s.stop.top) }

// advanceFrame asks for a frame's this and visible variables as soon as
// the method's modifiers and variable table are known.
func advanceFrame(s *Speculator, top *topFrame) {
	enqueue := s.enqueue
	if top.asked {
		enqueue = func(m jdwp.CommandMessage, urgent bool) { enqueueAsked(s, m, urgent) }
	}
	if !top.set || top.loc.Method == 0 {
		return
	}
	if !top.thisDone {
		switch static, known := s.lookup.methodIsStatic(top.loc.Class, top.loc.Method); {
		case !known:
			s.enqueueClass(jdwp.CmdReferenceTypeMethodsWithGeneric, top.loc.Class, 0, true)
		case static:
			top.thisDone = true
		default:
			top.thisDone = true
			enqueue(&jdwp.FrameThisObjectCommand{Thread: top.thread, Frame: top.frame}, true)
		}
	}
	if !top.valuesDone {
		vt, found, known := s.lookup.variableTable(top.loc.Class, top.loc.Method)
		switch {
		case !known:
			s.enqueueClass(jdwp.CmdMethodVariableTableWithGeneric, top.loc.Class, top.loc.Method, true)
		case !found:
			top.valuesDone = true
		default:
			top.valuesDone = true
			slots := VisibleSlots(vt, top.loc.Index)
			if len(slots) == 0 {
				return
			}
			enqueue(&jdwp.FrameGetValuesCommand{Thread: top.thread, Frame: top.frame, Slots: slots}, true)
			if top == &s.stop.top && top.predicted && s.table.on(FamilyAgain) && top.thread == s.stop.event.thread {
				guessLocals(s, top.loc, slots) // behind the GetValues that gives their ids out
			}
		}
	}
}

// askTopValuesAgain asks the top frame's values again once the debugger
// changed values, if they were asked (and not predicted: those are asked
// under the frame id the Frames reply confirms).
func askTopValuesAgain(s *Speculator) {
	if top := &s.stop.top; top.set && top.valuesDone && !top.predicted {
		top.valuesDone = false
		advanceTop(s)
	}
}

// askFramesValuesAgain asks the values of the top frame and of the frames
// below it being asked again once the debugger changed values
// (onValuesChanged).
func askFramesValuesAgain(s *Speculator, _ []Key) {
	askTopValuesAgain(s)
	askDeeperValuesAgain(s)
}

// resetTopFrame forgets what the family learned (onReset).
func resetTopFrame(s *Speculator) {
	resetPredictor(s)
	resetDeeper(s)
}

// VisibleSlots returns the slots JDI's StackFrame.getValues(visibleVariables())
// asks for at a code index, in its order: the variables whose scope holds the
// index (from CodeIndex to CodeIndex+Length-1), "this" and synthetic "this$"
// entries left out, the innermost scope winning among variables of the same
// name, sorted by scope start then slot; each with the first byte of its
// signature as tag.
func VisibleSlots(vt jdwp.MethodVariableTableReply, index uint64) []jdwp.SlotRequest {
	type variable struct {
		start uint64
		slot  int32
		tag   jdwp.Tag
	}
	byName := map[string]variable{}
	for _, v := range vt.Slots {
		if v.Name == "this" || strings.HasPrefix(v.Name, "this$") || v.Length <= 0 || v.Signature == "" {
			continue
		}
		end := v.CodeIndex + uint64(v.Length) - 1
		if index < v.CodeIndex || index > end {
			continue
		}
		if old, ok := byName[v.Name]; !ok || v.CodeIndex > old.start {
			byName[v.Name] = variable{start: v.CodeIndex, slot: v.Slot, tag: jdwp.Tag(v.Signature[0])}
		}
	}
	vars := make([]variable, 0, len(byName))
	for _, v := range byName {
		vars = append(vars, v)
	}
	sort.Slice(vars, func(i, j int) bool {
		if vars[i].start != vars[j].start {
			return vars[i].start < vars[j].start
		}
		return vars[i].slot < vars[j].slot
	})
	slots := make([]jdwp.SlotRequest, len(vars))
	for i, v := range vars {
		slots[i] = jdwp.SlotRequest{Slot: v.slot, Tag: v.tag}
	}
	return slots
}
