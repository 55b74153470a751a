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

// TestSplitJournalIsTheDebuggersSide: replayed in split mode, the journal is
// the far half's, next to the debugger: every debugger command once, in
// simulated time, with what the far half answered marked, and no synthetic
// command (the near half sends those).
func TestSplitJournalIsTheDebuggersSide(t *testing.T) {
	traces, err := replay.Embedded()
	require.NoError(t, err)
	tr := traces[0]
	var records []journal.Record
	res, err := replay.Run(tr, replay.ModeSplit, replay.Config{RTT: 20 * time.Millisecond,
		Journal: func(r journal.Record) { records = append(records, r) }})
	require.NoError(t, err)
	commands, hits := 0, int64(0)
	last := tr.Records[0].Time
	for _, r := range records {
		require.False(t, r.Time.Before(last), "journal times go forward")
		last = r.Time
		h, err := jdwp.ParseHeader(r.Packet)
		require.NoError(t, err)
		if r.Direction != scache.Upstream || h.IsReply() {
			continue
		}
		require.False(t, scache.IsSyntheticID(h.ID), "a synthetic command in the far half's journal")
		commands++
		if r.Hit {
			hits++
		}
	}
	require.Equal(t, res.DebuggerCmds, commands)
	// Hit also marks the requests answered ahead.
	require.GreaterOrEqual(t, hits, res.Hits)
	require.Positive(t, res.Hits)
	// The simulated session lasts at least the debugger's wait.
	require.GreaterOrEqual(t, last.Sub(tr.Records[0].Time), res.Wait[20*time.Millisecond])
}

// TestSplitReplayFollowsTheRTT: the link is between the halves, so the
// split proxy's wait grows with the RTT, and at RTT 0 it is off's.
func TestSplitReplayFollowsTheRTT(t *testing.T) {
	traces, err := replay.Embedded()
	require.NoError(t, err)
	for _, tr := range traces {
		rtts := []time.Duration{0, 5 * time.Millisecond, 50 * time.Millisecond}
		split, err := replay.Run(tr, replay.ModeSplit, replay.Config{RTT: 20 * time.Millisecond, RTTs: rtts})
		require.NoError(t, err)
		off, err := replay.Run(tr, replay.ModeOff, replay.Config{RTT: 20 * time.Millisecond, RTTs: rtts})
		require.NoError(t, err)
		require.Less(t, split.Wait[5*time.Millisecond], split.Wait[50*time.Millisecond], tr.Name)
		require.LessOrEqual(t, float64(split.Wait[0]), 1.05*float64(off.Wait[0]), tr.Name)
	}
}
