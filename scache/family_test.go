package scache_test

import (
	"slices"
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
)

// A family added through the table alone fires at a stop, is answered from
// the cache, and is gone when its lifetime (the suspension epoch) ends.
func TestAToyFamilyThroughTheTableAlone(t *testing.T) {
	const toy scache.Family = 1 << 15
	scache.AddStopFamily(t, toy, func(t jdwp.ThreadID) jdwp.CommandMessage { return &jdwp.ThreadStatusCommand{Thread: t} },
		jdwp.CmdThreadReferenceStatus)
	vm, _ := scachetest.OneFrameWorld(sizes8)
	h := newHarness(t, vm, scache.WithFamilies(toy))
	ask(h, &jdwp.VMIDSizesCommand{})
	ask(h, &jdwp.VMResumeCommand{})
	ev, ok := vm.Stop(7, jdwp.SuspendPolicyAll)
	require.True(t, ok)
	h.event(ev)
	h.drain()
	total, synthetic := h.vmCommands(jdwp.CmdThreadReferenceStatus)
	require.Equal(t, 1, synthetic, "the toy family fired")
	require.Equal(t, 1, total)
	require.Len(t, h.syntheticSent(), 1, "and only it")

	sent := len(h.toVM)
	got, want := ask(h, &jdwp.ThreadStatusCommand{Thread: 7})
	require.Equal(t, want, got)
	require.Equal(t, sent, len(h.toVM), "answered from the cache")
	require.Equal(t, int64(1), h.s.Stats().Hits)

	ask(h, &jdwp.VMResumeCommand{})
	sent = len(h.toVM)
	ask(h, &jdwp.ThreadStatusCommand{Thread: 7})
	require.Equal(t, sent+1, len(h.toVM), "the epoch ended: asked of the VM")
	require.Equal(t, int64(1), h.s.Stats().Hits)
}

// Every command a family sends is keyable (its reply is cached for its own
// lifetime), and every trigger command has a typed reply to decode.
func TestFamiliesSendKeyableCommands(t *testing.T) {
	for _, f := range scache.Families() {
		for _, cmd := range f.Sends {
			require.True(t, scache.Keyable(cmd), "%s is not keyable", cmd)
		}
		for _, cmd := range f.Triggers {
			require.NotNil(t, jdwp.NewReplyMessage(cmd), "%s", cmd)
		}
	}
}

// TestEachFamilyAloneSendsOnlyItsOwn runs each family of the table alone
// (WithFamilies) over a scripted session that starts every family (a
// ClassPrepare stop, then breakpoints and steps at which the debugger asks
// what IDEs ask: frames, this and its fields, locals, the threads view)
// and fails when the family sends a command its entry does not list, or
// sends nothing at all.
func TestEachFamilyAloneSendsOnlyItsOwn(t *testing.T) {
	for _, f := range scache.Families() {
		t.Run(f.Flag.String(), func(t *testing.T) {
			vm, classes := scachetest.World(sizes8)
			h := newHarness(t, vm, scache.WithFamilies(f.Flag))
			stopSession(t, h, classes[0])
			sent := h.syntheticSent()
			require.NotEmpty(t, sent, "the script starts the family")
			for _, cmd := range sent {
				require.True(t, slices.Contains(f.Sends, cmd), "%v sent %s, which its entry does not list", f.Flag, cmd)
			}
		})
	}
}

// stopSession scripts a session whose stops start every family: a class
// prepared with suspend policy ALL, then breakpoints and a step in an
// instance method of class, called on a new object each time, at each of
// which the debugger inspects the stop as an IDE does.
func stopSession(t *testing.T, h *harness, class *scachetest.ModelClass) {
	ask(h, &jdwp.VMIDSizesCommand{})
	ask(h, &jdwp.VMResumeCommand{})
	h.event(jdwp.AppendCommandPacket(nil, 900, &jdwp.Composite{SuspendPolicy: jdwp.SuspendPolicyAll, Events: []jdwp.Event{
		&jdwp.ClassPrepareEvent{RequestID: 1, Thread: 1, TypeTag: jdwp.TypeTagClass, TypeID: class.ID,
			Signature: class.Signature, Status: jdwp.ClassStatusPrepared | jdwp.ClassStatusVerified}}}, sizes8))
	h.drain()
	ask(h, &jdwp.VMResumeCommand{})
	var method jdwp.MethodID
	for _, m := range class.Methods {
		if scachetest.ModelModBits(m)&jdwp.ModStatic == 0 {
			method = m
		}
	}
	require.NotZero(t, method, "an instance method")
	h.vm.Thread(1).Frames[0] = scachetest.ModelFrame{Class: class.ID, Method: method, Index: 3}
	for stop := 0; stop < 4; stop++ {
		h.vm.Thread(1).Frames[0].This = h.vm.NewObject(class.ID)
		ev, ok := h.vm.Stop(1, jdwp.SuspendPolicyAll)
		require.True(t, ok)
		if stop == 3 {
			ev = asStep(t, ev)
		}
		h.event(ev)
		h.drain()
		inspectStop(t, h)
		ask(h, &jdwp.VMResumeCommand{})
	}
}

// inspectStop asks what an IDE asks at a stop of thread 1: its frames and
// name, the top frame's this, its type, fields and their values, the
// visible locals, a renderer's toString of this (then the top frame, this
// and locals again, and the string), and the threads view; every reply
// equals the model's.
func inspectStop(t *testing.T, h *harness) {
	check := func(m jdwp.CommandMessage, reply jdwp.Message) {
		got, want := ask(h, m)
		require.Equal(t, want, got, "%s", m.Command())
		if reply != nil {
			require.NoError(t, jdwp.Unmarshal(jdwp.Data(got), sizes8, reply))
		}
	}
	th := h.vm.Thread(1)
	top := th.Frames[0]
	frame := h.vm.FrameID(th, th.Generation, 0)
	check(&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1}, nil)
	check(&jdwp.ThreadNameCommand{Thread: 1}, nil)
	check(&jdwp.RefTypeMethodsWithGenericCommand{RefType: top.Class}, nil)
	check(&jdwp.MethodVariableTableWithGenericCommand{RefType: top.Class, Method: top.Method}, nil)
	var this jdwp.TaggedObjectReply
	check(&jdwp.FrameThisObjectCommand{Thread: 1, Frame: frame}, &this)
	check(topValues(h, top), nil)
	var typ jdwp.ObjectRefReferenceTypeReply
	check(&jdwp.ObjectRefReferenceTypeCommand{Object: this.Object.ID}, &typ)
	fields := jdwp.RefTypeFieldsReply{Generic: true}
	check(&jdwp.RefTypeFieldsWithGenericCommand{RefType: typ.TypeID}, &fields)
	get := &jdwp.ObjectRefGetValuesCommand{Object: this.Object.ID}
	for _, f := range fields.Fields {
		get.Fields = append(get.Fields, f.Field)
	}
	check(get, nil)
	// A renderer's toString of this, in the stopped thread; then the top
	// frame again, and the string's value.
	var rendered jdwp.InvokeMethodReply
	check(&jdwp.ObjectRefInvokeMethodCommand{Object: this.Object.ID, Class: typ.TypeID,
		MethodCall: jdwp.MethodCall{Thread: 1, Method: top.Method}}, &rendered)
	check(&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: 1}, nil)
	check(&jdwp.StringRefValueCommand{Object: rendered.Return.ObjectID()}, nil)
	frame = h.vm.FrameID(th, th.Generation, 0)
	check(&jdwp.FrameThisObjectCommand{Thread: 1, Frame: frame}, nil)
	check(topValues(h, top), nil)
	var threads jdwp.ObjectIDsReply
	check(&jdwp.VMAllThreadsCommand{}, &threads)
	for _, other := range threads.IDs {
		check(&jdwp.ThreadStatusCommand{Thread: other}, nil)
		check(&jdwp.ThreadFrameCountCommand{Thread: other}, nil)
		check(&jdwp.ThreadNameCommand{Thread: other}, nil)
	}
}
