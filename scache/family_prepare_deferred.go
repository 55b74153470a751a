package scache

import "github.com/jdwpscache/scache/jdwp"

// Line tables held back at a stop (FamilyPrepare). A debugger that lists
// the methods of a class while it reads a stop, a class in which no frame
// of the stop stands, is most often finding a method to invoke: an IDE's
// renderer looks up toString() or size() in the type of a value it shows,
// and the JDK's JDI lists each class of that type's hierarchy. It asks no
// line table there, and a class's line tables are one command per method
// (an ArrayList's some sixty, each of the VM's time). One that sets a
// breakpoint in that class asks each method's line table, the first
// first: the rest go out at that ask, right behind it, and the breakpoint
// costs one round trip more than with every table sent at the list.

// deferLineTables holds back the line tables of class's methods until the
// debugger asks one (at most maxPrepared classes; past them, none go out).
func deferLineTables(s *Speculator, class jdwp.ReferenceTypeID) {
	if len(s.deferred) >= maxPrepared {
		return
	}
	if s.deferred == nil {
		s.deferred = make(map[jdwp.ReferenceTypeID]bool)
	}
	s.deferred[class] = true
}

// askDeferredLineTables is FamilyPrepare's onMissed: the debugger asked a
// line table of a class whose tables were held back, and the other
// methods' tables go out behind it, in the order the class lists them.
func askDeferredLineTables(s *Speculator, m jdwp.CommandMessage, _ lifetime) {
	asked, ok := m.(*jdwp.MethodLineTableCommand)
	if !ok || !s.deferred[asked.RefType] {
		return
	}
	delete(s.deferred, asked.RefType)
	methods := jdwp.RefTypeMethodsReply{Generic: true}
	if !s.lookup.reply(&jdwp.RefTypeMethodsWithGenericCommand{RefType: asked.RefType}, &methods) {
		return
	}
	for _, method := range methods.Methods {
		if method.Method != asked.Method {
			s.enqueueClass(jdwp.CmdMethodLineTable, asked.RefType, method.Method, true)
		}
	}
}
