package scache

import "github.com/jdwpscache/scache/jdwp"

// speculateFrames queues the class metadata commands about the first
// MaxFrames frames of a Frames reply, top frame first.
func (s *Speculator) speculateFrames(_ *inFlight, reply *replyData) error {
	m, err := reply.typed(s)
	if err != nil {
		return err
	}
	frames := m.(*jdwp.ThreadFramesReply).Frames
	set := defaultFrameSet
	if s.cfg.classic {
		set = classicFrameSet
	}
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
		s.enqueueLocation(loc, set)
	}
	return nil
}

// speculateStopLocation queues, at a stop, the class metadata commands
// about the stop's location: the event names the top frame's class and
// method, so what a debugger asks of the top frame goes out with the
// frames instead of one reply behind them.
func (s *Speculator) speculateStopLocation(stop stopEvent) {
	if s.cfg.classic || stop.loc.Class == 0 {
		return
	}
	s.enqueueLocation(stop.loc, defaultFrameSet)
}

// enqueueLocation queues the commands of set about the class and method of
// a frame's location.
func (s *Speculator) enqueueLocation(loc jdwp.Location, set []jdwp.Command) {
	for _, cmd := range set {
		var method jdwp.MethodID // 0: a class command
		if aboutMethod(cmd) {
			if loc.Method == 0 {
				continue // an obsolete frame after a hot swap: no method to ask about
			}
			method = loc.Method
		}
		if cmd == jdwp.CmdClassTypeSuperclass && loc.TypeTag == jdwp.TypeTagInterface && !s.cfg.classic {
			continue // an interface's default or static method: Superclass would fail
		}
		if !s.cfg.classic && !s.learn.allowsClass(cmd) {
			continue // this debugger does not ask it
		}
		s.enqueueClass(cmd, loc.Class, method, false)
	}
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

// speculateAttach asks, once a session's id sizes are known, for the facts a
// debugger asks once a session.
func (s *Speculator) speculateAttach(*inFlight, *replyData) error {
	s.enqueue(&jdwp.VMVersionCommand{}, false)
	s.enqueue(&jdwp.VMCapabilitiesNewCommand{}, false)
	return nil
}
