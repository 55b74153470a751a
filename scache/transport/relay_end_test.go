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

// exitingVM accepts one connection on ln as a VM does, answers the
// handshake and the id sizes, reads what that answer starts, sends
// VMDeath if death, and then resets the connection, as a VM that exits
// with packets unread in its socket does.
func exitingVM(t *testing.T, ln net.Listener, death bool) {
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
	if death {
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
	go func() { defer close(vmDone); exitingVM(t, vmLn, death) }()
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
