package replay

import (
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
)

// Threads that stay where they are. Under suspend-thread breakpoints a
// thread stopped by its own event stays suspended while others stop and
// are resumed, each ending an epoch; the Speculator keeps what it asked
// about such a parked thread across those epochs and serves it when the
// debugger reads that stop in its turn. The recording has the thread's
// frames only from the epoch the debugger asked them in, so the simulated
// VM answers a synthetic command about a thread's own state from another
// epoch's recording too, as long as the thread cannot have run between
// the two: no event of it, no command that may let it run.

// threadRuns counts the moments at which threads may have run: all counts
// those of every thread (a command that may let every thread run or
// changes values), byThread each thread's own (its events, its resumes).
type threadRuns struct {
	all      int
	byThread map[jdwp.ObjectID]int
}

// runMark names a thread and where its runs stood: two answers about the
// thread's own state with the same mark are answers in one stretch in
// which it did not run. A zero thread marks no thread.
type runMark struct {
	thread   jdwp.ObjectID
	all, own int
}

// command follows a debugger command sent: a resume of one thread counts
// that thread's runs; any other command that ends an epoch or changes
// values counts every thread's.
func (r *threadRuns) command(packet []byte, sizes jdwp.IDSizes) {
	h, err := jdwp.ParseHeader(packet)
	if err != nil {
		return
	}
	cmd := h.Cmd()
	switch {
	case cmd == jdwp.CmdThreadReferenceResume:
		if t, ok := threadOfPacket(packet, sizes); ok {
			r.count(t)
			return
		}
		r.all++
	case scache.EndsEpoch(cmd) || scache.ChangesValues(cmd):
		r.all++
	}
}

// event follows a composite event from the VM: each thread an event
// happened in ran up to it. The others' stand: a suspended thread stays
// where it is whatever events others report (and one that was running
// had no frames to answer with before, which the Speculator never serves
// across epochs).
func (r *threadRuns) event(packet []byte, sizes jdwp.IDSizes) {
	var m jdwp.Composite
	if jdwp.Unmarshal(jdwp.Data(packet), sizes, &m) != nil {
		r.all++
		return
	}
	for _, e := range m.Events {
		if t, ok := jdwp.EventThread(e); ok {
			r.count(jdwp.ObjectID(t))
		}
	}
}

func (r *threadRuns) count(t jdwp.ObjectID) {
	if r.byThread == nil {
		r.byThread = map[jdwp.ObjectID]int{}
	}
	r.byThread[t]++
}

// mark returns the mark of a command about a thread's own state (a
// ThreadReference or StackFrame command), or a zero mark.
func (r *threadRuns) mark(packet []byte, sizes jdwp.IDSizes) runMark {
	t, ok := threadOfPacket(packet, sizes)
	if !ok {
		return runMark{}
	}
	return runMark{thread: t, all: r.all, own: r.byThread[t]}
}

// threadOfPacket returns the thread a ThreadReference or StackFrame
// command is about: the first id of its data.
func threadOfPacket(packet []byte, sizes jdwp.IDSizes) (jdwp.ObjectID, bool) {
	h, err := jdwp.ParseHeader(packet)
	if err != nil || h.IsReply() || h.CommandSet != jdwp.SetThreadReference && h.CommandSet != jdwp.SetStackFrame {
		return 0, false
	}
	r := jdwp.NewReader(jdwp.Data(packet), sizes) // every such command starts with the thread
	t := r.ObjectID()
	if r.Err() != nil || t == 0 {
		return 0, false
	}
	return t, true
}
