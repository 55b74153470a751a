package scache

import "github.com/jdwpscache/scache/jdwp"

// FamilyClass: the class metadata of each frame of a Frames reply (the
// original jdwp-scache's speculation) and of the stop's location, in the
// order a JDI debugger asks it. Valid until the class is unloaded or
// redefined.

// speculateFrames queues the class metadata commands about the first
// MaxFrames frames of a Frames reply, top frame first.
func speculateFrames(s *Speculator, _ *inFlight, reply *replyData) error {
	m, err := reply.typed(s)
	if err != nil {
		return err
	}
	frames := m.(*jdwp.ThreadFramesReply).Frames
	enqueueFrames(s, frames, func(loc jdwp.Location) { enqueueLocation(s, loc) })
	return nil
}

// speculateClassicFrames is speculateFrames as the original jdwp-scache
// does it (FamilyClass's classic entry): its own frame set, every command
// of it for every frame, whether the debugger asks it or not.
func speculateClassicFrames(s *Speculator, _ *inFlight, reply *replyData) error {
	m, err := reply.typed(s)
	if err != nil {
		return err
	}
	enqueueFrames(s, m.(*jdwp.ThreadFramesReply).Frames, func(loc jdwp.Location) {
		for _, cmd := range classicFrameSet {
			if aboutMethod(cmd) && loc.Method == 0 {
				continue // an obsolete frame after a hot swap: no method to ask about
			}
			s.enqueueClass(cmd, loc.Class, methodOf(cmd, loc), false)
		}
	})
	return nil
}

// enqueueFrames calls enqueue for the location of each of the first
// MaxFrames frames, top frame first, once per method.
func enqueueFrames(s *Speculator, frames []jdwp.Frame, enqueue func(jdwp.Location)) {
	if len(frames) > s.cfg.maxFrames {
		frames = frames[:s.cfg.maxFrames]
	}
	seen := make([]jdwp.Location, 0, len(frames))
	for _, f := range frames {
		loc := f.Location
		if sameMethodSeen(seen, loc) {
			continue // a recursion: the same commands were just queued
		}
		seen = append(seen, loc)
		enqueue(loc)
	}
}

// speculateStopLocation queues, at a stop, the class metadata commands
// about the stop's location: the event names the top frame's class and
// method, so what a debugger asks of the top frame goes out with the
// frames instead of one reply behind them; and about where an exception
// thrown is caught, which the debugger shows with such a stop.
func speculateStopLocation(s *Speculator, stop stopEvent) {
	if stop.loc.Class == 0 {
		return
	}
	enqueueLocation(s, stop.loc)
	if stop.caught.Class != 0 { // an exception's: shown with the stop too
		enqueueLocation(s, stop.caught)
	}
}

// enqueueLocation queues the commands of the frame set about the class and method of
// a frame's location.
func enqueueLocation(s *Speculator, loc jdwp.Location) {
	for _, cmd := range defaultFrameSet {
		if aboutMethod(cmd) && loc.Method == 0 {
			continue // an obsolete frame after a hot swap: no method to ask about
		}
		if cmd == jdwp.CmdClassTypeSuperclass && loc.TypeTag == jdwp.TypeTagInterface {
			continue // an interface's default or static method: Superclass would fail
		}
		method := methodOf(cmd, loc)
		if !s.learn.allowsClass(cmd) {
			continue // this debugger does not ask it
		}
		s.enqueueClass(cmd, loc.Class, method, false)
	}
}

// methodOf returns the method of loc if cmd is about a method, else 0 (a
// class command).
func methodOf(cmd jdwp.Command, loc jdwp.Location) jdwp.MethodID {
	if aboutMethod(cmd) {
		return loc.Method
	}
	return 0
}

// sameMethodSeen reports whether seen holds a location in the same method.
func sameMethodSeen(seen []jdwp.Location, loc jdwp.Location) bool {
	for _, l := range seen {
		if l.TypeTag == loc.TypeTag && l.Class == loc.Class && l.Method == loc.Method {
			return true
		}
	}
	return false
}

// aboutMethod reports whether a class command of the speculation sets names a method.
func aboutMethod(cmd jdwp.Command) bool {
	return cmd == jdwp.CmdMethodLineTable || cmd == jdwp.CmdMethodIsObsolete || cmd == jdwp.CmdMethodVariableTableWithGeneric
}

// The speculation sets, in the order their commands are sent for each frame.
//
// The original's order is kept for Classic. The default order follows what a
// JDI debugger asks about a frame: the method (MethodsWithGeneric), the source
// name (SourceDebugExtension for strata, then SourceFile), the line
// (LineTable), the variables, then the type hierarchy.
var (
	classicFrameSet = []jdwp.Command{
		jdwp.CmdClassTypeSuperclass, jdwp.CmdMethodLineTable, jdwp.CmdReferenceTypeSourceFile,
		jdwp.CmdMethodIsObsolete, jdwp.CmdReferenceTypeSourceDebugExtension, jdwp.CmdReferenceTypeInterfaces,
		jdwp.CmdMethodVariableTableWithGeneric, jdwp.CmdReferenceTypeMethodsWithGeneric,
	}
	defaultFrameSet = []jdwp.Command{
		jdwp.CmdReferenceTypeMethodsWithGeneric, jdwp.CmdReferenceTypeSourceDebugExtension,
		jdwp.CmdReferenceTypeSourceFile, jdwp.CmdMethodLineTable, jdwp.CmdMethodVariableTableWithGeneric,
		jdwp.CmdMethodIsObsolete, jdwp.CmdClassTypeSuperclass, jdwp.CmdReferenceTypeInterfaces,
		// Only once this debugger asked them (learn.go: askedFirst).
		jdwp.CmdReferenceTypeSignature, jdwp.CmdReferenceTypeClassLoader,
	}
)
