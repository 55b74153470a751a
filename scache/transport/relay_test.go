package transport_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/jdwpscache/scache/scache/transport"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// relayToModel starts a model VM on a TCP port, a Relay in front of it on
// another, and returns a debugger connection to the relay.
func relayToModel(t *testing.T, vm *scachetest.ModelVM, relay *transport.Relay) (dbg *jdwp.Conn, relayErr <-chan error) {
	t.Helper()
	vmLn, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	relayLn, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	errc := make(chan error, 1)
	go func() {
		vmConn, err := vmLn.Accept()
		vmLn.Close()
		if err != nil {
			errc <- err
			return
		}
		scachetest.Serve(vmConn, vm)
	}()
	go func() {
		d, err := relayLn.Accept()
		relayLn.Close()
		if err != nil {
			errc <- err
			return
		}
		v, err := net.Dial("tcp", vmLn.Addr().String())
		if err != nil {
			errc <- err
			return
		}
		errc <- relay.Run(context.Background(), d, v)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := jdwp.Dial(ctx, relayLn.Addr().String())
	require.NoError(t, err)
	return c, errc
}

func TestRelayServesHitsAndEndsCleanly(t *testing.T) {
	defer goleak.VerifyNone(t)
	vm, c := scachetest.OneFrameWorld(jdwp.DefaultIDSizes)
	var mu sync.Mutex
	var journal []scache.JournalEntry
	relay := newRelay(t, scache.WithJournal(func(e scache.JournalEntry) {
		mu.Lock()
		defer mu.Unlock()
		e.Packet = append([]byte(nil), e.Packet...)
		journal = append(journal, e)
	}))
	dbg, errc := relayToModel(t, vm, relay)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	var frames jdwp.ThreadFramesReply
	require.NoError(t, dbg.Call(ctx, &jdwp.ThreadFramesCommand{Thread: 7, Length: -1}, &frames))
	require.Len(t, frames.Frames, 1)
	for _, cmd := range []jdwp.CommandMessage{
		&jdwp.RefTypeMethodsWithGenericCommand{RefType: c.ID},
		&jdwp.RefTypeSourceFileCommand{RefType: c.ID},
		&jdwp.MethodLineTableCommand{RefType: c.ID, Method: c.Methods[0]},
	} {
		got, err := dbg.Send(ctx, cmd.Command(), jdwp.Marshal(cmd, jdwp.DefaultIDSizes))
		require.NoError(t, err)
		want := vm.Clone().Handle(jdwp.AppendCommandPacket(nil, jdwp.PacketID(got), cmd, jdwp.DefaultIDSizes))
		require.Equal(t, want, got)
	}
	require.NoError(t, dbg.Close())
	require.NoError(t, <-errc)
	st := relay.Speculator().Stats()
	require.Equal(t, int64(3), st.Hits+st.Belayed, "every metadata command was speculated")
	require.Equal(t, int64(11), st.Synthetic, "the id sizes at the handshake, the version and capabilities they start, 8 at the stop")

	mu.Lock()
	defer mu.Unlock()
	// The debugger's close ends the session: replies to synthetic commands
	// still on their way from the VM then are not read, so only the
	// commands and the debugger's own exchanges have a fixed count.
	counts := map[bool]map[scache.Direction]int{true: {}, false: {}}
	for _, e := range journal {
		counts[e.Synthetic][e.Direction]++
	}
	require.Equal(t, 11, counts[true][scache.Upstream], "the 11 synthetic commands in the journal")
	require.LessOrEqual(t, counts[true][scache.Downstream], 11, "at most a reply to each")
	require.Equal(t, 4, counts[false][scache.Upstream], "Frames and 3 commands")
	require.Equal(t, 4, counts[false][scache.Downstream], "and their replies")
}

func TestRelayRejectsABadHandshake(t *testing.T) {
	defer goleak.VerifyNone(t)
	dbgSide, dbgPeer := net.Pipe()
	vmSide, vmPeer := net.Pipe()
	defer vmPeer.Close()
	go func() { _, _ = dbgPeer.Write([]byte("GET / HTTP/1.1\r\n\r\n")) }()
	err := newRelay(t, transport.WithHandshakeTimeout(time.Second)).Run(context.Background(), dbgSide, vmSide)
	require.ErrorIs(t, err, jdwp.ErrBadHandshake)
	dbgPeer.Close()
}

func TestRelayStopsOnContextCancel(t *testing.T) {
	defer goleak.VerifyNone(t)
	vm, _ := scachetest.OneFrameWorld(jdwp.DefaultIDSizes)
	dbgSide, dbgPeer := net.Pipe()
	vmSide, vmPeer := net.Pipe()
	scachetest.Serve(vmPeer, vm)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	relay := newRelay(t)
	go func() { errc <- relay.Run(ctx, dbgSide, vmSide) }()
	require.NoError(t, jdwp.DebuggerHandshake(dbgPeer, time.Second))
	cancel()
	require.ErrorIs(t, <-errc, context.Canceled)
	dbgPeer.Close()
}

func TestRelayReportsHeldCommandsAtShutdown(t *testing.T) {
	defer goleak.VerifyNone(t)
	// A VM that answers until it has answered Frames (the id sizes asked at
	// the handshake come first) and then goes silent: the debugger's
	// SourceFile is held on a synthetic command that never gets a reply.
	vm, c := scachetest.OneFrameWorld(jdwp.DefaultIDSizes)
	dbgSide, dbgPeer := net.Pipe()
	vmSide, vmPeer := net.Pipe()
	spec := newSpeculator(t)
	errc := make(chan error, 1)
	relay := newRelay(t, transport.WithSpeculator(spec))
	go func() { errc <- relay.Run(context.Background(), dbgSide, vmSide) }()
	go func() {
		if jdwp.VMHandshake(vmPeer, time.Second) != nil {
			return
		}
		f := jdwp.NewFramer(vmPeer, vmPeer)
		// The replies go from their own goroutine: net.Pipe holds no bytes,
		// and the relay writes the commands they start while the VM writes.
		replies := make(chan []byte, 16)
		defer close(replies)
		go func() {
			for r := range replies {
				_ = f.WritePacket(r)
			}
		}()
		for {
			p, err := f.ReadPacket()
			if err != nil {
				return
			}
			replies <- vm.Handle(p)
			if h, _ := jdwp.ParseHeader(p); h.Cmd() == jdwp.CmdThreadReferenceFrames {
				break
			}
		}
		for {
			if _, err := f.ReadPacket(); err != nil {
				return
			}
		}
	}()
	require.NoError(t, jdwp.DebuggerHandshake(dbgPeer, time.Second))
	dbg := jdwp.NewConn(dbgPeer)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, dbg.Call(ctx, &jdwp.ThreadFramesCommand{Thread: 7, Length: -1}, nil))
	held := make(chan error, 1)
	go func() { held <- dbg.Call(ctx, &jdwp.RefTypeSourceFileCommand{RefType: c.ID}, nil) }()
	// Wait until the command is held (a condition, polled), then end the session from the VM side.
	require.Eventually(t, func() bool { return spec.Stats().Held == 1 }, 10*time.Second, time.Millisecond)
	vmPeer.Close()
	require.ErrorIs(t, <-errc, scache.ErrHeldCommands)
	require.Error(t, <-held)
	dbg.Close()
}
