package scache

import (
	"slices"

	"github.com/jdwpscache/scache/jdwp"
)

// Type hierarchies. A debugger walks the supertypes of the types it shows:
// an IDE's renderers ask whether a class overrides toString or is a
// Collection (the Interfaces, Superclass, signature and methods of each
// supertype), jdb's dump lists the fields of every class up from this's.
// It walks one type after the other, a round trip each, and a first stop
// in a new class costs dozens. The supertypes are named by the replies to
// Superclass and Interfaces, so FamilyClass notes the types those replies
// name and, once the debugger asked a class command of such a type, asks
// that command of every type named so far and of each one named later: a
// level of the walk per round trip from one proxy, the whole walk at the
// VM's latency from a split proxy's near half. What it asks is what this
// debugger asked of a supertype, no more; the replies live as long as the
// class, so each goes out once a session.

// maxNamedTypes bounds the supertypes remembered.
const maxNamedTypes = 1024

// hierarchyWalk is what the Speculator knows of the debugger's walks.
type hierarchyWalk struct {
	// named holds the types a Superclass or Interfaces reply named, true
	// for an interface (ClassType.Superclass of one fails).
	named map[jdwp.ReferenceTypeID]bool
	// asks are the class commands the debugger asked of a named type, in
	// the order it first did, in the form the Speculator sends.
	asks []jdwp.Command
}

// onSupertypes notes the types a successful Superclass or Interfaces reply
// names and asks of each what the debugger asks of supertypes.
func onSupertypes(s *Speculator, _ *inFlight, reply *replyData) error {
	m, err := reply.typed(s)
	if err != nil {
		return nil // not what a walk can follow; the reply itself goes on as it is
	}
	switch m := m.(type) {
	case *jdwp.ClassTypeSuperclassReply:
		nameSupertype(s, m.Superclass, false)
	case *jdwp.RefTypeInterfacesReply:
		for _, t := range m.Interfaces {
			nameSupertype(s, t, true)
		}
	}
	return nil
}

// nameSupertype notes a supertype and asks of it what the debugger asks
// of supertypes.
func nameSupertype(s *Speculator, t jdwp.ReferenceTypeID, isInterface bool) {
	w := &s.walk
	if t == 0 {
		return // java.lang.Object has no superclass
	}
	if _, known := w.named[t]; known || len(w.named) >= maxNamedTypes {
		return // asked already: once when named, once per command learned
	}
	if w.named == nil {
		w.named = make(map[jdwp.ReferenceTypeID]bool)
	}
	w.named[t] = isInterface
	for _, cmd := range w.asks {
		askOfSupertype(s, cmd, t, isInterface)
	}
}

// askOfSupertype queues the class command cmd about the supertype t.
func askOfSupertype(s *Speculator, cmd jdwp.Command, t jdwp.ReferenceTypeID, isInterface bool) {
	if cmd == jdwp.CmdClassTypeSuperclass && isInterface {
		return
	}
	if m := supertypeCommand(cmd, t); m != nil {
		s.enqueue(m, false)
	}
}

// noteSupertypeAsk learns, from a class command the debugger asked that
// nothing answered, whether it walks supertypes: a command about a named
// type is from then on asked of every named type.
func noteSupertypeAsk(s *Speculator, m jdwp.CommandMessage, life lifetime) {
	w := &s.walk
	t, ok := supertypeOf(m)
	if !ok || life != lifetimeClass {
		return
	}
	if _, named := w.named[t]; !named {
		return
	}
	cmd := m.Command()
	if generic := genericFormOf(m); generic != nil {
		cmd = generic.Command() // the plain reply is derived from it (derived.go)
	}
	if slices.Contains(w.asks, cmd) {
		return
	}
	w.asks = append(w.asks, cmd)
	for named, isInterface := range w.named {
		askOfSupertype(s, cmd, named, isInterface)
	}
}

// walkCommands are the class commands a walk asks of supertypes, in the
// form the Speculator sends.
var walkCommands = []jdwp.Command{jdwp.CmdClassTypeSuperclass, jdwp.CmdReferenceTypeInterfaces,
	jdwp.CmdReferenceTypeSignatureWithGeneric, jdwp.CmdReferenceTypeMethodsWithGeneric, jdwp.CmdReferenceTypeFieldsWithGeneric}

// supertypeCommand returns the class command cmd about type t, for the
// commands a walk asks; nil for others.
func supertypeCommand(cmd jdwp.Command, t jdwp.ReferenceTypeID) jdwp.CommandMessage {
	if !slices.Contains(walkCommands, cmd) {
		return nil
	}
	return classCommand(cmd, t, 0)
}

// supertypeOf returns the type a class command a walk may ask (or its
// plain form) is about.
func supertypeOf(m jdwp.CommandMessage) (jdwp.ReferenceTypeID, bool) {
	cmd := m.Command()
	if generic := genericFormOf(m); generic != nil {
		cmd = generic.Command()
	}
	return classOf(m), slices.Contains(walkCommands, cmd)
}

// resetWalk forgets the walk (onReset).
func resetWalk(s *Speculator) { s.walk = hierarchyWalk{} }
