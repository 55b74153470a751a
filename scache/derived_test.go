package scache

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

// askHotSpot starts the debuggee (suspended) and returns a connection to its
// VM and a function that sends a command and returns the whole reply packet.
func askHotSpot(t *testing.T) (*jdwp.Conn, func(jdwp.CommandMessage) []byte) {
	vm := jvmtest.Start(t, "Debuggee", "1")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	c, err := jdwp.Dial(ctx, vm.Addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	jvmtest.AwaitVMStart(ctx, t, c)
	return c, func(m jdwp.CommandMessage) []byte {
		reply, err := c.Send(ctx, m.Command(), jdwp.Marshal(m, jdwp.DefaultIDSizes))
		require.NoError(t, err)
		return reply
	}
}

// suspendedHotSpot is askHotSpot with every thread suspended, and the
// thread list.
func suspendedHotSpot(t *testing.T) (func(jdwp.CommandMessage) []byte, jdwp.ObjectIDsReply) {
	_, ask := askHotSpot(t)
	ask(&jdwp.VMSuspendCommand{})
	var threads jdwp.ObjectIDsReply
	require.NoError(t, jdwp.Unmarshal(jdwp.Data(ask(&jdwp.VMAllThreadsCommand{})), jdwp.DefaultIDSizes, &threads))
	require.NotEmpty(t, threads.IDs)
	return ask, threads
}

// The answers derived from a whole stack are byte for byte what a real
// HotSpot VM answers: every thread's depth, and parts of its stack.
func TestDerivedAnswersEqualHotSpots(t *testing.T) {
	ask, threads := suspendedHotSpot(t)
	sizes := jdwp.DefaultIDSizes
	compared := 0
	for _, th := range threads.IDs {
		whole := ask(&jdwp.ThreadFramesCommand{Thread: th, StartFrame: 0, Length: -1})
		depth := ask(&jdwp.ThreadFrameCountCommand{Thread: th})
		got, ok := frameCount(whole, sizes, jdwp.PacketID(depth))
		require.True(t, ok)
		require.Equal(t, depth, got, "FrameCount of thread %#x", th)
		var all jdwp.ThreadFramesReply
		require.NoError(t, jdwp.Unmarshal(jdwp.Data(whole), sizes, &all))
		for _, part := range [][2]int32{{0, 1}, {1, -1}, {1, 2}} {
			if int(part[0]) >= len(all.Frames) || part[1] > 0 && int(part[0]+part[1]) > len(all.Frames) {
				continue
			}
			want := ask(&jdwp.ThreadFramesCommand{Thread: th, StartFrame: part[0], Length: part[1]})
			got, ok := framesPart(whole, sizes, part[0], part[1], jdwp.PacketID(want))
			require.True(t, ok)
			require.Equal(t, want, got, "Frames(%#x, %d, %d)", th, part[0], part[1])
			compared++
		}
	}
	require.Positive(t, compared)
	// GetValues of no slot of a frame the stack shows: no values.
	main := threads.IDs[0]
	for _, th := range threads.IDs {
		var all jdwp.ThreadFramesReply
		whole := ask(&jdwp.ThreadFramesCommand{Thread: th, StartFrame: 0, Length: -1})
		require.NoError(t, jdwp.Unmarshal(jdwp.Data(whole), sizes, &all))
		if len(all.Frames) == 0 {
			continue
		}
		main = th
		want := ask(&jdwp.FrameGetValuesCommand{Thread: th, Frame: all.Frames[0].Frame})
		got, ok := noValues(whole, sizes, all.Frames[0].Frame, jdwp.PacketID(want))
		require.True(t, ok)
		require.Equal(t, want, got, "GetValues of no slot, thread %#x", th)
		_, ok = noValues(whole, sizes, all.Frames[0].Frame+0x777, 1)
		require.False(t, ok, "a frame the stack does not show")
		break
	}
	require.NotZero(t, main)
	ask(&jdwp.VMDisposeCommand{})
}

// The answers derived from the WithGeneric forms (Methods, Fields, Signature,
// VariableTable, AllClasses) are byte for byte what a real HotSpot VM
// answers to the plain commands: for the debuggee's classes (generic fields
// and locals) and JDK classes (generic methods, no local variable tables).
func TestPlainAnswersFromGenericOnesEqualHotSpots(t *testing.T) {
	c, ask := askHotSpot(t)
	sizes := jdwp.DefaultIDSizes
	// Run until Debuggee is prepared, and stay suspended there.
	ask(&jdwp.EventRequestSetCommand{EventKind: jdwp.EventClassPrepare, SuspendPolicy: jdwp.SuspendPolicyAll,
		Modifiers: []jdwp.Modifier{&jdwp.ClassMatchModifier{Pattern: "Debuggee"}}})
	ask(&jdwp.VMResumeCommand{})
	for prepared := false; !prepared; {
		select {
		case e := <-c.Events():
			var comp jdwp.Composite
			require.NoError(t, jdwp.Unmarshal(jdwp.Data(e), sizes, &comp))
			for _, ev := range comp.Events {
				_, ok := ev.(*jdwp.ClassPrepareEvent)
				prepared = prepared || ok
			}
		case <-time.After(time.Minute): // a guard against a hang
			t.Fatal("Debuggee was not prepared")
		}
	}

	// same checks that the derived answer to plain equals the VM's own.
	compared := map[jdwp.Command]int{}
	var generics [][]byte
	same := func(plain, generic jdwp.CommandMessage) {
		t.Helper()
		g, want := ask(generic), ask(plain)
		generics = append(generics, g)
		got, ok := plainFromGeneric(plain.Command(), g, sizes, jdwp.PacketID(want))
		if h, _ := jdwp.ParseHeader(want); h.ErrorCode != jdwp.ErrNone {
			require.False(t, ok, "%s answered %s: nothing is derived from an error", plain.Command(), h.ErrorCode)
			return
		}
		require.True(t, ok, "%s", plain.Command())
		require.Equal(t, want, got, "%s", plain.Command())
		compared[plain.Command()]++
	}
	same(&jdwp.VMAllClassesCommand{}, &jdwp.VMAllClassesWithGenericCommand{})
	var all jdwp.VMAllClassesWithGenericReply
	require.NoError(t, jdwp.Unmarshal(jdwp.Data(ask(&jdwp.VMAllClassesWithGenericCommand{})), sizes, &all))
	wanted := map[string]bool{"LDebuggee;": true, "LDebuggee$Square;": true, "Ljava/util/ArrayList;": true,
		"Ljava/util/HashMap;": true, "Ljava/lang/String;": true, "Ljava/util/List;": true}
	for _, class := range all.Classes {
		if !wanted[class.Signature] {
			continue
		}
		id := class.TypeID
		same(&jdwp.RefTypeSignatureCommand{RefType: id}, &jdwp.RefTypeSignatureWithGenericCommand{RefType: id})
		same(&jdwp.RefTypeFieldsCommand{RefType: id}, &jdwp.RefTypeFieldsWithGenericCommand{RefType: id})
		same(&jdwp.RefTypeMethodsCommand{RefType: id}, &jdwp.RefTypeMethodsWithGenericCommand{RefType: id})
		methods := jdwp.RefTypeMethodsReply{Generic: true}
		require.NoError(t, jdwp.Unmarshal(jdwp.Data(ask(&jdwp.RefTypeMethodsWithGenericCommand{RefType: id})), sizes, &methods))
		for _, m := range methods.Methods {
			same(&jdwp.MethodVariableTableCommand{RefType: id, Method: m.Method},
				&jdwp.MethodVariableTableWithGenericCommand{RefType: id, Method: m.Method})
		}
	}
	for _, cmd := range []jdwp.Command{jdwp.CmdVirtualMachineAllClasses, jdwp.CmdReferenceTypeSignature,
		jdwp.CmdReferenceTypeFields, jdwp.CmdReferenceTypeMethods, jdwp.CmdMethodVariableTable} {
		require.Positive(t, compared[cmd], "no successful %s compared", cmd)
	}
	// Generic signatures were there to strip: a field's, a local's, a method's.
	for _, sig := range []string{"Ljava/util/List<LDebuggee$Shape;>;", "Ljava/util/List<Ljava/lang/Thread;>;", "(I)TE;"} {
		found := false
		for _, g := range generics {
			found = found || bytes.Contains(g, []byte(sig))
		}
		require.True(t, found, "no generic reply has %s", sig)
	}
	ask(&jdwp.VMDisposeCommand{})
}

// ThisObject of a frame of a static or native method is answered, byte
// for byte as HotSpot answers it, with the null object; of any other
// frame HotSpot names an object, which is never derived.
func TestNullThisOfStaticFramesEqualsHotSpots(t *testing.T) {
	ask, threads := suspendedHotSpot(t)
	sizes := jdwp.DefaultIDSizes
	static, other := 0, 0
	for _, th := range threads.IDs {
		var all jdwp.ThreadFramesReply
		require.NoError(t, jdwp.Unmarshal(jdwp.Data(ask(&jdwp.ThreadFramesCommand{Thread: th, StartFrame: 0, Length: -1})), sizes, &all))
		for _, f := range all.Frames {
			methods := jdwp.RefTypeMethodsReply{Generic: true}
			require.NoError(t, jdwp.Unmarshal(jdwp.Data(ask(&jdwp.RefTypeMethodsWithGenericCommand{RefType: f.Location.Class})), sizes, &methods))
			var mods int32
			for _, m := range methods.Methods {
				if m.Method == f.Location.Method {
					mods = m.ModBits
				}
			}
			want := ask(&jdwp.FrameThisObjectCommand{Thread: th, Frame: f.Frame})
			if mods&(jdwp.ModStatic|jdwp.ModNative) != 0 {
				require.Equal(t, want, appendNullThis(nil, jdwp.PacketID(want), sizes), "ThisObject of a static or native frame, thread %#x", th)
				static++
				continue
			}
			var this jdwp.TaggedObjectReply
			require.NoError(t, jdwp.Unmarshal(jdwp.Data(want), sizes, &this))
			require.NotZero(t, this.Object.ID, "an instance method's frame has a this")
			other++
		}
	}
	require.Positive(t, static, "static and native frames were compared (main, the VM's own threads)")
	require.Positive(t, other, "instance frames were checked")
	ask(&jdwp.VMDisposeCommand{})
}
