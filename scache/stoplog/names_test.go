package stoplog_test

import (
	"testing"
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/stoplog"
	"github.com/stretchr/testify/require"
)

// A stop is named in source terms from what the debugger asked: the
// class's signature, its methods, the method's line table and the thread's
// name (as JDI and jdb ask them at a stop), whether their replies came
// from the VM or from speculation; where the debugger asked nothing, ids.
func TestStopsAreNamedInSourceTerms(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	const class, method, thread = jdwp.ReferenceTypeID(0xd), jdwp.MethodID(0x7f1c1c1321d0), jdwp.ThreadID(1)
	stopAt := func(index uint64) []byte {
		loc := jdwp.Location{TypeTag: jdwp.TypeTagClass, Class: class, Method: method, Index: index}
		return jdwp.AppendCommandPacket(nil, 9, &jdwp.Composite{SuspendPolicy: jdwp.SuspendPolicyAll, Events: []jdwp.Event{
			&jdwp.LocationEvent{EventKind: jdwp.EventBreakpoint, RequestID: 3, Thread: thread, Location: loc}}}, sizes8)
	}
	up := func(ms int, id uint32, m jdwp.CommandMessage, hit bool) scache.JournalEntry {
		return scache.JournalEntry{Time: at(ms), Direction: scache.Upstream, Packet: jdwp.AppendCommandPacket(nil, id, m, sizes8), Hit: hit}
	}
	down := func(ms int, id uint32, m jdwp.Message, hit bool) scache.JournalEntry {
		return scache.JournalEntry{Time: at(ms), Direction: scache.Downstream, Packet: jdwp.AppendReplyPacket(nil, id, m, sizes8), Hit: hit}
	}
	resume := func(ms int, id uint32) scache.JournalEntry { return up(ms, id, &jdwp.VMResumeCommand{}, false) }
	log := &stoplog.Log{}
	for _, e := range []scache.JournalEntry{
		// A first stop where the debugger asks no names.
		{Time: at(0), Direction: scache.Downstream, Packet: stopAt(5)},
		resume(1, 1),
		// A second, where it asks them all.
		{Time: at(10), Direction: scache.Downstream, Packet: stopAt(5)},
		up(11, 2, &jdwp.RefTypeSignatureCommand{RefType: class}, false),
		down(12, 2, &jdwp.StringReply{Value: "Lcom/example/Loop;"}, false),
		up(13, 3, &jdwp.RefTypeMethodsWithGenericCommand{RefType: class}, true),
		down(13, 3, &jdwp.RefTypeMethodsReply{Generic: true, Methods: []jdwp.MethodInfo{
			{Method: 0x99, Name: "<init>", Signature: "()V"}, {Method: method, Name: "step", Signature: "(I)V"}}}, true),
		up(14, 4, &jdwp.MethodLineTableCommand{RefType: class, Method: method}, false),
		down(15, 4, &jdwp.MethodLineTableReply{Start: 0, End: 12, Lines: []jdwp.LineEntry{
			{CodeIndex: 0, LineNumber: 5}, {CodeIndex: 4, LineNumber: 6}, {CodeIndex: 9, LineNumber: 7}}}, false),
		up(16, 5, &jdwp.ThreadNameCommand{Thread: thread}, true),
		down(16, 5, &jdwp.StringReply{Value: "main"}, true),
		resume(17, 6),
		// A third, at another index of the method: the names are kept.
		{Time: at(20), Direction: scache.Downstream, Packet: stopAt(9)},
		resume(21, 7),
	} {
		log.Add(e)
	}
	stops := log.Stops()
	require.Len(t, stops, 3)
	require.Equal(t, "class 0xd method 0x7f1c1c1321d0 index 5", stops[0].Where, "nothing asked: ids")
	require.Empty(t, stops[0].ThreadName)
	require.Equal(t, "com.example.Loop.step:6", stops[1].Where, "index 5 is in line 6's code (4 to 8)")
	require.Equal(t, "main", stops[1].ThreadName)
	require.Equal(t, "com.example.Loop.step:7", stops[2].Where)
}

// ClassName turns JNI signatures into Java names.
func TestClassName(t *testing.T) {
	for sig, want := range map[string]string{
		"Lcom/example/Loop;": "com.example.Loop", "LLoop;": "Loop", "[I": "int[]",
		"[[Ljava/lang/String;": "java.lang.String[][]", "Z": "boolean", "": "", "Q": "Q",
	} {
		require.Equal(t, want, stoplog.ClassName(sig), sig)
	}
}
