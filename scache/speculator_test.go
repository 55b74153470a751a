package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
)

var sizes8 = jdwp.DefaultIDSizes

func TestFramesReplyTriggersEightSyntheticCommandsPerFrameClass(t *testing.T) {
	for _, mode := range []struct {
		name string
		opts []scache.Option
	}{{"classic", []scache.Option{scache.Classic()}}, {"default", nil}} {
		t.Run(mode.name, func(t *testing.T) {
			vm, _ := scachetest.OneFrameWorld(sizes8)
			h := newHarness(t, vm, mode.opts...)
			h.send(&jdwp.ThreadFramesCommand{Thread: 7, StartFrame: 0, Length: 1})
			require.True(t, h.step())
			// The Frames reply is forwarded, and 8 synthetic commands went up.
			require.Len(t, h.toDebugger, 1)
			require.Equal(t, int64(8), h.s.Stats().Synthetic)
			for _, cmd := range []jdwp.Command{jdwp.CmdClassTypeSuperclass, jdwp.CmdMethodLineTable,
				jdwp.CmdReferenceTypeSourceFile, jdwp.CmdMethodIsObsolete, jdwp.CmdReferenceTypeSourceDebugExtension,
				jdwp.CmdReferenceTypeInterfaces, jdwp.CmdMethodVariableTableWithGeneric,
				jdwp.CmdReferenceTypeMethodsWithGeneric} {
				total, synthetic := h.vmCommands(cmd)
				require.Equal(t, 1, total, "%s", cmd)
				require.Equal(t, 1, synthetic, "%s", cmd)
			}
			h.drain()
			require.Len(t, h.toDebugger, 1, "synthetic replies never reach the debugger")
			require.Equal(t, int64(8), h.s.Stats().CacheEntries)
		})
	}
}

func TestClassicKeepsTheOriginalOrder(t *testing.T) {
	vm, _ := scachetest.OneFrameWorld(sizes8)
	h := newHarness(t, vm, scache.Classic())
	h.send(&jdwp.ThreadFramesCommand{Thread: 7, StartFrame: 0, Length: -1})
	h.step()
	var got []jdwp.Command
	for _, p := range h.toVM[1:] {
		ph, _ := jdwp.ParseHeader(p)
		got = append(got, ph.Cmd())
	}
	require.Equal(t, []jdwp.Command{jdwp.CmdClassTypeSuperclass, jdwp.CmdMethodLineTable,
		jdwp.CmdReferenceTypeSourceFile, jdwp.CmdMethodIsObsolete, jdwp.CmdReferenceTypeSourceDebugExtension,
		jdwp.CmdReferenceTypeInterfaces, jdwp.CmdMethodVariableTableWithGeneric,
		jdwp.CmdReferenceTypeMethodsWithGeneric}, got)
}

func TestCacheHitIsRetaggedAndNotForwarded(t *testing.T) {
	vm, c := scachetest.OneFrameWorld(sizes8)
	h := newHarness(t, vm)
	h.send(&jdwp.ThreadFramesCommand{Thread: 7, StartFrame: 0, Length: -1})
	h.drain()
	sent := len(h.toVM)
	cmd := &jdwp.MethodLineTableCommand{RefType: c.ID, Method: c.Methods[0]}
	id := h.send(cmd)
	require.Len(t, h.toVM, sent, "a hit is not forwarded")
	want := vm.Clone().Handle(jdwp.AppendCommandPacket(nil, id, cmd, sizes8))
	require.Equal(t, want, h.replyTo(id))
	st := h.s.Stats()
	require.Equal(t, int64(1), st.Hits)
	require.Equal(t, int64(0), st.Misses)
}

func TestHitJournalHasCommandAndReply(t *testing.T) {
	vm, c := scachetest.OneFrameWorld(sizes8)
	h := newHarness(t, vm)
	h.send(&jdwp.ThreadFramesCommand{Thread: 7, StartFrame: 0, Length: -1})
	h.drain()
	p := jdwp.AppendCommandPacket(nil, 50, &jdwp.RefTypeSourceFileCommand{RefType: c.ID}, sizes8)
	r := h.sendRaw(p)
	require.Empty(t, r.Edict.Upstream)
	require.Len(t, r.Edict.Downstream, 1)
	require.Equal(t, [][]byte{p}, r.Journal.Upstream)
	require.Equal(t, r.Edict.Downstream, r.Journal.Downstream)
	require.Equal(t, uint32(50), jdwp.PacketID(r.Journal.Downstream[0]))
}

func TestErrorRepliesAreCached(t *testing.T) {
	vm := scachetest.NewModelVM(sizes8)
	c := vm.AddClass("LGen;", 1, false, true) // no source file: ABSENT_INFORMATION
	vm.SetThread(7, []scachetest.ModelFrame{{Class: c.ID, Method: c.Methods[0]}})
	h := newHarness(t, vm)
	h.send(&jdwp.ThreadFramesCommand{Thread: 7, StartFrame: 0, Length: -1})
	h.drain()
	id := h.send(&jdwp.RefTypeSourceFileCommand{RefType: c.ID})
	ph, err := jdwp.ParseHeader(h.replyTo(id))
	require.NoError(t, err)
	require.Equal(t, jdwp.ErrAbsentInformation, ph.ErrorCode)
	require.Equal(t, int64(1), h.s.Stats().Hits)
}

func TestObsoleteFrameSkipsMethodCommands(t *testing.T) {
	vm := scachetest.NewModelVM(sizes8)
	c := vm.AddClass("LMain;", 1, false, false)
	vm.SetThread(7, []scachetest.ModelFrame{{Class: c.ID, Method: 0}})
	h := newHarness(t, vm, scache.Classic())
	h.send(&jdwp.ThreadFramesCommand{Thread: 7, StartFrame: 0, Length: -1})
	h.step()
	require.Equal(t, int64(5), h.s.Stats().Synthetic, "only the 5 class commands")
	for _, cmd := range []jdwp.Command{jdwp.CmdMethodLineTable, jdwp.CmdMethodIsObsolete, jdwp.CmdMethodVariableTableWithGeneric} {
		total, _ := h.vmCommands(cmd)
		require.Zero(t, total, "%s", cmd)
	}
}

func TestSpeculationSkipsKeysCachedOrInFlight(t *testing.T) {
	vm, _ := scachetest.World(sizes8)
	h := newHarness(t, vm, scache.WithMaxInFlight(0))
	h.send(&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1})
	h.step()
	first := h.s.Stats().Synthetic
	// Helper (8), Shape: an interface (7, no Superclass), Main: 5 class + 3 for each of 2 methods.
	require.Equal(t, int64(8+7+5+3+3), first)
	// The same Frames again while everything is in flight, then once all is cached.
	h.send(&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1})
	h.drain()
	h.send(&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1})
	h.drain()
	require.Equal(t, first, h.s.Stats().Synthetic)
}

func TestMaxFrames(t *testing.T) {
	vm, _ := scachetest.World(sizes8)
	h := newHarness(t, vm, scache.WithMaxFrames(1), scache.WithMaxInFlight(0))
	h.send(&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1})
	h.step()
	require.Equal(t, int64(8), h.s.Stats().Synthetic)
}

func TestMaxInFlightBoundsSyntheticCommands(t *testing.T) {
	vm, _ := scachetest.World(sizes8)
	h := newHarness(t, vm, scache.WithMaxInFlight(3))
	h.send(&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1})
	h.step()
	require.Equal(t, int64(3), h.s.Stats().Synthetic)
	for h.step() {
		require.LessOrEqual(t, h.s.Stats().InFlight, int64(3))
		require.LessOrEqual(t, len(h.vmQueue), 3)
	}
	require.Equal(t, int64(26), h.s.Stats().Synthetic, "the queue drains as replies come back")
	// The top frame's class is asked first.
	ph, _ := jdwp.ParseHeader(h.toVM[1])
	require.Equal(t, jdwp.CmdReferenceTypeMethodsWithGeneric, ph.Cmd())
}

func TestIDSizesSwitchEncodesSyntheticCommandsWithNewSizes(t *testing.T) {
	sizes := jdwp.IDSizes{FieldID: 4, MethodID: 4, ObjectID: 4, ReferenceTypeID: 4, FrameID: 4}
	vm, c := scachetest.OneFrameWorld(sizes)
	h := newHarness(t, vm, scache.Classic())
	h.send(&jdwp.VMIDSizesCommand{})
	h.step()
	h.send(&jdwp.ThreadFramesCommand{Thread: 7, StartFrame: 0, Length: -1})
	h.step()
	require.True(t, h.s.Enabled())
	require.Equal(t, int64(8), h.s.Stats().Synthetic)
	for _, p := range h.toVM[2:] {
		ph, _ := jdwp.ParseHeader(p)
		want := 4
		if ph.CommandSet == jdwp.SetMethod {
			want = 8
		}
		require.Len(t, jdwp.Data(p), want, "%s", ph.Cmd())
	}
	h.drain()
	id := h.send(&jdwp.MethodLineTableCommand{RefType: c.ID, Method: c.Methods[0]})
	require.NotEmpty(t, h.replyTo(id))
	require.Equal(t, int64(1), h.s.Stats().Hits)
}

func TestIDSizesUnderflowDisables(t *testing.T) {
	s := newSpeculator(t)
	s.OnUpstream(jdwp.AppendCommand(nil, 1, jdwp.CmdVirtualMachineIDSizes, nil))
	short := jdwp.AppendReply(nil, 1, jdwp.ErrNone, []byte{0, 0, 0, 8, 0, 0, 0, 8})
	r := s.OnDownstream(short)
	require.Equal(t, [][]byte{short}, r.Edict.Downstream, "the reply still reaches the debugger")
	require.False(t, s.Enabled())
	require.Error(t, s.DisabledReason())
}

func TestIDSizesOutOfRangeDisables(t *testing.T) {
	s := newSpeculator(t)
	s.OnUpstream(jdwp.AppendCommand(nil, 1, jdwp.CmdVirtualMachineIDSizes, nil))
	bad := jdwp.AppendReplyPacket(nil, 1, &jdwp.VMIDSizesReply{Sizes: jdwp.IDSizes{FieldID: 8, MethodID: 8, ObjectID: 16, ReferenceTypeID: 8, FrameID: 8}}, sizes8)
	s.OnDownstream(bad)
	require.False(t, s.Enabled())
}

// hitsAfterLearning primes the cache for class c, teaches the Speculator its
// signature with learn, unloads sig, and reports whether a later command about c hits.
func hitAfterUnload(t *testing.T, learn func(h *harness, vm *scachetest.ModelVM), unloadSig string) bool {
	vm, c := scachetest.OneFrameWorld(sizes8)
	h := newHarness(t, vm, scache.Classic())
	learn(h, vm)
	h.send(&jdwp.ThreadFramesCommand{Thread: 7, StartFrame: 0, Length: -1})
	h.drain()
	id := h.send(&jdwp.RefTypeSourceFileCommand{RefType: c.ID})
	h.replyTo(id)
	require.Equal(t, int64(1), h.s.Stats().Hits, "a hit before the unload")
	ev := vm.Clone().Unload(unloadSig)
	h.event(ev)
	hits := h.s.Stats().Hits
	h.send(&jdwp.RefTypeSourceFileCommand{RefType: c.ID})
	h.drain()
	return h.s.Stats().Hits > hits
}

func TestClassUnloadEviction(t *testing.T) {
	learners := map[string]func(h *harness, vm *scachetest.ModelVM){
		"AllClasses": func(h *harness, vm *scachetest.ModelVM) { h.send(&jdwp.VMAllClassesCommand{}); h.drain() },
		"AllClassesWithGeneric": func(h *harness, vm *scachetest.ModelVM) {
			h.send(&jdwp.VMAllClassesWithGenericCommand{})
			h.drain()
		},
		"ClassPrepare": func(h *harness, vm *scachetest.ModelVM) {
			// The class of the frame is prepared again under a new id, so use its own event.
			c, _ := vm.Class(0x100)
			h.event(jdwp.AppendCommandPacket(nil, 99, &jdwp.Composite{Events: []jdwp.Event{&jdwp.ClassPrepareEvent{
				RequestID: 1, Thread: 1, TypeTag: jdwp.TypeTagClass, TypeID: c.ID, Signature: c.Signature, Status: 3}}}, sizes8))
		},
	}
	for name, learn := range learners {
		t.Run(name, func(t *testing.T) {
			require.False(t, hitAfterUnload(t, learn, "LMain;"), "unloading a known class evicts it")
			require.True(t, hitAfterUnload(t, learn, "LOther;"), "unloading another class keeps it")
		})
	}
}

func TestClassUnloadOfUnknownSignatureEvictsClassesOfUnknownSignature(t *testing.T) {
	// Nothing told the Speculator the signature of the frame's class, so an
	// unload of any signature might be it.
	require.False(t, hitAfterUnload(t, func(*harness, *scachetest.ModelVM) {}, "LOther;"))
}

func TestMalformedPacketDisablesAndPassesThrough(t *testing.T) {
	vm, c := scachetest.OneFrameWorld(sizes8)
	h := newHarness(t, vm)
	garbage := []byte{0, 0, 0, 5, 1, 2, 3}
	r := h.sendRaw(garbage)
	require.Equal(t, [][]byte{garbage}, r.Edict.Upstream)
	require.False(t, h.s.Enabled())
	h.vmQueue = nil
	h.send(&jdwp.ThreadFramesCommand{Thread: 7, StartFrame: 0, Length: -1})
	h.drain()
	id := h.send(&jdwp.RefTypeSourceFileCommand{RefType: c.ID})
	h.drain()
	h.replyTo(id)
	st := h.s.Stats()
	require.Zero(t, st.Synthetic, "nothing is speculated once disabled")
	require.Zero(t, st.Hits)
}

func TestMalformedKeyableCommandDisables(t *testing.T) {
	s := newSpeculator(t)
	p := jdwp.AppendCommand(nil, 1, jdwp.CmdReferenceTypeSourceFile, []byte{1, 2, 3})
	r := s.OnUpstream(p)
	require.Equal(t, [][]byte{p}, r.Edict.Upstream)
	require.False(t, s.Enabled())
}

func TestMalformedEventDisables(t *testing.T) {
	s := newSpeculator(t)
	p := jdwp.AppendCommand(nil, 1, jdwp.CmdEventComposite, []byte{2, 0, 0, 0, 1, 8})
	r := s.OnDownstream(p)
	require.Equal(t, [][]byte{p}, r.Edict.Downstream)
	require.False(t, s.Enabled())
}

func TestDDMPassesThroughUntouched(t *testing.T) {
	s := newSpeculator(t)
	cmd := jdwp.AppendCommand(nil, 0x40000001, jdwp.Command{Set: 0xC7, Cmd: 1}, []byte("HELO\x00\x00\x00\x04\x00\x00\x00\x01"))
	r := s.OnUpstream(cmd)
	require.Equal(t, [][]byte{cmd}, r.Edict.Upstream)
	reply := jdwp.AppendReply(nil, 0x40000001, jdwp.ErrNone, []byte("HELO\x00\x00\x00\x00"))
	r = s.OnDownstream(reply)
	require.Equal(t, [][]byte{reply}, r.Edict.Downstream)
	vmDDM := jdwp.AppendCommand(nil, 0x80000001, jdwp.Command{Set: 0xC7, Cmd: 1}, []byte("THCR\x00\x00\x00\x00"))
	r = s.OnDownstream(vmDDM)
	require.Equal(t, [][]byte{vmDDM}, r.Edict.Downstream)
	require.True(t, s.Enabled())
}
