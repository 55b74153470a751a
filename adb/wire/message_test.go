package wire

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestMessageRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := Message{Command: rapid.SampledFrom([]uint32{CNXN, AUTH, OPEN, OKAY, WRTE, CLSE}).Draw(t, "cmd"),
			Arg0: rapid.Uint32().Draw(t, "a0"), Arg1: rapid.Uint32().Draw(t, "a1"),
			Data: rapid.SliceOfN(rapid.Byte(), 0, 100).Draw(t, "data")}
		checksum := rapid.Bool().Draw(t, "checksum")
		got, err := Read(bytes.NewReader(Append(nil, m, checksum)), MaxPayload, checksum)
		require.NoError(t, err)
		require.Equal(t, m.Command, got.Command)
		require.Equal(t, m.Arg0, got.Arg0)
		require.Equal(t, m.Arg1, got.Arg1)
		require.Equal(t, len(m.Data), len(got.Data))
	})
}

func TestReadRejects(t *testing.T) {
	good := Append(nil, Message{Command: WRTE, Arg0: 1, Arg1: 2, Data: []byte("hello")}, true)

	bad := append([]byte(nil), good...)
	bad[20] ^= 1
	_, err := Read(bytes.NewReader(bad), MaxPayload, true)
	require.ErrorIs(t, err, ErrBadMagic)

	bad = append([]byte(nil), good...)
	bad[16]++
	_, err = Read(bytes.NewReader(bad), MaxPayload, true)
	require.ErrorIs(t, err, ErrBadChecksum)
	_, err = Read(bytes.NewReader(bad), MaxPayload, false)
	require.NoError(t, err, "from VersionSkipChecksum on the check is ignored")

	huge := Append(nil, Message{Command: WRTE}, false)
	huge[12], huge[13], huge[14], huge[15] = 0xff, 0xff, 0xff, 0x7f
	_, err = Read(bytes.NewReader(huge), MaxPayload, false)
	require.ErrorIs(t, err, ErrTooLarge)

	_, err = Read(bytes.NewReader(good[:27]), MaxPayload, true)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
}

func TestCNXNHeaderBytes(t *testing.T) {
	// CNXN, version 0x01000001, maxdata 1 MiB, "host::\0": the bytes an adb server sends.
	b := Append(nil, Message{Command: CNXN, Arg0: Version, Arg1: MaxPayload, Data: []byte("host::\x00")}, true)
	require.Equal(t, []byte{'C', 'N', 'X', 'N', 0x01, 0, 0, 1, 0, 0, 0x10, 0, 7, 0, 0, 0}, b[:16])
	require.Equal(t, []byte{0xbc, 0xb1, 0xa7, 0xb1}, b[20:24], "magic")
	require.Equal(t, "CNXN", CommandName(CNXN))
}

func TestBanner(t *testing.T) {
	b := ParseBanner([]byte("device::ro.product.name=sdk;ro.product.model=Pixel 9;ro.product.device=emu;features=cmd,shell_v2\x00"))
	require.Equal(t, "device", b.System)
	require.Equal(t, "Pixel 9", b.Properties["ro.product.model"])
	require.True(t, b.HasFeature("shell_v2"))
	require.False(t, b.HasFeature("delayed_ack"))
	require.Equal(t, b, ParseBanner(b.Bytes()))
	v, max := Negotiate(Message{Arg0: Version, Arg1: MaxPayload}, Message{Arg0: VersionMin, Arg1: 4096})
	require.Equal(t, VersionMin, v)
	require.Equal(t, uint32(4096), max)
}

func FuzzRead(f *testing.F) {
	f.Add(Append(nil, Message{Command: CNXN, Arg0: Version, Arg1: MaxPayload, Data: []byte("host::\x00")}, true))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Read(bytes.NewReader(data), 4096, true)
		if err != nil {
			return
		}
		if !bytes.Equal(Append(nil, m, true), data[:HeaderSize+len(m.Data)]) {
			t.Fatal("a message read does not encode back")
		}
	})
}
