package transport_test

import (
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache/transport"
)

// heldConn is a connection whose reads can be held: what a Read got from
// the connection is returned only while the gate is open. It tells, on
// writeFailed, the first write that failed.
type heldConn struct {
	net.Conn
	mu          sync.Mutex
	open        *sync.Cond
	held        bool
	failOnce    sync.Once
	writeFailed chan struct{}
}

func newHeldConn(c net.Conn) *heldConn {
	h := &heldConn{Conn: c, writeFailed: make(chan struct{})}
	h.open = sync.NewCond(&h.mu)
	return h
}

func (h *heldConn) Read(p []byte) (int, error) {
	n, err := h.Conn.Read(p)
	h.mu.Lock()
	for h.held {
		h.open.Wait()
	}
	h.mu.Unlock()
	return n, err
}

func (h *heldConn) Write(p []byte) (int, error) {
	n, err := h.Conn.Write(p)
	if err != nil {
		h.failOnce.Do(func() { close(h.writeFailed) })
	}
	return n, err
}

// hold holds the reads from now on (a Read under way included), or lets
// them go.
func (h *heldConn) hold(held bool) {
	h.mu.Lock()
	h.held = held
	h.mu.Unlock()
	h.open.Broadcast()
}

// TestAWriteToAVMThatExitedEndsTheSplitSessionCleanly: through a split
// proxy, the debugger's command reaches the near half after the VM sent a
// thread's death and VMDeath and reset its connection, while the near half
// has not yet read them. Its write to the VM fails; the session ends
// cleanly, on both halves, once the near half has read the VM's side to
// its end, and the debugger gets both events.
func TestAWriteToAVMThatExitedEndsTheSplitSessionCleanly(t *testing.T) {
	vmLn, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer vmLn.Close()
	ready, proceed, vmDone := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(vmDone)
		exitingVM(t, vmLn, vmExit{death: true, threadDeath: true, ready: ready, proceed: proceed})
	}()
	tcp, err := net.Dial("tcp", vmLn.Addr().String())
	require.NoError(t, err)
	vm := newHeldConn(tcp)

	tunnelNear, tunnelFar := tcpPair(t)
	dbg, dbgSide := tcpPair(t)
	nearErr, farErr := make(chan error, 1), make(chan error, 1)
	go func() {
		nearErr <- newRelay(t, transport.WithSplit(transport.NearHalf)).Run(context.Background(), tunnelNear, vm)
	}()
	go func() {
		farErr <- newRelay(t, transport.WithSplit(transport.FarHalf)).Run(context.Background(), dbgSide, tunnelFar)
	}()
	_, err = dbg.Write(jdwp.HandshakeBytes)
	require.NoError(t, err)
	hs := make([]byte, len(jdwp.HandshakeBytes))
	_, err = io.ReadFull(dbg, hs)
	require.NoError(t, err)

	<-ready // the near half has asked what the id sizes start
	vm.hold(true)
	close(proceed)
	<-vmDone // the VM sent its packets and reset the connection
	_, err = dbg.Write(threadNameCommand())
	require.NoError(t, err)
	select {
	case <-vm.writeFailed: // the command reached the near half, which failed to write it
	case <-time.After(10 * time.Second):
		t.Fatal("the near half wrote nothing that failed")
	}
	vm.hold(false)

	kinds := eventKinds(dbg)
	dbg.Close() // as a debugger does at VMDeath
	require.Equal(t, []jdwp.EventKind{jdwp.EventThreadDeath, jdwp.EventVMDeath}, kinds, "the VM's packets reached the debugger")
	for name, c := range map[string]chan error{"near": nearErr, "far": farErr} {
		select {
		case err := <-c:
			require.NoError(t, err, "the %s half", name)
		case <-time.After(20 * time.Second):
			t.Fatalf("the %s half did not end", name)
		}
	}
}
