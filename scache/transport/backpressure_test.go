package transport_test

import (
	"context"
	"errors"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// gatedConn is a connection whose writes, after the first (the handshake),
// block until the gate opens: a peer that has stopped reading.
type gatedConn struct {
	net.Conn
	once    sync.Once
	writes  int
	entered chan struct{} // closed when a write first waits at the gate
	open    chan struct{} // closed to let writes through
}

func newGatedConn(c net.Conn) *gatedConn {
	return &gatedConn{Conn: c, entered: make(chan struct{}), open: make(chan struct{})}
}

func (g *gatedConn) Write(p []byte) (int, error) {
	g.writes++ // the relay serializes writes to one side
	if g.writes > 1 {
		g.once.Do(func() { close(g.entered) })
		<-g.open
	}
	return g.Conn.Write(p)
}

// TestRelayBackpressure shows that the relay queues nothing: while one side
// does not read, the relay stops reading the other side, so the sender blocks
// and memory stays bounded. When the slow side reads again, every packet
// arrives once, in order.
func TestRelayBackpressure(t *testing.T) {
	const n = 200
	events := func(i int) []byte { // VM → debugger: a thread start event
		return jdwp.AppendCommandPacket(nil, uint32(i+1), &jdwp.Composite{SuspendPolicy: jdwp.SuspendPolicyNone,
			Events: []jdwp.Event{&jdwp.ThreadEvent{EventKind: jdwp.EventThreadStart, RequestID: 3, Thread: jdwp.ThreadID(100 + i)}}}, jdwp.DefaultIDSizes)
	}
	commands := func(i int) []byte { // debugger → VM: a different thread's name each time, so none is held
		return jdwp.AppendCommandPacket(nil, uint32(i+1), &jdwp.ThreadNameCommand{Thread: jdwp.ThreadID(100 + i)}, jdwp.DefaultIDSizes)
	}
	for _, tc := range []struct {
		name   string
		slowVM bool
		packet func(int) []byte
	}{
		{"slow debugger", false, events},
		{"slow VM", true, commands},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer goleak.VerifyNone(t)
			dbgSide, dbgPeer := net.Pipe() // net.Pipe is unbuffered: a write waits for its reader
			vmSide, vmPeer := net.Pipe()
			var debugger, vm net.Conn = dbgSide, vmSide
			sender, receiver := vmPeer, dbgPeer
			gate := newGatedConn(dbgSide)
			debugger = gate
			if tc.slowVM {
				gate = newGatedConn(vmSide)
				debugger, vm = dbgSide, gate
				sender, receiver = dbgPeer, vmPeer
			}
			errc := make(chan error, 1)
			// Without FamilyAttach: its id sizes at the handshake would be
			// the VM's first packet, which this VM never reads.
			relay := newRelay(t, scache.WithFamilies(scache.AllFamilies&^scache.FamilyAttach))
			go func() { errc <- relay.Run(context.Background(), debugger, vm) }()
			hs := make(chan error, 1)
			go func() { hs <- jdwp.VMHandshake(vmPeer, 5*time.Second) }()
			require.NoError(t, jdwp.DebuggerHandshake(dbgPeer, 5*time.Second))
			require.NoError(t, <-hs)

			// The first packet is read and waits at the gate.
			_, err := sender.Write(tc.packet(0))
			require.NoError(t, err)
			<-gate.entered
			// Nothing reads the next one: the relay holds no queue. (The
			// deadline only bounds how long the test looks; it cannot pass
			// wrongly for a relay that does not read.)
			require.NoError(t, sender.SetWriteDeadline(time.Now().Add(100*time.Millisecond)))
			written, err := sender.Write(tc.packet(1))
			require.True(t, errors.Is(err, os.ErrDeadlineExceeded), "the relay read on while the other side was not reading: %v", err)
			require.Zero(t, written)
			require.NoError(t, sender.SetWriteDeadline(time.Time{}))

			// The slow side reads again: everything arrives, once, in order.
			close(gate.open)
			sent := make(chan error, 1)
			go func() {
				for i := 1; i < n; i++ {
					if _, err := sender.Write(tc.packet(i)); err != nil {
						sent <- err
						return
					}
				}
				sent <- sender.Close()
			}()
			f := jdwp.NewFramer(nil, receiver)
			for i := 0; i < n; i++ {
				p, err := f.ReadPacket()
				require.NoError(t, err, "packet %d", i)
				require.Equal(t, tc.packet(i), p, "packet %d", i)
			}
			require.NoError(t, <-sent)
			require.NoError(t, <-errc)
			receiver.Close()
		})
	}
}
