package scache

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
)

// A family added through the table alone fires at a stop, is answered from
// the cache, and is gone when its lifetime (the suspension epoch) ends.
func TestAToyFamilyThroughTheTableAlone(t *testing.T) {
	const toy Family = 1 << 15
	families = append(families, &family{
		flag: toy, life: lifetimeSuspension,
		onStop: func(s *Speculator, stop stopEvent) {
			s.enqueue(&jdwp.ThreadStatusCommand{Thread: stop.thread}, true)
		},
		sends: []jdwp.Command{jdwp.CmdThreadReferenceStatus},
	})
	t.Cleanup(func() { families = families[:len(families)-1] })

	sizes := jdwp.DefaultIDSizes
	vm := scachetest.NewModelVM(sizes)
	c := vm.AddClass("LToy;", 1, false, false)
	vm.SetThread(1, []scachetest.ModelFrame{{Class: c.ID, Method: c.Methods[0], Index: 3}})
	s, err := New(WithFamilies(toy))
	require.NoError(t, err)
	var synthetic, toDebugger [][]byte
	// deliver presents a packet and lets the VM answer what goes up, at once.
	var deliver func(r Response)
	deliver = func(r Response) {
		up := append([][]byte(nil), r.Edict.Upstream...)
		for _, p := range r.Edict.Downstream {
			toDebugger = append(toDebugger, append([]byte(nil), p...))
		}
		for _, p := range up {
			if IsSyntheticID(jdwp.PacketID(p)) {
				synthetic = append(synthetic, append([]byte(nil), p...))
			}
			deliver(s.OnDownstream(vm.Handle(p)))
		}
	}
	ask := func(id uint32, m jdwp.CommandMessage) Response {
		r := s.OnUpstream(jdwp.AppendCommandPacket(nil, id, m, sizes))
		deliver(r)
		return r
	}
	ask(1, &jdwp.VMIDSizesCommand{})
	ask(2, &jdwp.VMResumeCommand{})
	ev, ok := vm.Stop(1, jdwp.SuspendPolicyAll)
	require.True(t, ok)
	deliver(s.OnDownstream(ev))
	require.Len(t, synthetic, 1, "the toy family fired, and only it")
	h, _ := jdwp.ParseHeader(synthetic[0])
	require.Equal(t, jdwp.CmdThreadReferenceStatus, h.Cmd())

	r := ask(3, &jdwp.ThreadStatusCommand{Thread: 1})
	require.Empty(t, r.Edict.Upstream, "answered from the cache")
	require.Equal(t, int64(1), s.Stats().Hits)

	ask(4, &jdwp.VMResumeCommand{})
	r = ask(5, &jdwp.ThreadStatusCommand{Thread: 1})
	require.Len(t, r.Edict.Upstream, 1, "the epoch ended: asked of the VM")
	require.Equal(t, int64(1), s.Stats().Hits)
}

// Every command a family sends is keyable (its reply is cached for its own
// lifetime), and every trigger command has a typed reply to decode.
func TestFamiliesSendKeyableCommands(t *testing.T) {
	for _, f := range families {
		for _, cmd := range f.sends {
			_, ok := keyable[cmd]
			require.True(t, ok, "%s is not keyable", cmd)
		}
		for cmd := range f.onReply {
			require.NotNil(t, jdwp.NewReplyMessage(cmd), "%s", cmd)
		}
	}
}
