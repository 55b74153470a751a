package jdwp_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jdwpscache/scache/jdwp"
)

// TestAnArrayRegionDecodesAsTheAgentWritesIt: primitive elements go
// untagged, object elements each with their own tag (OpenJDK's agent tags
// a String element of an Object[] 's').
func TestAnArrayRegionDecodesAsTheAgentWritesIt(t *testing.T) {
	ints := []byte{'I', 0, 0, 0, 2, 0, 0, 0, 7, 0xff, 0xff, 0xff, 0xfe}
	var m jdwp.ArrayRegionReply
	minusTwo := -2
	require.NoError(t, jdwp.Unmarshal(ints, jdwp.DefaultIDSizes, &m))
	require.Equal(t, jdwp.TagInt, m.Tag)
	require.Equal(t, []jdwp.Value{{Tag: jdwp.TagInt, Bits: 7}, {Tag: jdwp.TagInt, Bits: uint64(int64(minusTwo))}}, m.Values)

	objects := []byte{'L', 0, 0, 0, 2, 's', 0, 0, 0, 0, 0, 0, 0, 9, 'L', 0, 0, 0, 0, 0, 0, 0, 0}
	require.NoError(t, jdwp.Unmarshal(objects, jdwp.DefaultIDSizes, &m))
	require.Equal(t, []jdwp.Value{{Tag: jdwp.TagString, Bits: 9}, {Tag: jdwp.TagObject}}, m.Values)
}

// TestAnArrayRegionCannotClaimMoreThanItHolds: a count beyond the data, or
// a region of void (whose elements would take no bytes), is an error
// before anything is allocated.
func TestAnArrayRegionCannotClaimMoreThanItHolds(t *testing.T) {
	var m jdwp.ArrayRegionReply
	require.ErrorIs(t, jdwp.Unmarshal([]byte{'J', 0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 1}, jdwp.DefaultIDSizes, &m), jdwp.ErrBadCount)
	require.ErrorIs(t, jdwp.Unmarshal([]byte{'V', 0x7f, 0xff, 0xff, 0xff}, jdwp.DefaultIDSizes, &m), jdwp.ErrBadTag)
	require.ErrorIs(t, jdwp.Unmarshal([]byte{'L', 0, 0, 0, 2, 'L', 0, 0, 0, 0, 0, 0, 0, 1}, jdwp.DefaultIDSizes, &m), jdwp.ErrBadCount)
}
