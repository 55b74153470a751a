package scache

import (
	"context"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

// The answers derived from a whole stack are byte for byte what a real
// HotSpot VM answers: every thread's depth, and parts of its stack.
func TestDerivedAnswersEqualHotSpots(t *testing.T) {
	vm := jvmtest.Start(t, "Debuggee", "1")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := jdwp.Dial(ctx, vm.Addr)
	require.NoError(t, err)
	defer c.Close()
	sizes := jdwp.DefaultIDSizes
	ask := func(m jdwp.CommandMessage) []byte {
		reply, err := c.Send(ctx, m.Command(), jdwp.Marshal(m, sizes))
		require.NoError(t, err)
		return reply
	}
	ask(&jdwp.VMSuspendCommand{})
	var threads jdwp.ObjectIDsReply
	require.NoError(t, jdwp.Unmarshal(jdwp.Data(ask(&jdwp.VMAllThreadsCommand{})), sizes, &threads))
	require.NotEmpty(t, threads.IDs)
	compared := 0
	for _, th := range threads.IDs {
		whole := ask(&jdwp.ThreadFramesCommand{Thread: th, StartFrame: 0, Length: -1})
		depth := ask(&jdwp.ThreadFrameCountCommand{Thread: th})
		got, ok := frameCount(whole, sizes, jdwp.PacketID(depth))
		require.True(t, ok)
		require.Equal(t, depth, got, "FrameCount of thread %#x", th)
		var all jdwp.ThreadFramesReply
		require.NoError(t, jdwp.Unmarshal(jdwp.Data(whole), sizes, &all))
		for _, part := range [][2]int32{{0, 1}, {1, -1}, {1, 2}} {
			if int(part[0]) >= len(all.Frames) || part[1] > 0 && int(part[0]+part[1]) > len(all.Frames) {
				continue
			}
			want := ask(&jdwp.ThreadFramesCommand{Thread: th, StartFrame: part[0], Length: part[1]})
			got, ok := framesPart(whole, sizes, part[0], part[1], jdwp.PacketID(want))
			require.True(t, ok)
			require.Equal(t, want, got, "Frames(%#x, %d, %d)", th, part[0], part[1])
			compared++
		}
	}
	require.Positive(t, compared)
	ask(&jdwp.VMDisposeCommand{})
}
