package jdwp_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestReaderPastEnd(t *testing.T) {
	r := jdwp.NewReader([]byte{0, 0, 0, 5, 'a'}, jdwp.DefaultIDSizes)
	require.Equal(t, "", r.String())
	require.ErrorIs(t, r.Err(), jdwp.ErrTruncated)
	// Every later read keeps failing with the first error.
	require.Equal(t, uint32(0), r.Uint32())
	var de *jdwp.DecodeError
	require.ErrorAs(t, r.Err(), &de)
	require.Equal(t, 4, de.Offset)
}

func TestReaderIDSizes(t *testing.T) {
	data := []byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x11}
	for n := 1; n <= 8; n++ {
		s := jdwp.IDSizes{FieldID: n, MethodID: n, ObjectID: n, ReferenceTypeID: n, FrameID: n}
		r := jdwp.NewReader(data, s)
		var want uint64
		for _, b := range data[:n] {
			want = want<<8 | uint64(b)
		}
		require.Equal(t, jdwp.ObjectID(want), r.ObjectID())
		require.NoError(t, r.Err())
		require.Equal(t, len(data)-n, r.Len())
		w := jdwp.NewWriter(s)
		w.ObjectID(jdwp.ObjectID(want))
		require.Equal(t, data[:n], w.Bytes())
	}
	r := jdwp.NewReader(data, jdwp.IDSizes{FieldID: 9, MethodID: 8, ObjectID: 8, ReferenceTypeID: 8, FrameID: 8})
	r.ObjectID()
	require.ErrorIs(t, r.Err(), jdwp.ErrBadIDSize)
}

func TestReaderCountBoundsAllocation(t *testing.T) {
	// A Frames reply claiming two billion frames in 4 bytes of data.
	r := jdwp.NewReader([]byte{0x7f, 0xff, 0xff, 0xff}, jdwp.DefaultIDSizes)
	var frames jdwp.ThreadFramesReply
	require.ErrorIs(t, frames.Decode(r), jdwp.ErrBadCount)
	r = jdwp.NewReader([]byte{0xff, 0xff, 0xff, 0xff}, jdwp.DefaultIDSizes)
	require.ErrorIs(t, frames.Decode(r), jdwp.ErrBadCount)
}

func TestReaderBadTag(t *testing.T) {
	r := jdwp.NewReader([]byte{'Q', 0, 0, 0, 1}, jdwp.DefaultIDSizes)
	r.Value()
	require.ErrorIs(t, r.Err(), jdwp.ErrBadTag)
}

func TestValuesSignExtend(t *testing.T) {
	r := jdwp.NewReader([]byte{'B', 0xff, 'S', 0xff, 0xfe, 'C', 0xff, 0xfe, 'I', 0xff, 0xff, 0xff, 0xfd}, jdwp.DefaultIDSizes)
	require.Equal(t, int64(-1), r.Value().Int())
	require.Equal(t, int64(-2), r.Value().Int())
	require.Equal(t, int64(0xfffe), r.Value().Int())
	require.Equal(t, int64(-3), r.Value().Int())
	require.NoError(t, r.Err())
}

func TestModifiedUTF8(t *testing.T) {
	// U+0000 is C0 80; U+1F600 is a surrogate pair of 3-byte sequences.
	s := "a\x00b😀é"
	enc := jdwp.AppendModifiedUTF8(nil, s)
	require.Equal(t, []byte{'a', 0xC0, 0x80, 'b', 0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80, 0xC3, 0xA9}, enc)
	require.Equal(t, s, jdwp.DecodeModifiedUTF8(enc))
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.String().Draw(t, "s")
		require.Equal(t, s, jdwp.DecodeModifiedUTF8(jdwp.AppendModifiedUTF8(nil, s)))
	})
}

func TestWriterReuseDoesNotAllocate(t *testing.T) {
	w := jdwp.NewWriter(jdwp.DefaultIDSizes)
	m := &jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1}
	m.Encode(w)
	allocs := testing.AllocsPerRun(100, func() {
		w.Reset(jdwp.DefaultIDSizes)
		m.Encode(w)
	})
	require.Zero(t, allocs)
}
