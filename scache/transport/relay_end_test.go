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
	for _, ev := range []struct {
		send   bool
		kind   jdwp.EventKind
		thread jdwp.ObjectID // 0: none
	}{{e.threadDeath, jdwp.EventThreadDeath, 7}, {e.death, jdwp.EventVMDeath, 0}} {
		if !ev.send {
			continue
		}
		w := jdwp.NewWriter(jdwp.DefaultIDSizes)
		w.Uint8(uint8(jdwp.SuspendPolicyNone))
		w.Int32(1)
		w.Uint8(uint8(ev.kind))
		w.Int32(0) // the request id
		if ev.thread != 0 {
			w.ObjectID(ev.thread)
		}
		if _, err := c.Write(jdwp.AppendCommand(nil, uint32(ev.kind), jdwp.CmdEventComposite, w.Bytes())); err != nil {
			return
		}
	}
	_ = c.(*net.TCPConn).SetLinger(0) // Close resets the connection
}

// relayToExitingVM starts a Relay between a debugger and an exitingVM
// that ends as e says, over a net.Pipe (the Relay's writes to the
// debugger wait until it reads), and sends the debugger's handshake. It
// returns the debugger's end, a channel closed once the VM has reset its
// connection, and what the Relay's Run returns.
func relayToExitingVM(t *testing.T, e vmExit) (dbg net.Conn, vmDone <-chan struct{}, ended <-chan error) {
	vmLn, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { vmLn.Close() })
	done := make(chan struct{})
	go func() { defer close(done); exitingVM(t, vmLn, e) }()
	dbg, relaySide := net.Pipe()
	t.Cleanup(func() { dbg.Close() })
	vm, err := net.Dial("tcp", vmLn.Addr().String())
	require.NoError(t, err)
	errc := make(chan error, 1)
	go func() { errc <- newRelay(t).Run(context.Background(), relaySide, vm) }()
	_, err = dbg.Write(jdwp.HandshakeBytes)
	require.NoError(t, err)
	return dbg, done, errc
}

// relayEnded returns what the Relay's Run returned.
func relayEnded(t *testing.T, ended <-chan error) error {
	select {
	case err := <-ended:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the Relay did not end")
		return nil
	}
}

// eventKinds reads packets from r until it ends, and returns the kind of
// the first event of each composite among them.
func eventKinds(r io.Reader) []jdwp.EventKind {
	var kinds []jdwp.EventKind
	_ = jdwp.NewFramer(nil, r).ReadEach(func(p []byte) error {
		if h, err := jdwp.ParseHeader(p); err == nil && h.Cmd() == jdwp.CmdEventComposite && len(p) > 16 {
			kinds = append(kinds, jdwp.EventKind(p[16]))
		}
		return nil
	})
	return kinds
}

// threadNameCommand is a debugger's ThreadReference.Name of thread 7.
func threadNameCommand() []byte {
	w := jdwp.NewWriter(jdwp.DefaultIDSizes)
	w.ObjectID(7)
	return jdwp.AppendCommand(nil, 100, jdwp.CmdThreadReferenceName, w.Bytes())
}

// TestAResetAfterVMDeathEndsTheSessionCleanly: a VM that sent VMDeath and
// exits may reset its connection instead of closing it (packets unread in
// its socket, or written to it once closed). The session was over: the
// Relay ends without an error, where a reset before VMDeath is one.
func TestAResetAfterVMDeathEndsTheSessionCleanly(t *testing.T) {
	for _, death := range []bool{true, false} {
		dbg, vmDone, ended := relayToExitingVM(t, vmExit{death: death})
		_, _ = io.Copy(io.Discard, dbg) // the handshake, VMDeath, until the Relay closes it
		<-vmDone
		err := relayEnded(t, ended)
		if death {
			require.NoError(t, err, "a reset after VMDeath")
		} else {
			require.ErrorIs(t, err, syscall.ECONNRESET, "a reset mid-session")
		}
	}
}

// TestAWriteToAVMThatExitedEndsTheSessionCleanly: the debugger sends a
// command after the VM sent VMDeath and reset its connection, while the
// Relay has not yet read that VMDeath (it is still writing the VM's
// packet before it to the debugger). The write to the VM fails; the
// session ends cleanly once the VM's side, read to its end, shows VMDeath.
func TestAWriteToAVMThatExitedEndsTheSessionCleanly(t *testing.T) {
	// The Relay's write of the thread's death to the debugger waits until
	// the debugger reads, so VMDeath stays unread behind it.
	dbg, vmDone, ended := relayToExitingVM(t, vmExit{death: true, threadDeath: true})
	hs := make([]byte, len(jdwp.HandshakeBytes))
	_, err := io.ReadFull(dbg, hs)
	require.NoError(t, err)
	<-vmDone // the VM sent its packets and reset the connection
	_, err = dbg.Write(threadNameCommand())
	require.NoError(t, err)
	kinds := eventKinds(dbg)
	require.Equal(t, []jdwp.EventKind{jdwp.EventThreadDeath, jdwp.EventVMDeath}, kinds, "the VM's packets reached the debugger")
	require.NoError(t, relayEnded(t, ended))
}
