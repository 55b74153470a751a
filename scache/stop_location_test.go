package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
)

// TestStopLocationMetadataGoesOutWithTheStop: the event names the top
// frame's class and method, so their metadata goes to the VM with the
// stop's first commands, not one reply behind the frames (what only some
// debuggers ask, once this one asked it); Classic waits for the frames, as
// the original did.
func TestStopLocationMetadataGoesOutWithTheStop(t *testing.T) {
	always := 0
	for _, cmd := range scache.DefaultFrameSet {
		if !scache.AskedFirst(cmd) {
			always++
		}
	}
	require.Less(t, always, len(scache.DefaultFrameSet), "some wait until asked")
	for _, tc := range []struct {
		name string
		opts []scache.Option
		want int // class metadata commands sent with the event
	}{{"default", nil, always}, {"classic", []scache.Option{scache.Classic()}, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			h := threadsWorld(t, 1, false, tc.opts...)
			ask(h, &jdwp.VMIDSizesCommand{})
			ask(h, &jdwp.VMResumeCommand{})
			sent := h.stopEvent(1, jdwp.SuspendPolicyAll)
			about := 0
			for _, cmd := range scache.DefaultFrameSet {
				about += sent[cmd]
			}
			require.Equal(t, tc.want, about)
		})
	}
}

// TestWhatOnlySomeDebuggersAskGoesOutOnceAsked: Eclipse's JDI asks every
// type's plain Signature, the JDK's never. The frame set sends it only
// once the debugger has asked one: then at every stop, with the frames.
func TestWhatOnlySomeDebuggersAskGoesOutOnceAsked(t *testing.T) {
	h := threadsWorld(t, 1, false)
	ask(h, &jdwp.VMIDSizesCommand{})
	ask(h, &jdwp.VMResumeCommand{})
	sent := h.stopEvent(1, jdwp.SuspendPolicyAll)
	require.Zero(t, sent[jdwp.CmdReferenceTypeSignature], "not asked yet: not sent")
	top := h.vm.Thread(1).Frames[0]
	got, want := ask(h, &jdwp.RefTypeSignatureCommand{RefType: top.Class})
	require.Equal(t, want, got)
	ask(h, &jdwp.VMResumeCommand{})
	h.vm.Thread(1).Frames[0].Class = h.vm.AddClass("LOther;", 2, false, false).ID
	sent = h.stopEvent(1, jdwp.SuspendPolicyAll)
	require.Equal(t, 1, sent[jdwp.CmdReferenceTypeSignature], "asked once: sent with the next stop's location")
}
