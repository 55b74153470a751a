package scache

import (
	"github.com/jdwpscache/scache/jdwp"
)

// Speculation at class preparation (FamilyPrepare). A debugger sets the
// breakpoints of a class it had none of loaded (deferred breakpoints) when
// the class is prepared: it asks the class's methods, then the line table of
// each method to find the line's code index, and the source name for its
// display, one round trip each while the VM waits suspended. Asked at the
// event, the methods and source names come back together, and each line
// table follows the methods at once.
//
// A debugger that asks a class's methods itself, outside a stop's
// inspection, is most often setting breakpoints in a class already loaded
// (an IDE attaching to a running app, breakpoints in many files): the
// JDK's JDI then asks the class's source debug extension and each method's
// line table, one round trip after the other. On the reply to its
// MethodsWithGeneric those go out at once, while the learner finds line
// tables used; at a stop, for a class no frame stands in, only once the
// debugger asks the first (an IDE that lists methods to invoke a renderer
// asks none: family_prepare_deferred.go).
// A debugger that asks the methods of a class in which a Frames reply of
// the epoch showed a frame is resolving where that frame stands (a deep
// stack, beyond the frames FamilyClass covers; another thread's stack in
// a threads view): it asks the line tables of those frames' methods only,
// and only those go out. (JDI keeps a class's methods for the session, so
// a breakpoint set later in such a class asks its line tables, not its
// methods: they go to the VM, as without the Speculator.)
//
// With an AttachMemory, the classes whose methods the debugger listed are
// remembered by signature for the next session; there, once the
// debugger's class list gives their new ids, their methods are asked
// behind the stop's speculation, and each reply brings the rest
// (recallAttach).

// prepareSet is what is asked about a class at its preparation; the line
// tables of its methods follow the reply to MethodsWithGeneric.
var prepareSet = []jdwp.Command{jdwp.CmdReferenceTypeMethodsWithGeneric,
	jdwp.CmdReferenceTypeSourceDebugExtension, jdwp.CmdReferenceTypeSourceFile}

// maxPrepared bounds the classes whose methods' reply is awaited to ask
// their line tables.
const maxPrepared = 64

// speculatePrepared queues, at a suspending ClassPrepare event, what a
// debugger asks about the class to set breakpoints in it.
func speculatePrepared(s *Speculator, class jdwp.ReferenceTypeID) {
	if len(s.prepared) >= maxPrepared {
		return
	}
	if s.prepared == nil {
		s.prepared = make(map[jdwp.ReferenceTypeID]bool)
	}
	s.prepared[class] = true
	for _, cmd := range prepareSet {
		if s.learn.allowsClass(cmd) {
			s.enqueueClass(cmd, class, 0, true)
		}
	}
}

// recallAttach, at the reply to the debugger's class list, asks the
// methods of the classes the attach memory holds (at most maxRemembered),
// behind the rest; each reply brings the class's source debug extension
// and line tables, as the debugger's own does. So the recall takes one
// slot in flight per class, and what the debugger asks next goes first.
func recallAttach(s *Speculator, p *inFlight, reply *replyData) error {
	m := s.cfg.attachMemory
	if m == nil || p.synthetic {
		return nil
	}
	if s.recalled == nil {
		s.recalled = make(map[jdwp.ReferenceTypeID]bool)
	}
	for _, sig := range m.signatures() {
		for _, class := range s.classes.bySig[sig] {
			if len(s.recalled) >= maxRemembered {
				return nil
			}
			if !s.recalled[class] && s.learn.allowsClass(jdwp.CmdReferenceTypeMethodsWithGeneric) {
				s.recalled[class] = true
				s.enqueueClass(jdwp.CmdReferenceTypeMethodsWithGeneric, class, 0, false)
			}
		}
	}
	return nil
}

// onPreparedMethods queues the line table of each method of a class just
// prepared, on the reply to its MethodsWithGeneric; and, on the reply to
// the debugger's own or a recalled class's, its source debug extension too.
func onPreparedMethods(s *Speculator, p *inFlight, reply *replyData) error {
	if m := s.cfg.attachMemory; m != nil && !p.synthetic {
		if sig, ok := s.classes.sigOf[p.class]; ok {
			m.remember(sig)
		}
	}
	recalled := s.recalled[p.class]
	if !s.prepared[p.class] && !recalled && p.synthetic {
		return nil
	}
	delete(s.prepared, p.class)
	delete(s.recalled, p.class)
	var shown []jdwp.MethodID // the debugger's own list: where the epoch's frames stand in the class
	if !recalled && !p.synthetic {
		shown = s.stop.methodsShownIn(p.class)
	}
	listedAtStop := !recalled && !p.synthetic && s.stop.atLocation() && len(shown) == 0
	if listedAtStop {
		// Finding a method to invoke, most often: the line tables wait
		// for the first the debugger asks, whatever the learner makes of
		// the line tables used so far (family_prepare_deferred.go).
		deferLineTables(s, p.class)
	}
	// A recalled class's source debug extension and line tables were used
	// at the last attach: the learner, which weighs what this session used
	// so far, would hold back the recall that runs ahead of the debugger.
	if !recalled && !s.learn.allowsClass(jdwp.CmdMethodLineTable) {
		return nil
	}
	if recalled || !p.synthetic && s.learn.allowsClass(jdwp.CmdReferenceTypeSourceDebugExtension) {
		s.enqueueClass(jdwp.CmdReferenceTypeSourceDebugExtension, p.class, 0, true)
	}
	if listedAtStop {
		return nil
	}
	m, err := reply.typed(s)
	if err != nil {
		return err
	}
	if len(shown) > 0 {
		// Resolving where the epoch's frames stand: only their methods'
		// line tables are asked.
		for _, method := range shown {
			s.enqueueClass(jdwp.CmdMethodLineTable, p.class, method, true)
		}
		return nil
	}
	for _, method := range m.(*jdwp.RefTypeMethodsReply).Methods {
		s.enqueueClass(jdwp.CmdMethodLineTable, p.class, method.Method, true)
	}
	return nil
}

// resetPrepared forgets the classes prepared, recalled and deferred (onReset).
func resetPrepared(s *Speculator) {
	clear(s.prepared)
	clear(s.recalled)
	s.deferred = s.deferred[:0]
}
