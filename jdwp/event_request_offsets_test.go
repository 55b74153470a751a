package jdwp_test

import (
	"encoding/binary"
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

// Each event's request id is where EventRequestOffsets says, whatever the
// events' layouts and the id sizes; a truncated composite is an error.
func TestEventRequestOffsets(t *testing.T) {
	for _, sizes := range []jdwp.IDSizes{jdwp.DefaultIDSizes, {FieldID: 4, MethodID: 4, ObjectID: 4, ReferenceTypeID: 4, FrameID: 4}} {
		c := &jdwp.Composite{SuspendPolicy: jdwp.SuspendPolicyAll, Events: []jdwp.Event{
			&jdwp.ThreadEvent{EventKind: jdwp.EventThreadStart, RequestID: 11, Thread: 1},
			&jdwp.ClassPrepareEvent{RequestID: 12, Thread: 1, TypeTag: jdwp.TypeTagClass, TypeID: 2, Signature: "LA;", Status: 7},
			&jdwp.LocationEvent{EventKind: jdwp.EventSingleStep, RequestID: 13, Thread: 1, Location: jdwp.Location{TypeTag: jdwp.TypeTagClass, Class: 2, Method: 3}},
			&jdwp.ClassUnloadEvent{RequestID: 14, Signature: "LB;"},
			&jdwp.VMDeathEvent{RequestID: 15},
		}}
		w := jdwp.NewWriter(sizes)
		c.Encode(w)
		data := w.Bytes()
		offsets, err := jdwp.EventRequestOffsets(data, sizes)
		require.NoError(t, err)
		var ids []int32
		for _, off := range offsets {
			ids = append(ids, int32(binary.BigEndian.Uint32(data[off:])))
		}
		require.Equal(t, []int32{11, 12, 13, 14, 15}, ids)
		_, err = jdwp.EventRequestOffsets(data[:len(data)-1], sizes)
		require.Error(t, err)
	}
}
