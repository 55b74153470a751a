package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

// supertypes gives the class of thread 1's top frame a hierarchy: a
// superclass with a superclass of its own, and two interfaces.
func supertypes(t *testing.T, h *harness) (class, super, superSuper, i1, i2 jdwp.ReferenceTypeID) {
	c, ok := h.vm.Class(h.vm.Thread(1).Frames[0].Class)
	require.True(t, ok)
	s := h.vm.AddClass("LSuper;", 1, false, false)
	ss := h.vm.AddClass("LSuperSuper;", 1, false, false)
	a := h.vm.AddClass("LFirst;", 1, true, false)
	b := h.vm.AddClass("LSecond;", 1, true, false)
	c.Superclass, s.Superclass = s.ID, ss.ID
	c.Interfaces = []jdwp.InterfaceID{a.ID, b.ID}
	return c.ID, s.ID, ss.ID, a.ID, b.ID
}

// TestSupertypesWalkedOnceTheDebuggerWalks: a renderer asks, of each
// supertype of a shown class, its interfaces, superclass and methods, one
// after the other. Once it asked a command of a type a Superclass or
// Interfaces reply named, that command goes out for every such type,
// named now or later (the walk's own replies name the next level): the
// rest of the walk is answered without reaching the VM, equal to it.
func TestSupertypesWalkedOnceTheDebuggerWalks(t *testing.T) {
	h, _ := inInstanceMethod(t)
	_, super, superSuper, i1, i2 := supertypes(t, h)
	stopOn(t, h, h.vm.NewObject(h.vm.Thread(1).Frames[0].Class))
	h.drain()
	require.Zero(t, queuedFor(h, jdwp.CmdReferenceTypeInterfaces, jdwp.ObjectID(i1)),
		"nothing of a supertype before the debugger walks")

	// The debugger walks: what it asks of the first interface misses.
	for _, m := range []jdwp.CommandMessage{
		&jdwp.RefTypeInterfacesCommand{RefType: i1},
		&jdwp.RefTypeMethodsCommand{RefType: i1},
		&jdwp.ClassTypeSuperclassCommand{RefType: super},
	} {
		got, want := ask(h, m)
		require.Equal(t, want, got)
	}
	sent := len(h.toVM)
	for _, m := range []jdwp.CommandMessage{
		&jdwp.RefTypeInterfacesCommand{RefType: i2},
		&jdwp.RefTypeMethodsCommand{RefType: i2},
		&jdwp.RefTypeInterfacesCommand{RefType: super},
		&jdwp.RefTypeMethodsWithGenericCommand{RefType: super},
		&jdwp.ClassTypeSuperclassCommand{RefType: superSuper},
		&jdwp.RefTypeInterfacesCommand{RefType: superSuper},
		&jdwp.RefTypeMethodsCommand{RefType: superSuper},
	} {
		got, want := ask(h, m)
		require.Equal(t, want, got, "%s", m.Command())
		require.Equal(t, sent, len(h.toVM), "%s answered from the walk", m.Command())
	}
	require.Zero(t, queuedFor(h, jdwp.CmdClassTypeSuperclass, jdwp.ObjectID(i2)), "no Superclass of an interface")
}
