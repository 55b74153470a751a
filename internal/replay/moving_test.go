package replay

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/jdwpscache/scache/internal/journal"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
)

// A running thread's status changes between two asks in one stop: the
// worker of the eventthreads session, which sleeps a millisecond at a time,
// caught SLEEPING at the first ask of the threads view and RUNNING at the
// second (as it was on a loaded CI machine). Speculation answers the second
// ask with the state of the first, which the sequential promise allows: the
// replay accepts it, and every mode still replays without mismatches.
func TestAThreadStatusThatMovedWithinAStopReplays(t *testing.T) {
	tr := embeddedTrace(t, "jdi-eventthreads.sctrace")
	moved := moveSecondStatusAsk(t, tr)
	for _, mode := range Modes {
		res, err := Run(moved, mode, Config{})
		require.NoError(t, err, mode)
		require.Empty(t, res.Mismatches, mode)
	}
}

func TestMovingStatesAcceptsRecordedStatesInOrder(t *testing.T) {
	status := func(thread uint64) []byte {
		return jdwp.AppendCommandPacket(nil, 1, &jdwp.ThreadStatusCommand{Thread: jdwp.ThreadID(thread)}, jdwp.DefaultIDSizes)
	}
	reply := func(threadStatus uint32) []byte {
		data := binary.BigEndian.AppendUint32(nil, threadStatus)
		data = binary.BigEndian.AppendUint32(data, 0)
		return jdwp.AppendReply(nil, 1, jdwp.ErrNone, data)
	}
	key, ok := scache.KeyOf(status(7))
	require.True(t, ok)
	s := &session{answers: map[scache.Key][]answer{key: {
		{epoch: era{1, 1}, data: jdwp.Data(reply(2))}, // SLEEPING
		{epoch: era{1, 1}, data: jdwp.Data(reply(1))}, // RUNNING
		{epoch: era{2, 2}, data: jdwp.Data(reply(4))}, // WAIT, at the next stop
	}}}
	ask := func(answer int, epoch era) *command {
		return &command{packet: status(7), cmd: jdwp.CmdThreadReferenceStatus, key: key, epoch: epoch, answer: answer,
			reply: reply(binary.BigEndian.Uint32(s.answers[key][answer].data))}
	}

	m := newMovingStates(s)
	require.True(t, m.accept(ask(1, era{1, 1}), reply(2)), "the state of the stop's first ask, for the second")
	require.True(t, m.accept(ask(1, era{1, 1}), reply(1)), "then the later state")
	require.True(t, newMovingStates(s).accept(ask(1, era{1, 1}), reply(4)), "a state of a later stop: the simulated VM ran further")
	require.False(t, newMovingStates(s).accept(ask(2, era{2, 2}), reply(2)), "a state of an earlier stop")
	require.False(t, newMovingStates(s).accept(ask(1, era{1, 1}), reply(3)), "a state never recorded")

	back := newMovingStates(s)
	require.True(t, back.accept(ask(1, era{1, 1}), reply(1)))
	require.False(t, back.accept(ask(1, era{1, 1}), reply(2)), "back in time")

	other := &command{packet: status(7), cmd: jdwp.CmdThreadReferenceFrameCount, answer: -1, reply: reply(2)}
	require.False(t, newMovingStates(s).accept(other, reply(1)), "state that does not move is held to its recorded reply")
}

func embeddedTrace(t *testing.T, name string) Trace {
	traces, err := Embedded()
	require.NoError(t, err)
	i := slices.IndexFunc(traces, func(tr Trace) bool { return tr.Name == name })
	require.GreaterOrEqual(t, i, 0, name)
	return traces[i]
}

// moveSecondStatusAsk returns tr with one reply changed: the second reply to
// a ThreadReference.Status asked twice in one epoch says RUNNING where the
// first says something else.
func moveSecondStatusAsk(t *testing.T, tr Trace) Trace {
	s := prepare(tr, 0, 0)
	var target []byte
	for _, c := range s.cmds {
		if c.cmd != jdwp.CmdThreadReferenceStatus || c.answer < 1 {
			continue
		}
		prev := s.answers[c.key][c.answer-1]
		if prev.epoch == c.epoch && jdwp.ThreadStatus(binary.BigEndian.Uint32(prev.data)) != jdwp.ThreadStatusRunning {
			target = c.reply
			break
		}
	}
	require.NotNil(t, target, "a status asked twice in one stop")
	moved := Trace{Name: tr.Name, Records: slices.Clone(tr.Records)}
	for i, r := range moved.Records {
		if r.Direction == scache.Downstream && string(r.Packet) == string(target) {
			p := slices.Clone(r.Packet)
			binary.BigEndian.PutUint32(p[jdwp.HeaderSize:], uint32(jdwp.ThreadStatusRunning))
			moved.Records[i] = journal.Record{Time: r.Time, Direction: r.Direction, Packet: p}
			break
		}
	}
	return moved
}
