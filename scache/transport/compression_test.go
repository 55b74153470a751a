package transport_test

import (
	"testing"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/transport"
	"github.com/stretchr/testify/require"
)

// The halves compress the tunnel only when both have it on: with both on
// (the default) the near half's frames take fewer bytes on the wire than
// they hold; with either off, as many. The transcript equals a direct
// one either way.
func TestTheTunnelIsCompressedWhenBothHalvesAgree(t *testing.T) {
	opts := jvmtest.DriverOptions{Stops: 2}
	direct, _ := jvmtest.RunDriver(t, jvmtest.Start(t, "Debuggee", "2").Addr, opts)
	for _, tc := range []struct {
		name      string
		near, far bool
	}{{"both on", true, true}, {"near off", false, true}, {"far off", true, false}} {
		t.Run(tc.name, func(t *testing.T) {
			vm := jvmtest.Start(t, "Debuggee", "2")
			nearAddr, nearStats := serveProxyFor(t, vm.Addr, "the near half", transport.WithSplit(transport.NearHalf), transport.WithTunnelCompression(tc.near))
			farAddr, farStats := serveProxyFor(t, nearAddr, "the far half", transport.WithSplit(transport.FarHalf), transport.WithTunnelCompression(tc.far))
			got, _ := jvmtest.RunDriver(t, farAddr, opts)
			require.Equal(t, direct, got)
			near, far := <-nearStats, <-farStats
			require.Positive(t, near.PushedBytes)
			for _, st := range []scache.Stats{near, far} {
				// At most the frames, and the heartbeats and end frame the
				// transport adds itself: packing never makes a batch larger.
				require.Positive(t, st.TunnelWireBytes)
				require.Less(t, st.TunnelWireBytes-st.TunnelBytes, int64(200))
				if !tc.near || !tc.far {
					require.GreaterOrEqual(t, st.TunnelWireBytes, st.TunnelBytes, "nothing packed")
				}
			}
			if tc.near && tc.far {
				require.Less(t, near.TunnelWireBytes, near.TunnelBytes*3/4, "the near half's pushes compress: %d of %d bytes", near.TunnelWireBytes, near.TunnelBytes)
				t.Logf("near half: %d bytes of frames took %d on the wire; far half: %d took %d",
					near.TunnelBytes, near.TunnelWireBytes, far.TunnelBytes, far.TunnelWireBytes)
			}
		})
	}
}
