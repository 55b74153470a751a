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

// topFrame is the top frame of the stopped thread in the current epoch,
// once a Frames reply has told it.
type topFrame struct {
	set        bool
	thread     jdwp.ObjectID
	frame      jdwp.FrameID
	loc        jdwp.Location
	thisDone   bool // ThisObject sent, or known to be useless (static method)
	valuesDone bool // GetValues sent, or known to be impossible (no variable table)
	predicted  bool // frame is predicted at the stop event, not yet seen in a Frames reply
}

// onFrames notes the top frame of a Frames reply of the current epoch.
func (s *Speculator) onFrames(p *inFlight, reply *replyData) error {
	m, err := reply.typed(s)
	if err != nil {
		return err
	}
	frames := m.(*jdwp.ThreadFramesReply).Frames
	cmd, err := p.key.Message(s.sizes)
	asked, ok := cmd.(*jdwp.ThreadFramesCommand)
	if err != nil || !ok || len(frames) == 0 || asked.StartFrame != 0 {
		return nil
	}
	top := frames[0]
	s.predictor.observe(asked.Thread, top.Frame, frameIDMask(s.sizes))
	if s.susp.stopped != 0 && asked.Thread != s.susp.stopped {
		return nil // another thread's, as a threads view asks: the top frame is the stopped thread's
	}
	if s.stop.top.set && s.stop.top.thread == asked.Thread {
		if !s.stop.top.predicted {
			return nil
		}
		if s.stop.top.frame == top.Frame && s.stop.top.loc == top.Location {
			s.stop.top.predicted = false // right: its this and values are on their way
			return nil
		}
		s.stats.FramesMispredicted++
		s.predictor.missed()
	}
	s.stop.top = topFrame{set: true, thread: asked.Thread, frame: top.Frame, loc: top.Location}
	s.advanceTop()
	return nil
}

// predictTop asks, at a stop, for the top frame's this and visible
// variables under the frame id the VM will give it, when the predictor
// knows it (see framePredictor): in the same round trip as the frames.
func (s *Speculator) predictTop(stop stopEvent) {
	frame, ok := s.predictor.predict(stop.thread, frameIDMask(s.sizes))
	if !ok {
		return
	}
	s.stats.FramesPredicted++
	s.stop.top = topFrame{set: true, thread: stop.thread, frame: frame, loc: stop.loc, predicted: true}
	s.advanceTop()
}

// onTopMetadata goes on with the top frame when a method's modifiers or
// variable table arrive.
func (s *Speculator) onTopMetadata(*inFlight, *replyData) error {
	s.advanceTop()
	return nil
}

// advanceTop asks for the top frame's this and visible variables as soon as
// the method's modifiers and variable table are known.
func (s *Speculator) advanceTop() {
	top := &s.stop.top
	if !top.set || top.loc.Method == 0 {
		return
	}
	if !top.thisDone {
		switch static, known := s.methodIsStatic(top.loc.Class, top.loc.Method); {
		case !known:
			s.enqueueClass(jdwp.CmdReferenceTypeMethodsWithGeneric, top.loc.Class, 0, true)
		case static:
			top.thisDone = true
		default:
			top.thisDone = true
			s.enqueue(&jdwp.FrameThisObjectCommand{Thread: top.thread, Frame: top.frame}, true)
		}
	}
	if !top.valuesDone {
		vt, found, known := s.variableTable(top.loc.Class, top.loc.Method)
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
			s.enqueue(&jdwp.FrameGetValuesCommand{Thread: top.thread, Frame: top.frame, Slots: slots}, true)
			if top.predicted && s.on(FamilyAgain) {
				s.guessLocals(top.loc, slots) // behind the GetValues that gives their ids out
			}
		}
	}
}

// askTopValuesAgain asks the top frame's values again once the debugger
// changed values, if they were asked (and not predicted: those are asked
// under the frame id the Frames reply confirms).
func (s *Speculator) askTopValuesAgain() {
	if top := &s.stop.top; top.set && top.valuesDone && !top.predicted {
		top.valuesDone = false
		s.advanceTop()
	}
}

// cachedData returns the cached reply to a command, without touching the
// cache's recency: its error code and data. ok is false when not cached.
func (s *Speculator) cachedData(m jdwp.CommandMessage) (jdwp.ErrorCode, []byte, bool) {
	e, ok := s.cache.lru.Peek(s.newKey(m))
	if !ok {
		return 0, nil, false
	}
	h, err := jdwp.ParseHeader(e.reply)
	if err != nil {
		return 0, nil, false
	}
	return h.ErrorCode, jdwp.Data(e.reply), true
}

// cachedReply decodes into reply the cached successful reply to a command,
// without touching the cache's recency. It reports false when none is
// cached, the VM answered an error, or the reply does not decode.
func (s *Speculator) cachedReply(m jdwp.CommandMessage, reply jdwp.Message) bool {
	code, data, ok := s.cachedData(m)
	return ok && code == jdwp.ErrNone && jdwp.Unmarshal(data, s.sizes, reply) == nil
}

// methodIsStatic reads a method's modifiers from a cached MethodsWithGeneric
// reply. known is false when no such reply is cached.
func (s *Speculator) methodIsStatic(class jdwp.ReferenceTypeID, method jdwp.MethodID) (static, known bool) {
	code, data, ok := s.cachedData(&jdwp.RefTypeMethodsWithGenericCommand{RefType: class})
	if !ok {
		return false, false
	}
	if code != jdwp.ErrNone {
		return true, true // nothing to go on: do not guess
	}
	m := jdwp.RefTypeMethodsReply{Generic: true}
	if jdwp.Unmarshal(data, s.sizes, &m) != nil {
		return true, true
	}
	for _, x := range m.Methods {
		if x.Method == method {
			return x.ModBits&jdwp.ModStatic != 0, true
		}
	}
	return true, true
}

// variableTable returns a method's cached variable table. found is false for
// an error reply (no variable information); known is false when nothing is cached.
func (s *Speculator) variableTable(class jdwp.ReferenceTypeID, method jdwp.MethodID) (vt jdwp.MethodVariableTableReply, found, known bool) {
	code, data, ok := s.cachedData(&jdwp.MethodVariableTableWithGenericCommand{RefType: class, Method: method})
	if !ok {
		return vt, false, false
	}
	vt.Generic = true
	if code != jdwp.ErrNone || jdwp.Unmarshal(data, s.sizes, &vt) != nil {
		return vt, false, true
	}
	return vt, true, true
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
