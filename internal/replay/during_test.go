package replay_test

import (
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/journal"
	"github.com/jdwpscache/scache/internal/replay"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
)

// An event the VM sent while it served a command (a class that an
// invocation loaded, 3 ms into it) reaches the debugger before that
// command's reply in the replay too, as it did in the recording. Sent
// after the reply, it would end the epoch the reply began, and with it
// what the Speculator asked at the reply (renderers' replays predicted
// 1.13-1.18 times the live wait through scache for that).
func TestAnEventSentDuringACommandComesBeforeItsReply(t *testing.T) {
	sizes := jdwp.DefaultIDSizes
	start := time.Unix(1000, 0)
	invoke := jdwp.AppendCommandPacket(nil, 7, &jdwp.ObjectRefInvokeMethodCommand{Object: 0x10, Class: 2, MethodCall: jdwp.MethodCall{Thread: 1, Method: 3}}, sizes)
	prepare := jdwp.AppendCommandPacket(nil, 1, &jdwp.Composite{SuspendPolicy: jdwp.SuspendPolicyNone,
		Events: []jdwp.Event{&jdwp.ClassPrepareEvent{RequestID: 2, Thread: 1, TypeTag: 1, TypeID: 9, Signature: "LLoaded;", Status: 7}}}, sizes)
	// Captured next to the VM (CaptureRTT -1): the invocation took 5 ms.
	reply := jdwp.AppendReply(nil, 7, jdwp.ErrNone, []byte{'s', 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	tr := replay.Trace{Name: "invocation", Records: []journal.Record{
		{Time: start, Direction: scache.Upstream, Packet: invoke},
		{Time: start.Add(3 * time.Millisecond), Direction: scache.Downstream, Packet: prepare},
		{Time: start.Add(5 * time.Millisecond), Direction: scache.Downstream, Packet: reply},
	}}
	var order []string
	_, err := replay.Run(tr, replay.ModeOff, replay.Config{RTT: 20 * time.Millisecond, CaptureRTT: -1, Journal: func(r journal.Record) {
		if r.Direction == scache.Downstream {
			h, err := jdwp.ParseHeader(r.Packet)
			require.NoError(t, err)
			if h.IsReply() {
				order = append(order, "reply")
			} else {
				order = append(order, "event")
			}
		}
	}})
	require.NoError(t, err)
	require.Equal(t, []string{"event", "reply"}, order)
}
