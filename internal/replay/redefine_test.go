package replay_test

import (
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/journal"
	"github.com/jdwpscache/scache/internal/replay"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
)

// A hot swap of one class leaves the recorded answers about every other
// class true: the Speculator's question about class X, sent before class Y
// was redefined, is answered with X's recorded answer, which the debugger
// then gets (it used to get the replay's placeholder: a mismatch, exit 1).
func TestRedefiningOneClassLeavesTheOthers(t *testing.T) {
	sizes := jdwp.DefaultIDSizes
	const x, y jdwp.ReferenceTypeID = 0x100, 0x200
	const m jdwp.MethodID = 0x1001
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var records []journal.Record
	add := func(dir scache.Direction, p []byte) {
		at = at.Add(time.Millisecond)
		records = append(records, journal.Record{Time: at, Direction: dir, Packet: p})
	}
	exchange := func(id uint32, cmd jdwp.CommandMessage, reply jdwp.Message) {
		add(scache.Upstream, jdwp.AppendCommandPacket(nil, id, cmd, sizes))
		add(scache.Downstream, jdwp.AppendReplyPacket(nil, id, reply, sizes))
	}
	vt := &jdwp.MethodVariableTableReply{Generic: true, ArgCount: 1, Slots: []jdwp.VariableSlot{
		{CodeIndex: 0, Name: "n", Signature: "I", Length: 10, Slot: 0}}}
	exchange(1, &jdwp.VMIDSizesCommand{}, &jdwp.VMIDSizesReply{Sizes: sizes})
	exchange(2, &jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1}, &jdwp.ThreadFramesReply{Frames: []jdwp.Frame{
		{Frame: 0x20000, Location: jdwp.Location{TypeTag: jdwp.TypeTagClass, Class: x, Method: m, Index: 3}}}})
	exchange(3, &jdwp.VMRedefineClassesCommand{Classes: []jdwp.ClassDef{{RefType: y, ClassFile: []byte{1}}}}, &jdwp.EmptyReply{})
	exchange(4, &jdwp.MethodVariableTableWithGenericCommand{RefType: x, Method: m}, vt)

	for _, mode := range replay.Modes {
		res, err := replay.Run(replay.Trace{Name: "hotswap-of-y", Records: records}, mode, replay.Config{RTT: 20 * time.Millisecond})
		require.NoError(t, err, "%s", mode)
		require.Empty(t, res.Mismatches, "%s", mode)
	}
	res, err := replay.Run(replay.Trace{Name: "hotswap-of-y", Records: records}, replay.ModeClassic, replay.Config{RTT: 20 * time.Millisecond})
	require.NoError(t, err)
	require.Positive(t, res.Hits, "the debugger's question about X was answered from speculation")
}
