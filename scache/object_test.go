package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

// An object's type and a string's value never change and JDWP never reuses
// an object id that was not disposed: what the Speculator learned of them at
// one stop answers the debugger at the next, until DisposeObjects names them.
func TestObjectFactsLastUntilDisposed(t *testing.T) {
	h, _ := stopped(t, jdwp.SuspendPolicyAll)
	top := h.vm.Thread(1).Frames[0]
	this := &jdwp.ObjectRefReferenceTypeCommand{Object: top.This}
	got, want := ask(h, this)
	require.Equal(t, want, got)

	// The VM runs and stops again: the epoch ends, the object's type stays.
	resumeAndStop(t, h)
	hits := h.s.Stats().Hits
	total, _ := h.vmCommands(jdwp.CmdObjectReferenceReferenceType)
	got, want = ask(h, this)
	require.Equal(t, want, got)
	require.Equal(t, hits+1, h.s.Stats().Hits, "answered from what was learned at the first stop")
	again, _ := h.vmCommands(jdwp.CmdObjectReferenceReferenceType)
	require.Equal(t, total, again, "without asking the VM")

	// Disposed: the id may name another object now; the VM is asked.
	h.send(&jdwp.VMDisposeObjectsCommand{Requests: []jdwp.DisposeRequest{{Object: top.This, RefCount: 1}}})
	h.drain()
	got, want = ask(h, this)
	require.Equal(t, want, got)
	after, _ := h.vmCommands(jdwp.CmdObjectReferenceReferenceType)
	require.Equal(t, total+1, after, "asked of the VM after DisposeObjects")
}
