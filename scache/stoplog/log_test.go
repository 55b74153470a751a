package stoplog_test

import (
	"testing"
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/stoplog"
	"github.com/stretchr/testify/require"
)

// sizes8 are the id sizes of the tests' packets.
var sizes8 = jdwp.DefaultIDSizes

// A stop from its event to the resume: what the debugger asked, what
// speculation answered, how long it waited, in round trips.
func TestLogRecordsEachStop(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	loc := jdwp.Location{TypeTag: jdwp.TypeTagClass, Class: 0x100, Method: 0x1001, Index: 7}
	event := jdwp.AppendCommandPacket(nil, 9, &jdwp.Composite{SuspendPolicy: jdwp.SuspendPolicyAll, Events: []jdwp.Event{
		&jdwp.LocationEvent{EventKind: jdwp.EventBreakpoint, RequestID: 3, Thread: 1, Location: loc}}}, sizes8)
	cmd := func(id uint32, c jdwp.Command) []byte { return jdwp.AppendCommand(nil, id, c, nil) }
	reply := func(id uint32) []byte { return jdwp.AppendReply(nil, id, jdwp.ErrNone, nil) }
	var done []stoplog.Record
	log := &stoplog.Log{Done: func(s stoplog.Record) { done = append(done, s) }}
	for _, e := range []scache.JournalEntry{
		{Time: at(0), Direction: scache.Downstream, Packet: event},
		{Time: at(1), Direction: scache.Upstream, Packet: cmd(1, jdwp.CmdThreadReferenceFrames)},
		{Time: at(2), Direction: scache.Upstream, Packet: cmd(scache.FirstSyntheticID, jdwp.CmdStackFrameGetValues), Synthetic: true},
		{Time: at(21), Direction: scache.Downstream, Packet: reply(1)},
		{Time: at(22), Direction: scache.Upstream, Packet: cmd(2, jdwp.CmdStackFrameThisObject), Hit: true},
		{Time: at(22), Direction: scache.Downstream, Packet: reply(2), Hit: true},
		{Time: at(23), Direction: scache.Upstream, Packet: cmd(3, jdwp.CmdStackFrameGetValues), Held: true},
		{Time: at(30), Direction: scache.Downstream, Packet: reply(3)},
		{Time: at(31), Direction: scache.Upstream, Packet: cmd(4, jdwp.CmdEventRequestSet)},
		{Time: at(40), Direction: scache.Upstream, Packet: cmd(5, jdwp.CmdVirtualMachineResume)},
	} {
		log.Add(e)
	}
	require.Len(t, done, 1)
	st := done[0]
	require.Equal(t, log.Stops(), done)
	require.Equal(t, jdwp.ThreadID(1), st.Thread)
	require.Equal(t, loc, st.Location)
	require.Equal(t, 3, st.Asked, "the event request aside")
	require.Equal(t, 2, st.Answered)
	require.Equal(t, map[jdwp.Command]int{jdwp.CmdThreadReferenceFrames: 1}, st.Forwarded,
		"the command nothing answered, by name; the event request aside")
	require.Equal(t, 27*time.Millisecond, st.Wait)
	require.InDelta(t, 1.35, st.RoundTrips, 1e-9, "27 ms at a 20 ms round trip")
	require.Equal(t, st.RoundTrips, st.InspectionRoundTrips, "nothing changed the debuggee")
	require.Zero(t, st.ChangeWait)
	require.Equal(t, at(40), st.End)
}

// TestLogTellsChangesFromInspection: the waiting on a SetValues, which
// must reach the VM, is reported apart; where it overlaps an inspection
// command's, it counts as inspection.
func TestLogTellsChangesFromInspection(t *testing.T) {
	at, event, cmd, reply := stopLogPackets()
	log := &stoplog.Log{}
	for _, e := range []scache.JournalEntry{
		{Time: at(0), Direction: scache.Downstream, Packet: event},
		{Time: at(1), Direction: scache.Upstream, Packet: cmd(1, jdwp.CmdThreadReferenceFrames)},
		{Time: at(21), Direction: scache.Downstream, Packet: reply(1)}, // the round trip: 20 ms
		{Time: at(22), Direction: scache.Upstream, Packet: cmd(2, jdwp.CmdStackFrameSetValues)},
		{Time: at(32), Direction: scache.Upstream, Packet: cmd(3, jdwp.CmdObjectReferenceReferenceType)},
		{Time: at(42), Direction: scache.Downstream, Packet: reply(2)},
		{Time: at(52), Direction: scache.Downstream, Packet: reply(3)},
		{Time: at(60), Direction: scache.Upstream, Packet: cmd(4, jdwp.CmdVirtualMachineResume)},
	} {
		log.Add(e)
	}
	stops := log.Stops()
	require.Len(t, stops, 1)
	st := stops[0]
	require.Equal(t, 50*time.Millisecond, st.Wait)
	require.Equal(t, 10*time.Millisecond, st.ChangeWait, "22-32 ms: only the SetValues was awaited")
	require.InDelta(t, 2.5, st.RoundTrips, 1e-9)
	require.InDelta(t, 2.0, st.InspectionRoundTrips, 1e-9)
}

// TestLogTimesTheRoundTripBetweenStops: when speculation answers every
// command of every stop, the round trip still comes from what was forwarded
// between them (here the resume), so a stop's waiting on replies still in
// flight counts in round trips.
func TestLogTimesTheRoundTripBetweenStops(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	loc := jdwp.Location{TypeTag: jdwp.TypeTagClass, Class: 0x100, Method: 0x1001, Index: 7}
	event := func(id uint32) []byte {
		return jdwp.AppendCommandPacket(nil, id, &jdwp.Composite{SuspendPolicy: jdwp.SuspendPolicyAll, Events: []jdwp.Event{
			&jdwp.LocationEvent{EventKind: jdwp.EventBreakpoint, RequestID: 3, Thread: 1, Location: loc}}}, sizes8)
	}
	cmd := func(id uint32, c jdwp.Command) []byte { return jdwp.AppendCommand(nil, id, c, nil) }
	reply := func(id uint32) []byte { return jdwp.AppendReply(nil, id, jdwp.ErrNone, nil) }
	log := &stoplog.Log{}
	for _, e := range []scache.JournalEntry{
		{Time: at(0), Direction: scache.Downstream, Packet: event(9)},
		{Time: at(1), Direction: scache.Upstream, Packet: cmd(1, jdwp.CmdThreadReferenceFrames), Held: true},
		{Time: at(11), Direction: scache.Downstream, Packet: reply(1)},
		{Time: at(12), Direction: scache.Upstream, Packet: cmd(2, jdwp.CmdVirtualMachineResume)},
		{Time: at(32), Direction: scache.Downstream, Packet: reply(2)},
		{Time: at(33), Direction: scache.Downstream, Packet: event(10)},
		{Time: at(34), Direction: scache.Upstream, Packet: cmd(3, jdwp.CmdThreadReferenceFrames), Held: true},
		{Time: at(44), Direction: scache.Downstream, Packet: reply(3)},
		{Time: at(45), Direction: scache.Upstream, Packet: cmd(4, jdwp.CmdStackFrameGetValues), Hit: true},
		{Time: at(45), Direction: scache.Downstream, Packet: reply(4), Hit: true},
		{Time: at(46), Direction: scache.Upstream, Packet: cmd(5, jdwp.CmdVirtualMachineResume)},
	} {
		log.Add(e)
	}
	stops := log.Stops()
	require.Len(t, stops, 2)
	require.Equal(t, 2, stops[1].Answered)
	require.Equal(t, 10*time.Millisecond, stops[1].Wait)
	require.InDelta(t, 0.5, stops[1].RoundTrips, 1e-9, "10 ms at the resume's 20 ms round trip")
}

// TestLogCountsInvocationsApart: a renderer's invocations are counted,
// and the time only they were awaited is reported apart from the rest of
// the inspection, which a proxy could still save.
func TestLogCountsInvocationsApart(t *testing.T) {
	at, event, cmd, reply := stopLogPackets()
	log := &stoplog.Log{}
	for _, e := range []scache.JournalEntry{
		{Time: at(0), Direction: scache.Downstream, Packet: event},
		{Time: at(1), Direction: scache.Upstream, Packet: cmd(1, jdwp.CmdThreadReferenceFrames)},
		{Time: at(21), Direction: scache.Downstream, Packet: reply(1)}, // the round trip: 20 ms
		{Time: at(22), Direction: scache.Upstream, Packet: cmd(2, jdwp.CmdObjectReferenceInvokeMethod)},
		{Time: at(42), Direction: scache.Downstream, Packet: reply(2)},
		{Time: at(43), Direction: scache.Upstream, Packet: cmd(3, jdwp.CmdStringReferenceValue), Hit: true},
		{Time: at(43), Direction: scache.Downstream, Packet: reply(3), Hit: true},
		{Time: at(44), Direction: scache.Upstream, Packet: cmd(4, jdwp.CmdClassTypeInvokeMethod)},
		{Time: at(64), Direction: scache.Downstream, Packet: reply(4)},
		{Time: at(65), Direction: scache.Upstream, Packet: cmd(5, jdwp.CmdVirtualMachineResume)},
	} {
		log.Add(e)
	}
	stops := log.Stops()
	require.Len(t, stops, 1)
	st := stops[0]
	require.Equal(t, 2, st.Invocations)
	require.Equal(t, 60*time.Millisecond, st.Wait)
	require.Equal(t, 40*time.Millisecond, st.InvocationWait)
	require.InDelta(t, 3.0, st.InspectionRoundTrips, 1e-9)
	require.InDelta(t, 1.0, st.BeyondInvocationsRoundTrips, 1e-9, "the frames only")
}

// stopLogPackets returns what the Log tests build a session of: the
// time ms after the start, a breakpoint event of thread 1, and a command
// and its empty successful reply by id.
func stopLogPackets() (at func(ms int) time.Time, event []byte, cmd func(uint32, jdwp.Command) []byte, reply func(uint32) []byte) {
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	at = func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	event = jdwp.AppendCommandPacket(nil, 9, &jdwp.Composite{SuspendPolicy: jdwp.SuspendPolicyAll, Events: []jdwp.Event{
		&jdwp.LocationEvent{EventKind: jdwp.EventBreakpoint, RequestID: 3, Thread: 1,
			Location: jdwp.Location{TypeTag: jdwp.TypeTagClass, Class: 0x100, Method: 0x1001}}}}, sizes8)
	cmd = func(id uint32, c jdwp.Command) []byte { return jdwp.AppendCommand(nil, id, c, nil) }
	reply = func(id uint32) []byte { return jdwp.AppendReply(nil, id, jdwp.ErrNone, nil) }
	return at, event, cmd, reply
}
