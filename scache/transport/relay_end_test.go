package transport_test

import (
	"context"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jdwpscache/scache/jdwp"
)

// vmExit is how an exitingVM ends: with a thread's death (threadDeath)
// and VMDeath (death) before its reset, each if set; ready, if not nil,
// is closed before them, and they wait for proceed, if not nil.
type vmExit struct {
	death, threadDeath bool
	ready              chan<- struct{}
	proceed            <-chan struct{}
}

// exitingVM accepts one connection on ln as a VM does, answers the
// handshake and the id sizes, reads what that answer starts, sends what
// e says, and then resets the connection, as a VM that exits with packets
// unread in its socket does.
func exitingVM(t *testing.T, ln net.Listener, e vmExit) {
	c, err := ln.Accept()
	if err != nil {
		return
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second)) // a bound on a broken test, not a synchronisation
	hs := make([]byte, len(jdwp.HandshakeBytes))
	if _, err := io.ReadFull(c, hs); err != nil {
		return
	}
	if _, err := c.Write(jdwp.HandshakeBytes); err != nil {
		return
	}
	f := jdwp.NewFramer(nil, c)
	p, err := f.ReadPacket()
	if err != nil {
		return
	}
	if h, err := jdwp.ParseHeader(p); err == nil && h.Cmd() == jdwp.CmdVirtualMachineIDSizes {
		w := jdwp.NewWriter(jdwp.DefaultIDSizes)
		for range 5 {
			w.Int32(8)
		}
		if _, err := c.Write(jdwp.AppendReply(nil, h.ID, jdwp.ErrNone, w.Bytes())); err != nil {
			return
		}
	}
	// What the answer starts (the version and capabilities) is read, so
	// that the Relay writes nothing more: the reset is met reading.
	for asked := map[jdwp.Command]bool{}; !asked[jdwp.CmdVirtualMachineVersion] || !asked[jdwp.CmdVirtualMachineCapabilitiesNew]; {
		p, err := f.ReadPacket()
		if err != nil {
			return
		}
		if h, err := jdwp.ParseHeader(p); err == nil {
			asked[h.Cmd()] = true
		}
	}
	if e.ready != nil {
		close(e.ready)
	}
	if e.proceed != nil {
		<-e.proceed
	}
	if e.threadDeath {
		w := jdwp.NewWriter(jdwp.DefaultIDSizes)
		w.Uint8(uint8(jdwp.SuspendPolicyNone))
		w.Int32(1)
		w.Uint8(uint8(jdwp.EventThreadDeath))
		w.Int32(0)
		w.ObjectID(7)
		if _, err := c.Write(jdwp.AppendCommand(nil, 2, jdwp.CmdEventComposite, w.Bytes())); err != nil {
			return
		}
	}
	if e.death {
		w := jdwp.NewWriter(jdwp.DefaultIDSizes)
		w.Uint8(uint8(jdwp.SuspendPolicyNone))
		w.Int32(1)
		w.Uint8(uint8(jdwp.EventVMDeath))
		w.Int32(0)
		if _, err := c.Write(jdwp.AppendCommand(nil, 1, jdwp.CmdEventComposite, w.Bytes())); err != nil {
			return
		}
	}
	_ = c.(*net.TCPConn).SetLinger(0) // Close resets the connection
}

// relayToExitingVM runs a Relay between a debugger that reads until its
// connection ends and an exitingVM, and returns what the Relay returned.
func relayToExitingVM(t *testing.T, death bool) error {
	vmLn, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer vmLn.Close()
	vmDone := make(chan struct{})
	go func() { defer close(vmDone); exitingVM(t, vmLn, vmExit{death: death}) }()
	dbg, relaySide := net.Pipe()
	vm, err := net.Dial("tcp", vmLn.Addr().String())
	require.NoError(t, err)
	errc := make(chan error, 1)
	go func() { errc <- newRelay(t).Run(context.Background(), relaySide, vm) }()
	_, err = dbg.Write(jdwp.HandshakeBytes)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, dbg) // the handshake, VMDeath, until the Relay closes it
	<-vmDone
	select {
	case err := <-errc:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the Relay did not end")
		return nil
	}
}

// TestAResetAfterVMDeathEndsTheSessionCleanly: a VM that sent VMDeath and
// exits may reset its connection instead of closing it (packets unread in
// its socket, or written to it once closed). The session was over: the
// Relay ends without an error, where a reset before VMDeath is one.
func TestAResetAfterVMDeathEndsTheSessionCleanly(t *testing.T) {
	require.NoError(t, relayToExitingVM(t, true), "a reset after VMDeath")
	err := relayToExitingVM(t, false)
	require.ErrorIs(t, err, syscall.ECONNRESET, "a reset mid-session")
}

// TestAWriteToAVMThatExitedEndsTheSessionCleanly: the debugger sends a
// command after the VM sent VMDeath and reset its connection, while the
// Relay has not yet read that VMDeath (it is still writing the VM's
// packet before it to the debugger). The write to the VM fails; the
// session ends cleanly once the VM's side, read to its end, shows VMDeath.
func TestAWriteToAVMThatExitedEndsTheSessionCleanly(t *testing.T) {
	vmLn, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer vmLn.Close()
	vmDone := make(chan struct{})
	go func() { defer close(vmDone); exitingVM(t, vmLn, vmExit{death: true, threadDeath: true}) }()
	// net.Pipe: the Relay's write of the thread's death to the debugger
	// waits until the debugger reads, so VMDeath stays unread behind it.
	dbg, relaySide := net.Pipe()
	vm, err := net.Dial("tcp", vmLn.Addr().String())
	require.NoError(t, err)
	errc := make(chan error, 1)
	go func() { errc <- newRelay(t).Run(context.Background(), relaySide, vm) }()
	_, err = dbg.Write(jdwp.HandshakeBytes)
	require.NoError(t, err)
	hs := make([]byte, len(jdwp.HandshakeBytes))
	_, err = io.ReadFull(dbg, hs)
	require.NoError(t, err)
	<-vmDone // the VM sent its packets and reset the connection
	w := jdwp.NewWriter(jdwp.DefaultIDSizes)
	w.ObjectID(7)
	_, err = dbg.Write(jdwp.AppendCommand(nil, 100, jdwp.CmdThreadReferenceName, w.Bytes()))
	require.NoError(t, err)
	var kinds []jdwp.EventKind
	_ = jdwp.NewFramer(nil, dbg).ReadEach(func(p []byte) error {
		if h, err := jdwp.ParseHeader(p); err == nil && h.Cmd() == jdwp.CmdEventComposite && len(p) > 16 {
			kinds = append(kinds, jdwp.EventKind(p[16]))
		}
		return nil
	})
	require.Equal(t, []jdwp.EventKind{jdwp.EventThreadDeath, jdwp.EventVMDeath}, kinds, "the VM's packets reached the debugger")
	select {
	case err := <-errc:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the Relay did not end")
	}
}
