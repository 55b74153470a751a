package jdwp_test

import (
	"errors"
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

func TestParseHeaderCommand(t *testing.T) {
	// 00 00 00 13  length 19
	// 00 00 00 07  id 7
	// 00           flags: command
	// 0b 06        ThreadReference.Frames
	// 01 02 03 04 05 06 07 08  data
	p := []byte{0, 0, 0, 19, 0, 0, 0, 7, 0, 11, 6, 1, 2, 3, 4, 5, 6, 7, 8}
	h, err := jdwp.ParseHeader(p)
	require.NoError(t, err)
	require.Equal(t, jdwp.Header{Length: 19, ID: 7, CommandSet: jdwp.SetThreadReference, Command: 6}, h)
	require.False(t, h.IsReply())
	require.Equal(t, jdwp.CmdThreadReferenceFrames, h.Cmd())
	require.Equal(t, "ThreadReference.Frames", h.Cmd().String())
	require.Equal(t, p, jdwp.AppendCommand(nil, 7, jdwp.CmdThreadReferenceFrames, p[11:]))
}

func TestParseHeaderReply(t *testing.T) {
	// 00 00 00 0b  length 11
	// a0 00 00 01  id 0xA0000001
	// 80           flags: reply
	// 00 65        error 101 ABSENT_INFORMATION
	p := []byte{0, 0, 0, 11, 0xa0, 0, 0, 1, 0x80, 0, 101}
	h, err := jdwp.ParseHeader(p)
	require.NoError(t, err)
	require.True(t, h.IsReply())
	require.Equal(t, uint32(0xA0000001), h.ID)
	require.Equal(t, jdwp.ErrAbsentInformation, h.ErrorCode)
	require.Equal(t, "ABSENT_INFORMATION", h.ErrorCode.String())
	require.Equal(t, p, jdwp.AppendReply(nil, 0xA0000001, jdwp.ErrAbsentInformation, nil))
}

func TestParseHeaderErrors(t *testing.T) {
	cases := []struct {
		name   string
		packet []byte
		want   error
	}{
		{"empty", nil, jdwp.ErrShortPacket},
		{"ten bytes", make([]byte, 10), jdwp.ErrShortPacket},
		{"length below header", []byte{0, 0, 0, 10, 0, 0, 0, 1, 0, 1, 1}, jdwp.ErrLengthTooSmall},
		{"length zero", []byte{0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1}, jdwp.ErrLengthTooSmall},
		{"length above size", []byte{0, 0, 0, 12, 0, 0, 0, 1, 0, 1, 1}, jdwp.ErrLengthMismatch},
		{"length below size", []byte{0, 0, 0, 11, 0, 0, 0, 1, 0, 1, 1, 9}, jdwp.ErrLengthMismatch},
		{"huge length", []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1, 0, 1, 1}, jdwp.ErrLengthMismatch},
		{"unknown flag", []byte{0, 0, 0, 11, 0, 0, 0, 1, 0x01, 1, 1}, jdwp.ErrBadFlags},
		{"reply with extra flag", []byte{0, 0, 0, 11, 0, 0, 0, 1, 0x81, 0, 0}, jdwp.ErrBadFlags},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := jdwp.ParseHeader(c.packet)
			require.ErrorIs(t, err, c.want)
			var pe *jdwp.PacketError
			require.True(t, errors.As(err, &pe))
			require.NotEmpty(t, err.Error())
		})
	}
}

func TestRetag(t *testing.T) {
	p := jdwp.AppendReply(nil, 0xA0000005, jdwp.ErrNone, []byte{1, 2})
	jdwp.SetPacketID(p, 42)
	require.Equal(t, uint32(42), jdwp.PacketID(p))
	h, err := jdwp.ParseHeader(p)
	require.NoError(t, err)
	require.Equal(t, uint32(42), h.ID)
	require.Equal(t, []byte{1, 2}, jdwp.Data(p))
}

func TestNames(t *testing.T) {
	require.Equal(t, "ReferenceType.SourceFile", jdwp.CmdReferenceTypeSourceFile.String())
	require.Equal(t, jdwp.Command{Set: 2, Cmd: 7}, jdwp.CmdReferenceTypeSourceFile)
	require.Equal(t, "Event.Composite", jdwp.Command{Set: 64, Cmd: 100}.String())
	require.Equal(t, "DDM.Chunk", jdwp.Command{Set: 0xC7, Cmd: 1}.String())
	require.Equal(t, "VirtualMachine.AllClassesWithGeneric", jdwp.Command{Set: 1, Cmd: 20}.String())
	require.Equal(t, "VirtualMachine.InstanceCounts", jdwp.Command{Set: 1, Cmd: 21}.String())
	require.Equal(t, "ModuleReference.ClassLoader", jdwp.Command{Set: 18, Cmd: 2}.String())
	require.Equal(t, "CommandSet(99).Command(3)", jdwp.Command{Set: 99, Cmd: 3}.String())
	require.Equal(t, "ReferenceType.Command(99)", jdwp.Command{Set: 2, Cmd: 99}.String())
	require.False(t, jdwp.Command{Set: 2, Cmd: 99}.Known())
	require.Equal(t, "INVALID_COUNT", jdwp.ErrInvalidCount.String())
	require.Equal(t, "ErrorCode(7)", jdwp.ErrorCode(7).String())
	require.Equal(t, "CLASS_UNLOAD", jdwp.EventClassUnload.String())
	require.Equal(t, "METHOD_EXIT_WITH_RETURN_VALUE", jdwp.EventMethodExitWithReturnValue.String())
	require.Equal(t, "EVENT_THREAD", jdwp.SuspendPolicyEventThread.String())
	require.Equal(t, "SourceNameMatch", jdwp.ModSourceNameMatch.String())
	require.Equal(t, "THREAD_GROUP", jdwp.TagThreadGroup.String())
	require.Equal(t, jdwp.Tag('g'), jdwp.TagThreadGroup)
	require.Equal(t, "OUT", jdwp.StepDepthOut.String())
	require.Equal(t, "LINE", jdwp.StepSizeLine.String())
	require.Equal(t, "MONITOR", jdwp.ThreadStatusMonitor.String())
	require.Equal(t, "INTERFACE", jdwp.TypeTagInterface.String())
	// Commands of every set of the specification are known.
	for _, set := range []jdwp.CommandSet{1, 2, 3, 4, 5, 6, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 64} {
		require.True(t, jdwp.Command{Set: set, Cmd: 1}.Known() || set == 64, "set %d", set)
	}
	for c := 1; c <= 22; c++ {
		require.True(t, jdwp.Command{Set: 1, Cmd: uint8(c)}.Known(), "VirtualMachine %d", c)
	}
}

func TestReplyErrorIs(t *testing.T) {
	var err error = &jdwp.ReplyError{ID: 3, Cmd: jdwp.CmdReferenceTypeSourceFile, Code: jdwp.ErrAbsentInformation}
	require.ErrorIs(t, err, jdwp.ErrAbsentInformation)
	require.NotErrorIs(t, err, jdwp.ErrInvalidObject)
	require.Contains(t, err.Error(), "ReferenceType.SourceFile")
	require.Contains(t, err.Error(), "ABSENT_INFORMATION")
}
