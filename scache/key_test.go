package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
)

// A key made from a packet equals the key made from the typed command, names
// its command, decodes back to it, and rebuilds the packet under another id.
func TestKeyOfAPacketAndOfItsTypedCommand(t *testing.T) {
	cmd := &jdwp.FrameGetValuesCommand{Thread: 7, Frame: 0x30000, Slots: []jdwp.SlotRequest{{Slot: 1, Tag: jdwp.TagInt}}}
	packet := jdwp.AppendCommandPacket(nil, 42, cmd, sizes8)
	k, ok := scache.KeyOf(packet)
	require.True(t, ok)
	require.Equal(t, scache.NewKey(cmd, sizes8), k)
	require.Equal(t, jdwp.CmdStackFrameGetValues, k.Command())
	require.Equal(t, jdwp.Data(packet), k.Params())
	m, err := k.Message(sizes8)
	require.NoError(t, err)
	require.Equal(t, cmd, m)
	require.Equal(t, jdwp.AppendCommandPacket(nil, 9, cmd, sizes8), k.AppendCommand(nil, 9))

	_, ok = scache.KeyOf(jdwp.AppendReply(nil, 42, jdwp.ErrNone, nil))
	require.False(t, ok, "a reply has no key")
	_, err = scache.NewKey(&jdwp.VMDisposeCommand{}, sizes8).Message(sizes8)
	require.NoError(t, err)
	_, err = scache.Key("\x40\x64").Message(sizes8)
	require.Error(t, err, "Event.Composite data do not decode from nothing")
}
