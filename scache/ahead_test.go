package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
)

func clearPacket(id uint32, kind jdwp.EventKind) []byte {
	return jdwp.AppendCommandPacket(nil, id, &jdwp.EventRequestClearCommand{EventKind: kind, RequestID: 3}, sizes8)
}

// A debugger's Clear of a step request is forwarded and answered at once;
// the VM's reply is absorbed, even after speculation was switched off.
func TestClearIsAnsweredAhead(t *testing.T) {
	s := newSpeculator(t, scache.WithAnswerAhead(true))
	s.OnUpstream(jdwp.AppendCommandPacket(nil, 1, &jdwp.VMIDSizesCommand{}, sizes8))
	s.OnDownstream(jdwp.AppendReplyPacket(nil, 1, &jdwp.VMIDSizesReply{Sizes: sizes8}, sizes8))

	p := clearPacket(2, jdwp.EventSingleStep)
	r := s.OnUpstream(p)
	require.Equal(t, scache.AnsweredAhead, r.Outcome)
	require.Equal(t, [][]byte{p}, r.Edict.Upstream, "the Clear goes to the VM unchanged")
	require.Equal(t, [][]byte{jdwp.AppendReply(nil, 2, jdwp.ErrNone, nil)}, r.Edict.Downstream)

	// Switched off meanwhile (an unparsable packet): the reply is still the VM's to absorb.
	s.OnUpstream([]byte{1, 2, 3})
	require.False(t, s.Stats().Enabled)
	r = s.OnDownstream(jdwp.AppendReply(nil, 2, jdwp.ErrNone, nil))
	require.Equal(t, scache.Absorbed, r.Outcome)
	require.Empty(t, r.Edict.Downstream, "the debugger had its reply")
	require.Equal(t, int64(1), s.Stats().AnsweredAhead)
}

// Only a step's or a breakpoint's Clear is answered ahead, only when asked
// for (a far half's default), while the session goes on, not in Classic, and
// for an id not in use.
func TestClearIsForwardedWhenItsReplyIsNotCertain(t *testing.T) {
	cases := map[string]struct {
		opts   []scache.Option
		before [][]byte
		clear  []byte
	}{
		"class prepare": {clear: clearPacket(9, jdwp.EventClassPrepare)},
		"after exit":    {before: [][]byte{jdwp.AppendCommandPacket(nil, 8, &jdwp.VMExitCommand{ExitCode: 1}, sizes8)}, clear: clearPacket(9, jdwp.EventBreakpoint)},
		"after dispose": {before: [][]byte{jdwp.AppendCommandPacket(nil, 8, &jdwp.VMDisposeCommand{}, sizes8)}, clear: clearPacket(9, jdwp.EventBreakpoint)},
		"classic":       {opts: []scache.Option{scache.Classic()}, clear: clearPacket(9, jdwp.EventSingleStep)},
		"id in use":     {before: [][]byte{jdwp.AppendCommandPacket(nil, 9, &jdwp.VMAllClassesCommand{}, sizes8)}, clear: clearPacket(9, jdwp.EventSingleStep)},
		"malformed":     {clear: jdwp.AppendCommand(nil, 9, jdwp.CmdEventRequestClear, []byte{1})},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			opts := c.opts
			if opts == nil {
				opts = []scache.Option{scache.WithAnswerAhead(true)}
			}
			s := newSpeculator(t, opts...)
			for _, p := range c.before {
				s.OnUpstream(p)
			}
			r := s.OnUpstream(c.clear)
			require.Equal(t, scache.Forwarded, r.Outcome)
			require.Empty(t, r.Edict.Downstream)
			r = s.OnDownstream(jdwp.AppendReply(nil, 9, jdwp.ErrNone, nil))
			require.Len(t, r.Edict.Downstream, 1, "the VM's reply goes to the debugger")
		})
	}
}

// An id used again after its Clear was answered ahead: the VM answers in
// order, so the first reply with the id is the Clear's (absorbed) and the
// next one the new command's. A VM that contradicts the early answer is
// counted.
func TestIdUsedAgainAfterAnAnswerAhead(t *testing.T) {
	s := newSpeculator(t, scache.WithAnswerAhead(true))
	require.Equal(t, scache.AnsweredAhead, s.OnUpstream(clearPacket(4, jdwp.EventBreakpoint)).Outcome)
	again := jdwp.AppendCommandPacket(nil, 4, &jdwp.VMVersionCommand{}, sizes8)
	require.Equal(t, scache.Forwarded, s.OnUpstream(again).Outcome)
	r := s.OnDownstream(jdwp.AppendReply(nil, 4, jdwp.ErrVMDead, nil))
	require.Equal(t, scache.Absorbed, r.Outcome)
	require.Equal(t, int64(1), s.Stats().AheadContradicted)
	version := jdwp.AppendReply(nil, 4, jdwp.ErrNone, []byte("v"))
	r = s.OnDownstream(version)
	require.Equal(t, scache.Forwarded, r.Outcome)
	require.Equal(t, [][]byte{version}, r.Edict.Downstream)
}
