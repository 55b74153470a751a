package journal_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/journal"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
)

func TestTimelineSpansAndMarks(t *testing.T) {
	t0 := time.Unix(100, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	recs := []journal.Record{
		{Time: at(0), Direction: scache.Upstream, Packet: jdwp.AppendCommand(nil, 1, jdwp.CmdThreadReferenceFrames, nil)},
		{Time: at(3), Direction: scache.Downstream, Packet: jdwp.AppendReply(nil, 1, jdwp.ErrNone, nil)},
		{Time: at(3), Direction: scache.Upstream, Synthetic: true, Packet: jdwp.AppendCommand(nil, 0xA0000000, jdwp.CmdReferenceTypeSourceFile, nil)},
		{Time: at(4), Direction: scache.Upstream, Held: true, Packet: jdwp.AppendCommand(nil, 2, jdwp.CmdReferenceTypeSourceFile, nil)},
		{Time: at(5), Direction: scache.Downstream, Synthetic: true, Packet: jdwp.AppendReply(nil, 0xA0000000, jdwp.ErrAbsentInformation, nil)},
		{Time: at(5), Direction: scache.Downstream, Packet: jdwp.AppendReply(nil, 2, jdwp.ErrAbsentInformation, nil)},
		{Time: at(6), Direction: scache.Downstream, Packet: jdwp.AppendCommand(nil, 9, jdwp.CmdEventComposite, nil)},
	}
	var buf bytes.Buffer
	require.NoError(t, journal.WriteTimeline(&buf, recs))
	var doc struct {
		TraceEvents []struct {
			Name string
			Ph   string
			Ts   float64
			Dur  float64
			Tid  int
			Args map[string]any
		}
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	var spans []string
	for _, e := range doc.TraceEvents {
		switch e.Ph {
		case "X":
			spans = append(spans, e.Name)
			switch e.Args["id"].(float64) {
			case 1:
				require.Equal(t, 3000.0, e.Dur)
				require.Equal(t, 1, e.Tid)
			case 0xA0000000:
				require.Equal(t, 2, e.Tid)
				require.Equal(t, 2000.0, e.Dur)
				require.Equal(t, "ABSENT_INFORMATION", e.Args["error"])
			case 2:
				require.Equal(t, true, e.Args["belayed"])
				require.Equal(t, 1000.0, e.Dur)
			}
		case "i":
			require.Equal(t, "Event.Composite", e.Name)
			require.Equal(t, 6000.0, e.Ts)
		}
	}
	require.Equal(t, []string{"ThreadReference.Frames", "ReferenceType.SourceFile", "ReferenceType.SourceFile"}, spans)
}
