package scache

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

// attachSession plays an IDE's attach on s: the class list, with the
// classes of signatures sigs at ids from first on, then the methods of the
// listed class (by its index in sigs), answered by the VM unless served.
// It returns the upstream packets of each step.
func attachSession(t *testing.T, s *Speculator, first jdwp.ReferenceTypeID, sigs []string, listed int) (afterList [][]byte, served bool) {
	sizes := jdwp.DefaultIDSizes
	var classes []jdwp.ClassInfo
	for i, sig := range sigs {
		classes = append(classes, jdwp.ClassInfo{TypeTag: jdwp.TypeTagClass, TypeID: first + jdwp.ReferenceTypeID(i), Signature: sig, Status: 7})
	}
	r := s.OnUpstream(jdwp.AppendCommandPacket(nil, 1, &jdwp.VMAllClassesWithGenericCommand{}, sizes))
	require.Len(t, r.Edict.Upstream, 1)
	r = s.OnDownstream(jdwp.AppendReplyPacket(nil, 1, &jdwp.VMAllClassesWithGenericReply{Classes: classes}, sizes))
	for _, p := range r.Edict.Upstream {
		afterList = append(afterList, append([]byte(nil), p...))
	}
	methods := &jdwp.RefTypeMethodsReply{Generic: true, Methods: []jdwp.MethodInfo{
		{Method: 0x7001, Name: "run", Signature: "()V"}, {Method: 0x7002, Name: "marker", Signature: "()V"}}}
	// The VM answers what was speculated about the classes; the line
	// tables that follow the methods join afterList.
	for i := 0; i < len(afterList); i++ {
		h, err := jdwp.ParseHeader(afterList[i])
		require.NoError(t, err)
		switch h.Cmd() {
		case jdwp.CmdReferenceTypeMethodsWithGeneric:
			r := s.OnDownstream(jdwp.AppendReplyPacket(nil, h.ID, methods, sizes))
			for _, p := range r.Edict.Upstream {
				afterList = append(afterList, append([]byte(nil), p...))
			}
		case jdwp.CmdReferenceTypeSourceDebugExtension:
			s.OnDownstream(jdwp.AppendReply(nil, h.ID, jdwp.ErrAbsentInformation, nil))
		case jdwp.CmdReferenceTypeSourceFile:
			s.OnDownstream(jdwp.AppendReplyPacket(nil, h.ID, &jdwp.StringReply{Value: "G.java"}, sizes))
		}
	}
	cls := first + jdwp.ReferenceTypeID(listed)
	r = s.OnUpstream(jdwp.AppendCommandPacket(nil, 2, &jdwp.RefTypeMethodsWithGenericCommand{RefType: cls}, sizes))
	if len(r.Edict.Downstream) == 1 {
		return afterList, true
	}
	require.Len(t, r.Edict.Upstream, 1, "the debugger's MethodsWithGeneric goes to the VM")
	s.OnDownstream(jdwp.AppendReplyPacket(nil, 2, methods, sizes))
	return afterList, false
}

// countCommands counts the packets of packets that are cmd about class.
func countCommands(t *testing.T, packets [][]byte, cmd jdwp.Command, class jdwp.ReferenceTypeID) int {
	n := 0
	for _, p := range packets {
		h, err := jdwp.ParseHeader(p)
		require.NoError(t, err)
		if h.Cmd() == cmd && jdwp.NewReader(jdwp.Data(p), jdwp.DefaultIDSizes).ReferenceTypeID() == class {
			n++
		}
	}
	return n
}

// An attach remembers the classes the debugger listed the methods of, by
// signature; the next session, on another VM where the classes have other
// ids, asks their methods as soon as the class list maps them, and the
// debugger's own ask is answered from that. Without the memory, nothing
// is asked ahead.
func TestTheNextAttachAsksTheClassesListedBefore(t *testing.T) {
	sigs := []string{"Lgen/G0;", "Lgen/G1;", "Lgen/G2;"}
	m := NewAttachMemory()
	first, err := New(WithAttachMemory(m))
	require.NoError(t, err)
	ahead, served := attachSession(t, first, 0x100, sigs, 1)
	require.False(t, served)
	require.Zero(t, countCommands(t, ahead, jdwp.CmdReferenceTypeMethodsWithGeneric, 0x101), "nothing remembered yet")
	require.Equal(t, 1, m.Len())

	next, err := New(WithAttachMemory(m))
	require.NoError(t, err)
	ahead, served = attachSession(t, next, 0x200, sigs, 1)
	require.Equal(t, 1, countCommands(t, ahead, jdwp.CmdReferenceTypeMethodsWithGeneric, 0x201), "G1's methods, at its new id")
	require.Zero(t, countCommands(t, ahead, jdwp.CmdReferenceTypeMethodsWithGeneric, 0x200), "only what was listed")
	require.Equal(t, 2, countCommands(t, ahead, jdwp.CmdMethodLineTable, 0x201), "and the line tables of its two methods")
	require.True(t, served, "the debugger's own MethodsWithGeneric is answered from it")
	require.Positive(t, next.Stats().Hits)

	without, err := New()
	require.NoError(t, err)
	ahead, served = attachSession(t, without, 0x300, sigs, 1)
	require.False(t, served)
	require.Zero(t, countCommands(t, ahead, jdwp.CmdReferenceTypeMethodsWithGeneric, 0x301))
}

// The memory keeps the last maxRemembered classes, each once.
func TestTheAttachMemoryIsBounded(t *testing.T) {
	m := NewAttachMemory()
	for i := range maxRemembered + 10 {
		m.remember(string(rune('A'+i%26)) + string(rune(i)))
		m.remember(string(rune('A'+i%26)) + string(rune(i)))
	}
	require.Equal(t, maxRemembered, m.Len())
	require.Equal(t, string(rune('A'+10%26))+string(rune(10)), m.signatures()[0], "the oldest went first")
	_, err := New(WithAttachMemory(nil))
	require.Error(t, err)
}
