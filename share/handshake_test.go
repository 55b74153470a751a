package share_test

import (
	"context"
	"testing"
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
)

// A shared session asks the id sizes as it starts, before any client: the
// first client's IDSizes is answered without going to the VM, with the
// VM's sizes.
func TestTheSessionAsksTheIDSizesFirst(t *testing.T) {
	s, addr := startSession(t, serveModel(t, scachetest.NewModelVM(jdwp.DefaultIDSizes)))
	ctx, done := context.WithTimeout(context.Background(), 10*time.Second) // a guard against a hang
	defer done()
	client, err := jdwp.Dial(ctx, addr)
	require.NoError(t, err)
	defer client.Close()
	var sizes jdwp.VMIDSizesReply
	require.NoError(t, client.Call(ctx, &jdwp.VMIDSizesCommand{}, &sizes))
	require.Equal(t, jdwp.DefaultIDSizes, sizes.Sizes)
	total, per := s.Stats()
	require.GreaterOrEqual(t, total.Synthetic, int64(1), "asked by the session")
	require.Len(t, per, 1)
	for _, c := range per {
		require.Zero(t, c.Forwarded, "the client's IDSizes did not go to the VM")
		require.Equal(t, int64(1), c.Hits+c.Belayed)
	}
}
