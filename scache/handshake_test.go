package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
)

// At the handshake the Speculator asks the id sizes and the version; the
// sizes' reply starts the facts of the session, and the debugger's IDSizes
// is answered from the cache, re-tagged with its own id.
func TestTheIDSizesAreAskedAtTheHandshake(t *testing.T) {
	vm, _ := scachetest.OneFrameWorld(sizes8)
	h := newHarness(t, vm)
	h.apply(h.s.OnHandshake())
	require.Equal(t, []jdwp.Command{jdwp.CmdVirtualMachineIDSizes, jdwp.CmdVirtualMachineVersion}, h.syntheticSent(),
		"before any packet: the id sizes, and the version (no ids in it)")
	require.Empty(t, h.toDebugger)
	h.drain()
	require.Equal(t, []jdwp.Command{jdwp.CmdVirtualMachineIDSizes, jdwp.CmdVirtualMachineVersion, jdwp.CmdVirtualMachineCapabilitiesNew},
		h.syntheticSent(), "the id sizes' reply starts the session's facts")

	sent := len(h.toVM)
	got, want := ask(h, &jdwp.VMIDSizesCommand{})
	require.Equal(t, want, got)
	require.Equal(t, sent, len(h.toVM), "answered from the cache")
	got, want = ask(h, &jdwp.VMVersionCommand{})
	require.Equal(t, want, got)
	require.Equal(t, sent, len(h.toVM), "and so is the version")
	require.Equal(t, int64(2), h.s.Stats().Hits)
}

// A debugger that asks the id sizes before the VM has answered the
// Speculator's waits for that reply instead of asking the VM again.
func TestTheDebuggersIDSizesWaitForTheHandshakes(t *testing.T) {
	vm, _ := scachetest.OneFrameWorld(sizes8)
	h := newHarness(t, vm)
	h.apply(h.s.OnHandshake())
	want := vm.Clone().Handle(jdwp.AppendCommandPacket(nil, 1, &jdwp.VMIDSizesCommand{}, sizes8))
	id := h.send(&jdwp.VMIDSizesCommand{})
	require.Zero(t, h.reachedVM(id), "held, not forwarded")
	require.Empty(t, h.toDebugger, "not answered before the VM has")
	h.drain()
	require.Equal(t, want, h.replyTo(id))
	total, synthetic := h.vmCommands(jdwp.CmdVirtualMachineIDSizes)
	require.Equal(t, 1, total, "the VM was asked once")
	require.Equal(t, 1, synthetic)
}

// OnHandshake speculates only at the start of a session, with FamilyAttach
// on: after a packet, in Classic and with speculation off it sends nothing.
func TestOnHandshakeSendsNothingButAtTheStart(t *testing.T) {
	for name, opts := range map[string][]scache.Option{
		"after a packet": nil,
		"classic":        {scache.Classic()},
		"pass-through":   {scache.PassThrough()},
		"no attach":      {scache.WithFamilies(scache.FamilyStop)},
	} {
		t.Run(name, func(t *testing.T) {
			vm, _ := scachetest.OneFrameWorld(sizes8)
			h := newHarness(t, vm, opts...)
			if name == "after a packet" {
				h.send(&jdwp.VMIDSizesCommand{})
			}
			sent := len(h.toVM)
			r := h.s.OnHandshake()
			require.Empty(t, r.Edict.Upstream)
			require.Empty(t, r.Edict.Downstream)
			h.apply(r)
			require.Equal(t, sent, len(h.toVM))
		})
	}
}
