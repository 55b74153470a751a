package scache

import (
	"slices"

	"github.com/jdwpscache/scache/jdwp"
)

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
// debugger asks one. At most maxPrepared classes wait: past them, the one
// listed longest ago is forgotten (its tables then go to the VM as the
// debugger asks them, as without the Speculator).
func deferLineTables(s *Speculator, class jdwp.ReferenceTypeID) {
	if slices.Contains(s.deferred, class) {
		return
	}
	if len(s.deferred) >= maxPrepared {
		s.deferred = slices.Delete(s.deferred, 0, 1)
	}
	s.deferred = append(s.deferred, class)
}

// askDeferredLineTables is FamilyPrepare's onMissed: the debugger asked a
// line table of a class whose tables were held back, and the other
// methods' tables go out behind it, in the order the class lists them.
func askDeferredLineTables(s *Speculator, m jdwp.CommandMessage, _ lifetime) {
	asked, ok := m.(*jdwp.MethodLineTableCommand)
	if !ok {
		return
	}
	i := slices.Index(s.deferred, asked.RefType)
	if i < 0 {
		return
	}
	s.deferred = slices.Delete(s.deferred, i, i+1)
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
