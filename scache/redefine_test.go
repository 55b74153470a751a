package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
)

// After a hot swap, the redefined class's metadata the debugger used is
// asked again as soon as the VM has answered RedefineClasses, not before,
// and what it did not use is not.
func TestHotSwapAsksTheUsedMetadataAgainAtTheReply(t *testing.T) {
	h, c := speculating(t)
	h.drain()
	lineTable := &jdwp.MethodLineTableCommand{RefType: c.ID, Method: c.Methods[0]}
	h.replyTo(h.send(lineTable)) // used; Interfaces, say, is not
	_, before := h.vmCommands(jdwp.CmdMethodLineTable)
	require.Equal(t, 1, before)

	h.send(&jdwp.VMRedefineClassesCommand{Classes: []jdwp.ClassDef{{RefType: c.ID, ClassFile: []byte{1}}}})
	_, sent := h.vmCommands(jdwp.CmdMethodLineTable)
	require.Equal(t, 1, sent, "nothing is asked again before the VM has processed the hot swap")

	require.True(t, h.step()) // the RedefineClasses reply
	_, sent = h.vmCommands(jdwp.CmdMethodLineTable)
	require.Equal(t, 2, sent, "the line table the debugger used is asked again")
	_, interfaces := h.vmCommands(jdwp.CmdReferenceTypeInterfaces)
	require.Equal(t, 1, interfaces, "what it did not use is not")

	h.drain()
	hits := h.s.Stats().Hits
	id := h.send(lineTable)
	require.Equal(t, hits+1, h.s.Stats().Hits, "answered from the metadata asked again")
	require.Equal(t, 1, lineTableVersion(t, h.replyTo(id)), "the redefined class's line table")
}

// Classic, the original policy, does not ask again.
func TestClassicDoesNotAskAgainAfterAHotSwap(t *testing.T) {
	h, c := speculating(t, scache.Classic())
	h.drain()
	lineTable := &jdwp.MethodLineTableCommand{RefType: c.ID, Method: c.Methods[0]}
	h.replyTo(h.send(lineTable))
	h.send(&jdwp.VMRedefineClassesCommand{Classes: []jdwp.ClassDef{{RefType: c.ID, ClassFile: []byte{1}}}})
	h.drain()
	_, sent := h.vmCommands(jdwp.CmdMethodLineTable)
	require.Equal(t, 1, sent)
}
