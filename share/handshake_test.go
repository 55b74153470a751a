package share_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/jdwpscache/scache/share"
	"github.com/stretchr/testify/require"
)

// A shared session asks the id sizes as it starts, before any client: the
// first client's IDSizes is answered without going to the VM, with the
// VM's sizes.
func TestTheSessionAsksTheIDSizesFirst(t *testing.T) {
	vm := scachetest.NewModelVM(jdwp.DefaultIDSizes)
	conn, err := net.Dial("tcp", serveModel(t, vm))
	require.NoError(t, err)
	s, err := share.New(conn)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	defer func() {
		cancel()
		require.NoError(t, <-served)
		s.Close()
	}()

	client, err := jdwp.Dial(ctx, ln.Addr().String())
	require.NoError(t, err)
	defer client.Close()
	callCtx, done := context.WithTimeout(ctx, 10*time.Second)
	defer done()
	var sizes jdwp.VMIDSizesReply
	require.NoError(t, client.Call(callCtx, &jdwp.VMIDSizesCommand{}, &sizes))
	require.Equal(t, jdwp.DefaultIDSizes, sizes.Sizes)
	total, per := s.Stats()
	require.GreaterOrEqual(t, total.Synthetic, int64(1), "asked by the session")
	require.Len(t, per, 1)
	for _, c := range per {
		require.Zero(t, c.Forwarded, "the client's IDSizes did not go to the VM")
		require.Equal(t, int64(1), c.Hits+c.Belayed)
	}
}
