package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
)

// TestNothingFollowsTheEnd: after the debugger's VirtualMachine.Exit or
// Dispose, or the VM's VMDeath, only the debugger's own packets go to the
// VM, even with speculation in flight and queued at that moment. (A VM that
// exits with commands unread resets the connection, and the reset can
// discard the Exit reply.)
func TestNothingFollowsTheEnd(t *testing.T) {
	modes := map[string][]scache.Option{
		"default":     nil,
		"classic":     {scache.Classic()},
		"unbounded":   {scache.WithMaxInFlight(0)},
		"one at once": {scache.WithMaxInFlight(1)},
		"no belay":    {scache.WithBelay(false)},
	}
	ends := map[string]func(h *harness){
		"Exit":    func(h *harness) { h.send(&jdwp.VMExitCommand{ExitCode: 0}) },
		"Dispose": func(h *harness) { h.send(&jdwp.VMDisposeCommand{}) },
		"VMDeath": func(h *harness) {
			h.event(jdwp.AppendCommandPacket(nil, 0x7777, &jdwp.Composite{SuspendPolicy: jdwp.SuspendPolicyNone,
				Events: []jdwp.Event{&jdwp.VMDeathEvent{}}}, sizes8))
		},
	}
	for name, opts := range modes {
		for endName, end := range ends {
			t.Run(name+"/"+endName, func(t *testing.T) {
				h := running(t, opts...)
				ev, ok := h.vm.Stop(1, jdwp.SuspendPolicyAll)
				require.True(t, ok)
				h.event(ev)
				// The debugger asks for frames, the class metadata speculation
				// starts, and the VM answers a few commands only.
				h.send(&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1})
				for i := 0; i < 3; i++ {
					h.step()
				}
				_, synthetic := h.vmCommands(jdwp.CmdReferenceTypeSourceFile)
				inFlight := h.s.Stats().InFlight
				if name != "classic" {
					require.Positive(t, inFlight+int64(synthetic), "speculation is under way at the end")
				}
				sentBefore := len(h.toVM)
				end(h)
				h.send(&jdwp.VMVersionCommand{}) // the debugger may still send its own
				h.drain()
				for _, p := range h.toVM[sentBefore:] {
					require.False(t, scache.IsSyntheticID(jdwp.PacketID(p)), "a synthetic command after the end: %x", p)
				}
				st := h.s.Stats()
				require.Zero(t, st.Held)
				require.Zero(t, st.InFlight)
			})
		}
	}
}
