package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
)

// speculating sends a Frames command, lets the VM answer it, and leaves the
// synthetic commands it triggered in flight.
func speculating(t *testing.T, opts ...scache.Option) (*harness, *scachetest.ModelClass) {
	vm, c := scachetest.OneFrameWorld(sizes8)
	h := newHarness(t, vm, opts...)
	h.send(&jdwp.ThreadFramesCommand{Thread: 7, StartFrame: 0, Length: -1})
	require.True(t, h.step())
	require.Equal(t, int64(8), h.s.Stats().InFlight)
	return h, c
}

func TestBelayHoldsAndAnswersFromTheSyntheticReply(t *testing.T) {
	h, c := speculating(t)
	cmd := &jdwp.MethodLineTableCommand{RefType: c.ID, Method: c.Methods[0]}
	sentBefore := len(h.toVM)
	a := h.send(cmd)
	b := h.send(cmd) // several commands may wait on one reply
	require.Len(t, h.toVM, sentBefore, "held, not forwarded")
	require.Equal(t, int64(2), h.s.Stats().Held)
	h.drain()
	want := h.vm.Clone().Handle(jdwp.AppendCommandPacket(nil, a, cmd, sizes8))
	require.Equal(t, want, h.replyTo(a))
	jdwp.SetPacketID(want, b)
	require.Equal(t, want, h.replyTo(b))
	st := h.s.Stats()
	require.Equal(t, int64(2), st.Belayed)
	require.Zero(t, st.Held)
	require.Zero(t, st.Misses)
}

func TestClassicDoesNotBelay(t *testing.T) {
	h, c := speculating(t, scache.Classic())
	sentBefore := len(h.toVM)
	id := h.send(&jdwp.RefTypeSourceFileCommand{RefType: c.ID})
	require.Len(t, h.toVM, sentBefore+1, "forwarded")
	h.drain()
	h.replyTo(id)
	require.Equal(t, int64(1), h.s.Stats().Misses)
	require.Zero(t, h.s.Stats().Belayed)
}

func TestBelayOnTheDebuggersOwnCommandInFlight(t *testing.T) {
	vm, c := scachetest.OneFrameWorld(sizes8)
	h := newHarness(t, vm)
	cmd := &jdwp.RefTypeSourceFileCommand{RefType: c.ID}
	a := h.send(cmd)
	b := h.send(cmd)
	require.Len(t, h.toVM, 1)
	h.drain()
	require.Equal(t, jdwp.Data(h.replyTo(a)), jdwp.Data(h.replyTo(b)))
	// The reply is cached: a third command hits.
	c3 := h.send(cmd)
	h.replyTo(c3)
	require.Equal(t, int64(1), h.s.Stats().Hits)
}

func TestDisableWhileHoldingReleasesHeldCommandsUpstream(t *testing.T) {
	h, c := speculating(t)
	cmd := &jdwp.RefTypeSourceFileCommand{RefType: c.ID}
	a := h.send(cmd)
	held := jdwp.AppendCommandPacket(nil, a, cmd, sizes8)
	r := h.sendRaw([]byte{0, 0, 0, 3}) // garbage
	require.False(t, h.s.Enabled())
	require.Equal(t, [][]byte{held, {0, 0, 0, 3}}, r.Edict.Upstream, "held first, in order, then the packet")
	require.Zero(t, h.s.Stats().Held)
	h.vmQueue = h.vmQueue[:len(h.vmQueue)-1] // the VM would drop the garbage
	h.drain()
	h.replyTo(a) // exactly once: from the VM, not also from the synthetic reply
	for _, p := range h.toDebugger {
		require.False(t, scache.IsSyntheticID(jdwp.PacketID(p)), "a synthetic reply reached the debugger")
	}
	// Replies to the synthetic commands still in flight were absorbed.
	require.Zero(t, h.s.Stats().InFlight)
}

func TestRedefineClassesEvictsCachedAndInFlight(t *testing.T) {
	vm, c := scachetest.OneFrameWorld(sizes8)
	h := newHarness(t, vm)
	h.send(&jdwp.ThreadFramesCommand{Thread: 7, StartFrame: 0, Length: -1})
	h.drain()
	lt := &jdwp.MethodLineTableCommand{RefType: c.ID, Method: c.Methods[0]}
	before := h.replyTo(h.send(lt))

	// Speculate again (new Frames) so that replies are in flight, then hot swap.
	h.send(&jdwp.RefTypeMethodsCommand{RefType: c.ID})
	h.send(&jdwp.VMRedefineClassesCommand{Classes: []jdwp.ClassDef{{RefType: c.ID, ClassFile: []byte{0xCA, 0xFE}}}})
	require.Zero(t, h.s.Stats().CacheEntries, "every entry of the redefined class is evicted")
	h.drain()
	id := h.send(lt)
	h.drain()
	after := h.replyTo(id)
	require.NotEqual(t, jdwp.Data(before), jdwp.Data(after), "the new line table, not the cached one")
	require.Equal(t, 1, lineTableVersion(t, after))
}

func TestRedefineWhileSyntheticInFlightAnswersHeldButDoesNotCache(t *testing.T) {
	h, c := speculating(t)
	lt := &jdwp.MethodLineTableCommand{RefType: c.ID, Method: c.Methods[0]}
	held := h.send(lt) // held on the synthetic LineTable, sent before the hot swap
	h.send(&jdwp.VMRedefineClassesCommand{Classes: []jdwp.ClassDef{{RefType: c.ID, ClassFile: []byte{1}}}})
	after := h.send(lt) // sent after the hot swap: must not wait on the old reply
	h.drain()
	require.Equal(t, 0, lineTableVersion(t, h.replyTo(held)))
	require.Equal(t, 1, lineTableVersion(t, h.replyTo(after)))
	again := h.send(lt)
	h.drain()
	require.Equal(t, 1, lineTableVersion(t, h.replyTo(again)))
}

// lineTableVersion returns the version of the model class whose line table
// the reply is (scachetest.ModelLineTable).
func lineTableVersion(t *testing.T, reply []byte) int {
	t.Helper()
	var table jdwp.MethodLineTableReply
	require.NoError(t, jdwp.Unmarshal(jdwp.Data(reply), sizes8, &table))
	require.NotEmpty(t, table.Lines)
	return int(table.Lines[0].LineNumber-10) / 100
}

func TestClassUnloadWhileInFlightDoesNotCache(t *testing.T) {
	vm, c := scachetest.OneFrameWorld(sizes8)
	h := newHarness(t, vm)
	h.send(&jdwp.VMAllClassesCommand{})
	h.drain()
	h.send(&jdwp.ThreadFramesCommand{Thread: 7, StartFrame: 0, Length: -1})
	h.step()
	require.Equal(t, int64(8), h.s.Stats().InFlight)
	h.vm.SetThread(7, nil) // the thread left LMain: nothing keeps it loaded
	h.event(h.vm.Unload("LMain;"))
	h.drain()
	require.Zero(t, h.s.Stats().CacheEntries, "replies in flight at the unload are not cached")
	require.Equal(t, int64(8), h.s.Stats().Wasted)
	id := h.send(&jdwp.RefTypeSourceFileCommand{RefType: c.ID})
	h.drain()
	ph, _ := jdwp.ParseHeader(h.replyTo(id))
	require.Equal(t, jdwp.ErrInvalidClass, ph.ErrorCode, "the VM's answer for an unloaded class")
}

func TestVMDeathAndDisposeClearEverything(t *testing.T) {
	for _, end := range []string{"VMDeath", "Dispose"} {
		t.Run(end, func(t *testing.T) {
			vm, _ := scachetest.OneFrameWorld(sizes8)
			h := newHarness(t, vm)
			h.send(&jdwp.ThreadFramesCommand{Thread: 7, StartFrame: 0, Length: -1})
			h.drain()
			require.NotZero(t, h.s.Stats().CacheEntries)
			if end == "VMDeath" {
				h.event(jdwp.AppendCommandPacket(nil, 5, &jdwp.Composite{Events: []jdwp.Event{&jdwp.VMDeathEvent{}}}, sizes8))
			} else {
				h.send(&jdwp.VMDisposeCommand{})
			}
			st := h.s.Stats()
			require.Zero(t, st.CacheEntries)
			require.Zero(t, st.CacheBytes)
		})
	}
}

func TestCloseReportsHeldCommands(t *testing.T) {
	h, c := speculating(t)
	h.send(&jdwp.RefTypeSourceFileCommand{RefType: c.ID})
	entries := h.s.Stats().CacheEntries
	err := h.s.Close()
	require.ErrorIs(t, err, scache.ErrHeldCommands)
	require.Equal(t, entries, h.s.Stats().CacheEntries, "Stats reports the cache as it was at Close")

	h2, _ := speculating(t)
	require.NoError(t, h2.s.Close())
}
