package share_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/jdwpscache/scache/ddm"
	"github.com/jdwpscache/scache/ddm/ddmtest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

func ddmClient(t *testing.T, addr string) (*ddm.Client, chan ddm.Chunk) {
	c, err := ddm.Dial(context.Background(), addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	ch := make(chan ddm.Chunk, 64)
	for _, tp := range []ddm.Type{ddm.TypeTHCR, ddm.TypeTHST} {
		c.Handle(tp, func(chunk ddm.Chunk, isReply bool, id uint32) {
			if !isReply {
				ch <- ddm.Chunk{Type: chunk.Type, Data: append([]byte(nil), chunk.Data...)}
			}
		})
	}
	return c, ch
}

func nextChunk(t *testing.T, ch chan ddm.Chunk) ddm.Chunk {
	t.Helper()
	select {
	case c := <-ch:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("no chunk within 10s")
		return ddm.Chunk{}
	}
}

// TestTwoDDMToolsShareOneVM: two thread monitors on one DDM-aware VM
// connection both see its threads; a client that sends garbage is
// disconnected alone.
func TestTwoDDMToolsShareOneVM(t *testing.T) {
	vm, err := ddmtest.Start(ddmtest.Config{PID: 3, VMIdent: "FakeVM", AppName: "app",
		Threads: []ddmtest.Thread{{ID: 1, Name: "main", Status: ddm.StateRunning}}})
	require.NoError(t, err)
	defer vm.Close()
	s, addr := startSession(t, vm.Addr)

	a, aEvents := ddmClient(t, addr)
	b, bEvents := ddmClient(t, addr)
	_, err = a.Request(context.Background(), &ddm.ThreadNotify{Enable: true})
	require.NoError(t, err)
	var cr ddm.ThreadCreated
	require.NoError(t, ddm.Decode(nextChunk(t, aEvents), &cr))
	require.Equal(t, "main", cr.Name)
	// The VM's THCR went to every client that speaks DDM: b too.
	require.NoError(t, ddm.Decode(nextChunk(t, bEvents), &cr))

	// A client sending garbage is cut off; the others carry on.
	bad, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	require.NoError(t, jdwp.DebuggerHandshake(bad, 5*time.Second))
	_, err = bad.Write([]byte{0, 0, 0, 3, 1, 2, 3, 4, 5, 6, 7})
	require.NoError(t, err)
	n, err := bad.Read(make([]byte, 16))
	require.Zero(t, n)
	require.Error(t, err, "the session closed the garbage client")
	bad.Close()

	vm.SendStatus()
	var st ddm.ThreadStatus
	require.NoError(t, ddm.Decode(nextChunk(t, aEvents), &st))
	require.NoError(t, ddm.Decode(nextChunk(t, bEvents), &st))
	_, err = b.Request(context.Background(), &ddm.ThreadStatusInterval{Millis: 0})
	require.NoError(t, err, "b still talks to the VM")
	total, per := s.Stats()
	require.True(t, total.Enabled)
	require.Len(t, per, 2, "the two tools; the garbage client left")
}
