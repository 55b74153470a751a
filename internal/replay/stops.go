package replay

import (
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/stoplog"
)

// A Stop is one stop of a replayed session (a breakpoint or step event, until
// the debugger resumed), named as the debugger saw it.
type Stop struct {
	// Where is the stop's location in source terms, Class.method:line,
	// from what the debugger asked of the VM in the trace (class, method
	// and line ids where it asked nothing); Thread the stopped thread's
	// name, when the debugger asked it.
	Where, Thread string
	Step          bool // the stop ended a single step
	// RoundTrips is the debugger's inspection wait at the stop, in round
	// trips at the replay's RTT (see Result.StopRoundTrips).
	RoundTrips float64
}

// nameStops names every stop event of t, in the order the debugger
// received them, as a proxy's stoplog.Log names the stops of a live session.
// A stop the trace never saw end (the session stopped there) is named at
// the end of the trace.
func nameStops(t Trace) []Stop {
	var out []Stop
	var log stoplog.Log
	log.Done = func(r stoplog.Record) {
		out = append(out, Stop{Where: r.Where, Thread: r.ThreadName, Step: r.Step})
	}
	var last time.Time
	for _, r := range t.Records {
		log.Add(r)
		last = r.Time
	}
	// A last stop still open: a resume that never came ends it.
	log.Add(scache.JournalEntry{Time: last, Direction: scache.Upstream,
		Packet: jdwp.AppendCommand(nil, 0x7fffffff, jdwp.CmdVirtualMachineResume, nil)})
	return out
}
