package share

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
)

// sent collects what the mux sends.
func split(outs []out) (toVM [][]byte, toClient map[ClientID][][]byte) {
	toClient = map[ClientID][][]byte{}
	for _, o := range outs {
		if o.toVM {
			toVM = append(toVM, o.packet)
		} else {
			toClient[o.client] = append(toClient[o.client], o.packet)
		}
	}
	return
}

func cmds(packets [][]byte) []jdwp.Command {
	var out []jdwp.Command
	for _, p := range packets {
		h, _ := jdwp.ParseHeader(p)
		out = append(out, h.Cmd())
	}
	return out
}

// TestDisposeClearsOnlyTheLeavingClient: client 1's Dispose is answered by
// the session, not forwarded; its event request is cleared and its suspend
// resumed; client 2's request stays.
func TestDisposeClearsOnlyTheLeavingClient(t *testing.T) {
	spec, err := scache.New(scache.PassThrough())
	require.NoError(t, err)
	m := newMux(spec)
	m.join(1)
	m.join(2)
	set := func(c ClientID, id uint32, vmReply int32) {
		toVM, _ := split(m.fromClient(c, jdwp.AppendCommandPacket(nil, id, &jdwp.EventRequestSetCommand{
			EventKind: jdwp.EventBreakpoint, SuspendPolicy: jdwp.SuspendPolicyAll}, jdwp.DefaultIDSizes)))
		require.Len(t, toVM, 1)
		_, toClient := split(m.fromVM(jdwp.AppendReplyPacket(nil, jdwp.PacketID(toVM[0]), &jdwp.IntReply{Value: vmReply}, jdwp.DefaultIDSizes)))
		require.Len(t, toClient[c], 1)
		require.Equal(t, id, jdwp.PacketID(toClient[c][0]), "the reply carries the client's own id")
	}
	set(1, 1, 10)
	set(2, 1, 20) // the same client id: no collision on the VM side
	toVM, _ := split(m.fromClient(1, jdwp.AppendCommand(nil, 2, jdwp.CmdVirtualMachineSuspend, nil)))
	require.Equal(t, []jdwp.Command{jdwp.CmdVirtualMachineSuspend}, cmds(toVM))

	toVM, toClient := split(m.fromClient(1, jdwp.AppendCommand(nil, 3, jdwp.CmdVirtualMachineDispose, nil)))
	require.ElementsMatch(t, []jdwp.Command{jdwp.CmdEventRequestClear, jdwp.CmdVirtualMachineResume}, cmds(toVM))
	for _, p := range toVM {
		if h, _ := jdwp.ParseHeader(p); h.Cmd() == jdwp.CmdEventRequestClear {
			var cl jdwp.EventRequestClearCommand
			require.NoError(t, jdwp.Unmarshal(jdwp.Data(p), jdwp.DefaultIDSizes, &cl))
			require.Equal(t, int32(10), cl.RequestID, "client 1's own request")
		}
	}
	require.Equal(t, [][]byte{jdwp.AppendReply(nil, 3, jdwp.ErrNone, nil)}, toClient[1], "the session answers the Dispose")

	// An event of client 2's request still reaches client 2, none reaches client 1.
	ev := jdwp.AppendCommandPacket(nil, 77, &jdwp.Composite{SuspendPolicy: jdwp.SuspendPolicyNone, Events: []jdwp.Event{
		&jdwp.LocationEvent{EventKind: jdwp.EventBreakpoint, RequestID: 20, Thread: 1}}}, jdwp.DefaultIDSizes)
	_, toClient = split(m.fromVM(ev))
	require.Len(t, toClient[2], 1)
	require.Empty(t, toClient[1])
}

// TestCompositeIsSplitPerClient: a composite with events of two clients'
// requests and a VM-wide one reaches each client with its own events and
// the VM-wide one.
func TestCompositeIsSplitPerClient(t *testing.T) {
	spec, err := scache.New(scache.PassThrough())
	require.NoError(t, err)
	m := newMux(spec)
	m.join(1)
	m.join(2)
	m.requests[5], m.requests[6] = 1, 2
	ev := jdwp.AppendCommandPacket(nil, 9, &jdwp.Composite{SuspendPolicy: jdwp.SuspendPolicyAll, Events: []jdwp.Event{
		&jdwp.LocationEvent{EventKind: jdwp.EventBreakpoint, RequestID: 5, Thread: 1},
		&jdwp.LocationEvent{EventKind: jdwp.EventSingleStep, RequestID: 6, Thread: 1},
		&jdwp.VMDeathEvent{RequestID: 0},
	}}, jdwp.DefaultIDSizes)
	_, toClient := split(m.fromVM(ev))
	for c, want := range map[ClientID]int32{1: 5, 2: 6} {
		require.Len(t, toClient[c], 1)
		var comp jdwp.Composite
		require.NoError(t, jdwp.Unmarshal(jdwp.Data(toClient[c][0]), jdwp.DefaultIDSizes, &comp))
		require.Len(t, comp.Events, 2)
		require.Equal(t, want, comp.Events[0].Request())
		require.Equal(t, jdwp.EventVMDeath, comp.Events[1].Kind())
		require.Equal(t, 1, m.clients[c].vmSuspends, "each owns the suspension it was told of")
	}
}
