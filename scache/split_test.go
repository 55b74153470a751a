package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
)

// splitHarness connects a scripted debugger, a far half, a tunnel the test
// moves by hand, a near half and a model VM that answers one command at a
// time.
type splitHarness struct {
	t             *testing.T
	near          *scache.Near
	far           *scache.Far
	vm            *scachetest.ModelVM
	toNear, toFar [][]byte // tunnel frames in flight
	vmQueue       [][]byte
	toVM          [][]byte // every packet the VM read, in order
	toDebugger    [][]byte
	nextID        uint32
}

func newSplitHarness(t *testing.T, opts ...scache.Option) *splitHarness {
	vm, _ := scachetest.World(sizes8)
	near, err := scache.NewNear(opts...)
	require.NoError(t, err)
	far, err := scache.NewFar(opts...)
	require.NoError(t, err)
	return &splitHarness{t: t, near: near, far: far, vm: vm, nextID: 1}
}

func (h *splitHarness) send(cmd jdwp.CommandMessage) uint32 {
	id := h.nextID
	h.nextID++
	h.sendRaw(jdwp.AppendCommandPacket(nil, id, cmd, sizes8))
	return id
}

func (h *splitHarness) sendRaw(p []byte) {
	out := h.far.FromDebugger(p)
	h.toNear = append(h.toNear, out.Upstream...)
	h.toDebugger = append(h.toDebugger, out.Downstream...)
}

// fromVM presents a packet of the VM to the near half.
func (h *splitHarness) fromVM(p []byte) {
	out := h.near.FromVM(p)
	h.vmQueue = append(h.vmQueue, out.Upstream...)
	h.toFar = append(h.toFar, out.Downstream...)
}

// nearSide lets the VM and the near half exchange everything, and the near
// half read what the far half sent: nothing crosses to the far half.
func (h *splitHarness) nearSide() {
	for len(h.vmQueue) > 0 || len(h.toNear) > 0 {
		for len(h.toNear) > 0 {
			f := h.toNear[0]
			h.toNear = h.toNear[1:]
			out, err := h.near.FromFar(f)
			require.NoError(h.t, err)
			h.vmQueue = append(h.vmQueue, out.Upstream...)
			h.toFar = append(h.toFar, out.Downstream...)
		}
		for len(h.vmQueue) > 0 {
			cmd := h.vmQueue[0]
			h.vmQueue = h.vmQueue[1:]
			h.toVM = append(h.toVM, cmd)
			if reply := h.vm.Handle(cmd); reply != nil {
				h.fromVM(reply)
			}
		}
	}
}

// farSide lets the far half read what the near half sent.
func (h *splitHarness) farSide() {
	for len(h.toFar) > 0 {
		f := h.toFar[0]
		h.toFar = h.toFar[1:]
		out, err := h.far.FromNear(f)
		require.NoError(h.t, err)
		h.toNear = append(h.toNear, out.Upstream...)
		h.toDebugger = append(h.toDebugger, out.Downstream...)
	}
}

func (h *splitHarness) drain() {
	for len(h.toFar) > 0 || len(h.toNear) > 0 || len(h.vmQueue) > 0 {
		h.nearSide()
		h.farSide()
	}
}

func (h *splitHarness) replyTo(id uint32) []byte {
	var found [][]byte
	for _, p := range h.toDebugger {
		ph, err := jdwp.ParseHeader(p)
		require.NoError(h.t, err)
		if ph.IsReply() && ph.ID == id {
			found = append(found, p)
		}
	}
	require.Len(h.t, found, 1, "replies to id %d", id)
	return found[0]
}

// stopped returns a split harness whose thread 1 stopped (suspend all), the
// near half having speculated the stop, the far half not yet having read it.
func splitStopped(t *testing.T) (*splitHarness, scachetest.ModelFrame) {
	h := newSplitHarness(t)
	h.send(&jdwp.VMIDSizesCommand{})
	h.send(&jdwp.VMResumeCommand{})
	h.drain()
	ev, ok := h.vm.Stop(1, jdwp.SuspendPolicyAll)
	require.True(t, ok)
	h.fromVM(ev)
	h.nearSide()
	return h, h.vm.Thread(1).Frames[0]
}

// askSplit sends a command, lets everything settle, and returns the reply
// and the model's answer at the moment it was sent.
func askSplit(h *splitHarness, cmd jdwp.CommandMessage) (got, want []byte) {
	id := h.nextID
	want = h.vm.Clone().Handle(jdwp.AppendCommandPacket(nil, id, cmd, sizes8))
	h.send(cmd)
	h.drain()
	return h.replyTo(id), want
}

func TestFarHalfAnswersTheStopWithoutTheTunnel(t *testing.T) {
	h, top := splitStopped(t)
	h.farSide() // the event, and the answers right behind it
	th := h.vm.Thread(1)
	values := &jdwp.FrameGetValuesCommand{Thread: 1, Frame: h.vm.FrameID(th, th.Generation, 0),
		Slots: scache.VisibleSlots(scachetest.ModelVariableTable(top.Method), top.Index)}
	for _, cmd := range []jdwp.CommandMessage{
		&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1},
		&jdwp.ThreadFrameCountCommand{Thread: 1},
		&jdwp.ThreadNameCommand{Thread: 1},
		values,
	} {
		id := h.nextID
		want := h.vm.Clone().Handle(jdwp.AppendCommandPacket(nil, id, cmd, sizes8))
		h.send(cmd)
		for _, f := range h.toNear {
			require.Equal(t, byte('U'), f[0], "%s crossed the tunnel: only what was used goes to the near half", cmd.Command())
		}
		require.Equal(t, want, h.replyTo(id), "%s", cmd.Command())
	}
	h.drain()
	near := h.near.Stats()
	require.Equal(t, int64(4), h.far.Stats().Hits)
	require.Positive(t, near.PushedUsed, "the near half heard what was used")
	require.Positive(t, near.PushedBytes)
}

// TestSetValuesCrossingPushedValuesIsNotStale: the debugger changes a local
// while the near half's values of the stop are still in the tunnel. The far
// half must not keep them: the near half read them before the change.
func TestSetValuesCrossingPushedValuesIsNotStale(t *testing.T) {
	h, top := splitStopped(t)
	th := h.vm.Thread(1)
	values := &jdwp.FrameGetValuesCommand{Thread: 1, Frame: h.vm.FrameID(th, th.Generation, 0),
		Slots: scache.VisibleSlots(scachetest.ModelVariableTable(top.Method), top.Index)}
	require.NotEmpty(t, values.Slots)
	// The event reaches the far half, and the debugger sets a local at once,
	// before the values pushed behind the event arrive; they arrive, then it
	// reads the local back, all before its SetValues reaches the near half.
	h.far.FromNear(h.toFar[0])
	h.toFar = h.toFar[1:]
	h.sendRaw(jdwp.AppendCommand(nil, 900, jdwp.CmdStackFrameSetValues,
		jdwp.Marshal(&setValues{values.Thread, values.Frame, values.Slots[0].Slot, 77}, sizes8)))
	h.farSide()
	id := h.send(values)
	h.drain()
	want := h.vm.Clone().Handle(jdwp.AppendCommandPacket(nil, id, values, sizes8))
	require.Equal(t, want, h.replyTo(id), "the value set, not the one pushed before")
}

func TestRedefineCrossingPushedMetadataIsNotStale(t *testing.T) {
	h, top := splitStopped(t)
	h.far.FromNear(h.toFar[0]) // the event
	h.toFar = h.toFar[1:]
	h.send(&jdwp.VMRedefineClassesCommand{Classes: []jdwp.ClassDef{{RefType: top.Class, ClassFile: []byte{1}}}})
	h.drain()
	for _, cmd := range []jdwp.CommandMessage{
		&jdwp.RefTypeMethodsWithGenericCommand{RefType: top.Class},
		&jdwp.MethodLineTableCommand{RefType: top.Class, Method: top.Method},
	} {
		got, want := askSplit(h, cmd)
		require.Equal(t, want, got, "%s after the redefinition", cmd.Command())
	}
}

// TestEventRequestCrossingPushedAnswersKeepsThem: at a step's event a
// debugger clears the step request at once, while the near half's answers
// of the stop are still in the tunnel. Event requests change no reply: the
// far half keeps the answers and serves the stop without the tunnel.
func TestEventRequestCrossingPushedAnswersKeepsThem(t *testing.T) {
	h, top := splitStopped(t)
	th := h.vm.Thread(1)
	values := &jdwp.FrameGetValuesCommand{Thread: 1, Frame: h.vm.FrameID(th, th.Generation, 0),
		Slots: scache.VisibleSlots(scachetest.ModelVariableTable(top.Method), top.Index)}
	h.far.FromNear(h.toFar[0]) // the event
	h.toFar = h.toFar[1:]
	require.NotEmpty(t, h.toFar, "answers pushed behind the event")
	h.send(&jdwp.EventRequestClearCommand{EventKind: jdwp.EventSingleStep, RequestID: 7})
	h.farSide() // the answers arrive; the near half has not read the Clear
	for _, cmd := range []jdwp.CommandMessage{&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1}, values} {
		id, before := h.nextID, len(h.toNear)
		want := h.vm.Clone().Handle(jdwp.AppendCommandPacket(nil, id, cmd, sizes8))
		h.send(cmd)
		for _, f := range h.toNear[before:] {
			require.Equal(t, byte('U'), f[0], "%s crossed the tunnel", cmd.Command())
		}
		require.Equal(t, want, h.replyTo(id), "%s", cmd.Command())
	}
	require.Equal(t, int64(2), h.far.Stats().Hits)
}

// TestHalvesTakeAJournal: a Near or Far made with WithJournal journals its
// side of the conversation from the calls themselves (a transport's options
// are refused with the half named: package transport's tests).
func TestHalvesTakeAJournal(t *testing.T) {
	var entries []scache.JournalEntry
	far, err := scache.NewFar(scache.WithJournal(func(e scache.JournalEntry) { entries = append(entries, e) }))
	require.NoError(t, err)
	far.FromDebugger(jdwp.AppendCommandPacket(nil, 5, &jdwp.VMIDSizesCommand{}, sizes8))
	require.Len(t, entries, 1)
	require.Equal(t, scache.Upstream, entries[0].Direction)
	require.Equal(t, uint32(5), jdwp.PacketID(entries[0].Packet))
}

// TestTheNearHalfServesNoMovingReplyTheFarHalfRefused: rule (a) at a far
// half. The debugger asks a running thread's name, which the far half
// serves from the near half's speculation, then its status, speculated
// before the name: the far half refuses it (it would go back in time) and
// sends the command on. The near half, which does not see what the far
// half delivered, holds the same reply: it must not serve it either, and
// the VM answers.
func TestTheNearHalfServesNoMovingReplyTheFarHalfRefused(t *testing.T) {
	h := newSplitHarness(t)
	h.send(&jdwp.VMIDSizesCommand{})
	h.send(&jdwp.VMResumeCommand{})
	h.drain()
	view := []jdwp.CommandMessage{&jdwp.VMAllThreadsCommand{},
		&jdwp.ThreadStatusCommand{Thread: 2}, &jdwp.ThreadNameCommand{Thread: 2}}
	for stop := 0; stop < 2; stop++ {
		ev, ok := h.vm.Stop(1, jdwp.SuspendPolicyEventThread)
		require.True(t, ok)
		h.fromVM(ev)
		h.drain()
		if stop == 0 { // the debugger shows its view: it is wanted at the next stop
			for _, m := range view {
				askSplit(h, m)
			}
			askSplit(h, &jdwp.ThreadResumeCommand{Thread: 1})
		}
	}
	askSplit(h, &jdwp.VMAllThreadsCommand{})
	before, nearHits := len(h.toVM), h.near.Stats().Hits
	for range 3 {
		for _, m := range []jdwp.CommandMessage{&jdwp.ThreadNameCommand{Thread: 2}, &jdwp.ThreadStatusCommand{Thread: 2}} {
			got, want := askSplit(h, m)
			require.Equal(t, want, got, "%s", m.Command())
		}
	}
	organic := 0
	for _, p := range h.toVM[before:] {
		if !scache.IsSyntheticID(jdwp.PacketID(p)) {
			organic++
		}
	}
	require.Positive(t, organic, "the far half refused some: they went to the VM")
	require.Equal(t, nearHits, h.near.Stats().Hits, "the near half served none of them")
}
