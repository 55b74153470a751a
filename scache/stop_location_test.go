package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
)

// TestStopLocationMetadataGoesOutWithTheStop: the event names the top
// frame's class and method, so their metadata goes to the VM with the
// stop's first commands, not one reply behind the frames; Classic waits
// for the frames, as the original did.
func TestStopLocationMetadataGoesOutWithTheStop(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []scache.Option
		want int // class metadata commands sent with the event
	}{{"default", nil, len(scache.DefaultFrameSet)}, {"classic", []scache.Option{scache.Classic()}, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			h := threadsWorld(t, 1, false, tc.opts...)
			ask(h, &jdwp.VMIDSizesCommand{})
			ask(h, &jdwp.VMResumeCommand{})
			sent := h.stopEvent(1, jdwp.SuspendPolicyAll)
			about := 0
			for _, cmd := range scache.DefaultFrameSet {
				about += sent[cmd]
			}
			require.Equal(t, tc.want, about)
		})
	}
}
