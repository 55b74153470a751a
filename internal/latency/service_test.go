package latency

import (
	"testing"
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

// TestServiceSlotsCommandsOneAtATime: after the handshake, each command
// goes on one service time after the one before it (or after it arrived),
// a reply goes on with the command before it, and packets split across
// reads are whole when they go on.
func TestServiceSlotsCommandsOneAtATime(t *testing.T) {
	const s = 2 * time.Millisecond
	q := &servingQueue{service: s}
	t0 := time.Unix(1000, 0)
	cmd := func(id uint32) []byte {
		return jdwp.AppendCommandPacket(nil, id, &jdwp.VMVersionCommand{}, jdwp.DefaultIDSizes)
	}
	reply := jdwp.AppendReply(nil, 9, jdwp.ErrNone, nil)
	stream := append([]byte("JDWP-Handshake"), cmd(1)...)
	stream = append(stream, cmd(2)...)
	stream = append(stream, reply...)
	stream = append(stream, cmd(3)...)

	// The whole stream in two reads: the second command split between them.
	cut := 14 + 11 + 5
	units := append(q.split(t0, stream[:cut]), q.split(t0.Add(time.Millisecond), stream[cut:])...)
	var got []time.Duration
	var whole []byte
	for _, u := range units {
		got = append(got, u.due.Sub(t0))
		whole = append(whole, u.data...)
	}
	require.Equal(t, stream, whole, "every byte, in order")
	require.Equal(t, []time.Duration{0, s, 2 * s, 2 * s, 3 * s}, got,
		"handshake at once; commands a service time apart; the reply behind the command before it")

	// An idle VM: a command that arrives after the last was served waits
	// one service time from its arrival.
	later := q.split(t0.Add(time.Second), cmd(4))
	require.Len(t, later, 1)
	require.Equal(t, time.Second+s, later[0].due.Sub(t0))
}

// TestServiceLetsNonJDWPThrough: a length field no JDWP packet has turns
// the parsing off; the bytes go on as they come, none lost.
func TestServiceLetsNonJDWPThrough(t *testing.T) {
	q := &servingQueue{service: time.Millisecond}
	t0 := time.Unix(1000, 0)
	junk := append([]byte("JDWP-Handshake"), 0, 0, 0, 3, 1, 2, 3, 4, 5, 6, 7, 8)
	var whole []byte
	for _, u := range q.split(t0, junk) {
		whole = append(whole, u.data...)
	}
	for _, u := range q.split(t0, []byte("more")) {
		whole = append(whole, u.data...)
	}
	require.Equal(t, append(junk, "more"...), whole)
}
