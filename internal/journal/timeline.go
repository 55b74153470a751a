package journal

import (
	"encoding/json"
	"io"
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
)

// Timeline tracks (thread ids of the trace-event format).
const (
	trackDebugger  = 1
	trackSynthetic = 2
	trackEvents    = 3
)

// traceEvent is one event of the Chrome trace-event JSON format, which
// Perfetto and chrome://tracing open.
type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"` // microseconds
	Dur  *float64       `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	S    string         `json:"s,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// WriteTimeline writes records as a timeline: one track for the debugger's
// commands, one for synthetic commands, each command a span from send to
// reply named by its command (ReferenceType.SourceFile), hits and belays
// marked; the VM's events are instants on a third track.
func WriteTimeline(w io.Writer, recs []Record) error {
	events := []traceEvent{
		{Name: "thread_name", Ph: "M", Pid: 1, Tid: trackDebugger, Args: map[string]any{"name": "debugger commands"}},
		{Name: "thread_name", Ph: "M", Pid: 1, Tid: trackSynthetic, Args: map[string]any{"name": "synthetic commands"}},
		{Name: "thread_name", Ph: "M", Pid: 1, Tid: trackEvents, Args: map[string]any{"name": "VM events"}},
	}
	if len(recs) == 0 {
		return json.NewEncoder(w).Encode(map[string]any{"traceEvents": events})
	}
	start := recs[0].Time
	us := func(t time.Time) float64 { return float64(t.Sub(start).Nanoseconds()) / 1e3 }
	type open struct {
		at  int // index in events
		cmd Record
	}
	pending := map[uint32]open{}
	for _, r := range recs {
		h, err := jdwp.ParseHeader(r.Packet)
		if err != nil {
			continue
		}
		switch {
		case !h.IsReply() && r.Direction == scache.Upstream:
			tid := trackDebugger
			if r.Synthetic {
				tid = trackSynthetic
			}
			zero := 0.0
			ev := traceEvent{Name: h.Cmd().String(), Cat: "command", Ph: "X", Ts: us(r.Time), Dur: &zero, Pid: 1, Tid: tid,
				Args: map[string]any{"id": h.ID}}
			if r.Hit {
				ev.Args["hit"] = true
			}
			if r.Held {
				ev.Args["belayed"] = true
			}
			pending[h.ID] = open{at: len(events), cmd: r}
			events = append(events, ev)
		case !h.IsReply():
			events = append(events, traceEvent{Name: h.Cmd().String(), Cat: "event", Ph: "i", S: "t", Ts: us(r.Time),
				Pid: 1, Tid: trackEvents})
		default:
			o, ok := pending[h.ID]
			if !ok || r.Direction == scache.Upstream {
				continue
			}
			delete(pending, h.ID)
			d := us(r.Time) - events[o.at].Ts
			events[o.at].Dur = &d
			if h.ErrorCode != jdwp.ErrNone {
				events[o.at].Args["error"] = h.ErrorCode.String()
			}
		}
	}
	return json.NewEncoder(w).Encode(map[string]any{"traceEvents": events, "displayTimeUnit": "ms"})
}

// WriteTimelineFile writes the timeline of recs to a new file at path,
// whole (WriteFileWhole).
func WriteTimelineFile(path string, recs []Record) error {
	return WriteFileWhole(path, func(w io.Writer) error { return WriteTimeline(w, recs) })
}
