package scache

import (
	"slices"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

// The parts of reads of values are byte for byte what a real HotSpot VM
// answers: of the Debuggee's frame in marker, every local alone and all of
// them in reverse order; of its this, each field alone and all in reverse;
// of its statics, each alone; of an int[] and of an ArrayList's Object[],
// ranges inside them, one of no element included.
func TestPartsOfValuesEqualHotSpots(t *testing.T) {
	c, ask := askHotSpot(t)
	sizes := jdwp.DefaultIDSizes
	decode := func(m jdwp.CommandMessage, into jdwp.Message) {
		t.Helper()
		reply := ask(m)
		h, err := jdwp.ParseHeader(reply)
		require.NoError(t, err)
		require.Equal(t, jdwp.ErrNone, h.ErrorCode, "%s", m.Command())
		require.NoError(t, jdwp.Unmarshal(jdwp.Data(reply), sizes, into))
	}
	awaitEvent := func() jdwp.Event {
		t.Helper()
		select {
		case e := <-c.Events():
			var comp jdwp.Composite
			require.NoError(t, jdwp.Unmarshal(jdwp.Data(e), sizes, &comp))
			require.Len(t, comp.Events, 1)
			return comp.Events[0]
		case <-time.After(time.Minute): // a guard against a hang
			t.Fatal("no event")
			return nil
		}
	}
	// Stop where marker caught its exception: each of its locals is set.
	ask(&jdwp.EventRequestSetCommand{EventKind: jdwp.EventClassPrepare, SuspendPolicy: jdwp.SuspendPolicyAll,
		Modifiers: []jdwp.Modifier{&jdwp.ClassMatchModifier{Pattern: "Debuggee"}}})
	ask(&jdwp.VMResumeCommand{})
	prepared, ok := awaitEvent().(*jdwp.ClassPrepareEvent)
	require.True(t, ok)
	class := prepared.TypeID
	methods := jdwp.RefTypeMethodsReply{Generic: true}
	decode(&jdwp.RefTypeMethodsWithGenericCommand{RefType: class}, &methods)
	i := slices.IndexFunc(methods.Methods, func(m jdwp.MethodInfo) bool { return m.Name == "marker" })
	require.GreaterOrEqual(t, i, 0)
	marker := methods.Methods[i].Method
	var lines jdwp.MethodLineTableReply
	decode(&jdwp.MethodLineTableCommand{RefType: class, Method: marker}, &lines)
	caught := slices.IndexFunc(lines.Lines, func(l jdwp.LineEntry) bool { return l.LineNumber == int32(jvmtest.Line("Debuggee.java", "caught")) })
	require.GreaterOrEqual(t, caught, 0)
	ask(&jdwp.EventRequestSetCommand{EventKind: jdwp.EventBreakpoint, SuspendPolicy: jdwp.SuspendPolicyAll,
		Modifiers: []jdwp.Modifier{&jdwp.LocationOnlyModifier{Location: jdwp.Location{TypeTag: jdwp.TypeTagClass, Class: class, Method: marker, Index: lines.Lines[caught].CodeIndex}}}})
	ask(&jdwp.VMResumeCommand{})
	hit, ok := awaitEvent().(*jdwp.LocationEvent)
	require.True(t, ok)

	compared := map[jdwp.Command]int{}
	same := func(part, whole jdwp.CommandMessage) {
		t.Helper()
		wholeReply, want := ask(whole), ask(part)
		got, ok := partOf(part, whole, wholeReply, sizes, jdwp.PacketID(want))
		require.True(t, ok, "%s %+v of %+v", part.Command(), part, whole)
		require.Equal(t, want, got, "%s %+v of %+v", part.Command(), part, whole)
		compared[part.Command()]++
	}
	reversed := func(s []jdwp.FieldID) []jdwp.FieldID { s = slices.Clone(s); slices.Reverse(s); return s }

	var frames jdwp.ThreadFramesReply
	decode(&jdwp.ThreadFramesCommand{Thread: hit.Thread, StartFrame: 0, Length: 1}, &frames)
	top := frames.Frames[0]
	vt := jdwp.MethodVariableTableReply{Generic: true}
	decode(&jdwp.MethodVariableTableWithGenericCommand{RefType: class, Method: marker}, &vt)
	slots := VisibleSlots(vt, top.Location.Index)
	require.GreaterOrEqual(t, len(slots), 4, "n, local, text, total")
	locals := &jdwp.FrameGetValuesCommand{Thread: hit.Thread, Frame: top.Frame, Slots: slots}
	for i := range slots {
		same(&jdwp.FrameGetValuesCommand{Thread: hit.Thread, Frame: top.Frame, Slots: slots[i : i+1]}, locals)
	}
	backwards := slices.Clone(slots)
	slices.Reverse(backwards)
	same(&jdwp.FrameGetValuesCommand{Thread: hit.Thread, Frame: top.Frame, Slots: backwards}, locals)

	var this jdwp.TaggedObjectReply
	decode(&jdwp.FrameThisObjectCommand{Thread: hit.Thread, Frame: top.Frame}, &this)
	instance, static, named := fieldsOf(t, decode, class)
	fields := &jdwp.ObjectRefGetValuesCommand{Object: this.Object.ID, Fields: instance}
	for _, f := range instance {
		same(&jdwp.ObjectRefGetValuesCommand{Object: this.Object.ID, Fields: []jdwp.FieldID{f}}, fields)
	}
	same(&jdwp.ObjectRefGetValuesCommand{Object: this.Object.ID, Fields: reversed(instance)}, fields)
	statics := &jdwp.RefTypeGetValuesCommand{RefType: class, Fields: static}
	for _, f := range static {
		same(&jdwp.RefTypeGetValuesCommand{RefType: class, Fields: []jdwp.FieldID{f}}, statics)
	}

	// recent, an int[4]; shapes, whose backing Object[] holds a Square.
	value := func(object jdwp.ObjectID, field jdwp.FieldID) jdwp.ObjectID {
		var v jdwp.ValuesReply
		decode(&jdwp.ObjectRefGetValuesCommand{Object: object, Fields: []jdwp.FieldID{field}}, &v)
		require.Len(t, v.Values, 1)
		return jdwp.ObjectID(v.Values[0].Bits)
	}
	var listType jdwp.ObjectRefReferenceTypeReply
	shapes := value(this.Object.ID, named["shapes"])
	decode(&jdwp.ObjectRefReferenceTypeCommand{Object: shapes}, &listType)
	_, _, listFields := fieldsOf(t, decode, listType.TypeID)
	for _, array := range []jdwp.ObjectID{value(this.Object.ID, named["recent"]), value(shapes, listFields["elementData"])} {
		var length jdwp.IntReply
		decode(&jdwp.ArrayRefLengthCommand{Array: array}, &length)
		require.GreaterOrEqual(t, length.Value, int32(2))
		whole := &jdwp.ArrayRefGetValuesCommand{Array: array, First: 0, Length: length.Value}
		for _, r := range [][2]int32{{0, 1}, {1, length.Value - 1}, {length.Value - 1, 1}, {1, 0}} {
			same(&jdwp.ArrayRefGetValuesCommand{Array: array, First: r[0], Length: r[1]}, whole)
		}
	}
	for _, cmd := range []jdwp.Command{jdwp.CmdStackFrameGetValues, jdwp.CmdObjectReferenceGetValues,
		jdwp.CmdReferenceTypeGetValues, jdwp.CmdArrayReferenceGetValues} {
		require.Positive(t, compared[cmd], "no part of %s compared", cmd)
	}
	ask(&jdwp.VMDisposeCommand{})
}

// fieldsOf returns the instance and static fields a class declares, and
// every one by name.
func fieldsOf(t *testing.T, decode func(jdwp.CommandMessage, jdwp.Message), class jdwp.ReferenceTypeID) (instance, static []jdwp.FieldID, named map[string]jdwp.FieldID) {
	t.Helper()
	fields := jdwp.RefTypeFieldsReply{Generic: true}
	decode(&jdwp.RefTypeFieldsWithGenericCommand{RefType: class}, &fields)
	named = map[string]jdwp.FieldID{}
	for _, f := range fields.Fields {
		named[f.Name] = f.Field
		if f.ModBits&jdwp.ModStatic != 0 {
			static = append(static, f.Field)
		} else {
			instance = append(instance, f.Field)
		}
	}
	require.NotEmpty(t, instance)
	require.NotEmpty(t, static)
	return instance, static, named
}

// A part is never derived from a reply that does not hold the whole it
// answers: another command's, an error, or fewer values than asked; and
// nothing of that panics.
func TestNoPartOfWhatIsNoWholeRead(t *testing.T) {
	sizes := jdwp.DefaultIDSizes
	fields := &jdwp.ObjectRefGetValuesCommand{Object: 5, Fields: []jdwp.FieldID{1, 2}}
	field := &jdwp.ObjectRefGetValuesCommand{Object: 5, Fields: []jdwp.FieldID{2}}
	elements := &jdwp.ArrayRefGetValuesCommand{Array: 5, First: 0, Length: 2}
	element := &jdwp.ArrayRefGetValuesCommand{Array: 5, First: 1, Length: 1}
	two := jdwp.AppendReplyPacket(nil, 1, &jdwp.ValuesReply{Values: []jdwp.Value{jdwp.IntValue(1), jdwp.IntValue(2)}}, sizes)
	one := jdwp.AppendReplyPacket(nil, 1, &jdwp.ValuesReply{Values: []jdwp.Value{jdwp.IntValue(1)}}, sizes)
	region := jdwp.AppendReplyPacket(nil, 1, &jdwp.ArrayRegionReply{Tag: jdwp.TagInt, Values: []jdwp.Value{jdwp.IntValue(1), jdwp.IntValue(2)}}, sizes)
	failed := jdwp.AppendReply(nil, 1, jdwp.ErrInvalidObject, nil)
	got, ok := partOf(field, fields, two, sizes, 9)
	require.True(t, ok)
	require.Equal(t, jdwp.AppendReplyPacket(nil, 9, &jdwp.ValuesReply{Values: []jdwp.Value{jdwp.IntValue(2)}}, sizes), got)
	for _, c := range []struct {
		part, whole jdwp.CommandMessage
		reply       []byte
	}{
		{element, fields, two},
		{field, elements, region},
		{field, fields, one},
		{field, fields, failed},
		{element, elements, failed},
		{element, elements, region[:len(region)-2]},
		{field, fields, two[:5]},
	} {
		_, ok := partOf(c.part, c.whole, c.reply, sizes, 9)
		require.False(t, ok, "%+v of %+v", c.part, c.whole)
	}
}
