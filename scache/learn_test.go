package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
)

// syntheticAtStop stops thread 1 at a breakpoint, lets the debugger ask
// asked, answers everything, resumes, and returns how many synthetic
// commands of cmd went to the VM at that stop.
func syntheticAtStop(t *testing.T, h *harness, cmd jdwp.Command, asked ...jdwp.CommandMessage) int {
	_, before := h.vmCommands(cmd)
	ev, ok := h.vm.Stop(1, jdwp.SuspendPolicyAll)
	require.True(t, ok)
	h.event(ev)
	for _, m := range asked {
		got, want := ask(h, m)
		require.Equal(t, want, got)
	}
	h.drain()
	h.send(&jdwp.VMResumeCommand{})
	h.drain()
	_, after := h.vmCommands(cmd)
	return after - before
}

// A debugger that never asks a thread's name stops getting it speculated
// after a stop, gets it again now and then, and at once once it asks.
func TestUnusedSpeculationIsPausedAndResumedWhenAsked(t *testing.T) {
	h := running(t, scache.WithFamilies(scache.FamilyStop)) // the threads view would ask every depth
	frames := &jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1}
	require.Equal(t, 1, syntheticAtStop(t, h, jdwp.CmdThreadReferenceName, frames))
	sent := 0
	for i := 0; i < 8; i++ { // stops 2 to 9: paused but for one probe (the 8th stop)
		sent += syntheticAtStop(t, h, jdwp.CmdThreadReferenceName, frames)
	}
	require.Equal(t, 1, sent, "paused, probed once")
	// The debugger asks for the name itself (a miss at this stop) ...
	syntheticAtStop(t, h, jdwp.CmdThreadReferenceName, frames, &jdwp.ThreadNameCommand{Thread: 1})
	// ... and from the next stop on it is speculated again, and used.
	hits := h.s.Stats().Hits
	require.Equal(t, 1, syntheticAtStop(t, h, jdwp.CmdThreadReferenceName, frames, &jdwp.ThreadNameCommand{Thread: 1}))
	require.Greater(t, h.s.Stats().Hits, hits)
}

// Class metadata the debugger never asks (here Superclass) stops being
// speculated after a few; what it asks (SourceFile) keeps coming.
func TestUnusedClassMetadataIsPaused(t *testing.T) {
	h := running(t, scache.WithFamilies(scache.FamilyClass))
	classes := []jdwp.ClassDef{}
	for _, f := range h.vm.Thread(1).Frames {
		classes = append(classes, jdwp.ClassDef{RefType: f.Class, ClassFile: []byte{1}})
	}
	var superclass, sourceFile []int
	for round := 0; round < 6; round++ {
		_, s0 := h.vmCommands(jdwp.CmdClassTypeSuperclass)
		_, f0 := h.vmCommands(jdwp.CmdReferenceTypeSourceFile)
		h.send(&jdwp.VMSuspendCommand{})
		h.drain()
		h.send(&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1})
		h.drain()
		for _, c := range classes {
			got, want := ask(h, &jdwp.RefTypeSourceFileCommand{RefType: c.RefType})
			require.Equal(t, want, got)
		}
		h.send(&jdwp.VMRedefineClassesCommand{Classes: classes}) // the metadata goes
		h.send(&jdwp.VMResumeCommand{})
		h.drain()
		_, s1 := h.vmCommands(jdwp.CmdClassTypeSuperclass)
		_, f1 := h.vmCommands(jdwp.CmdReferenceTypeSourceFile)
		superclass, sourceFile = append(superclass, s1-s0), append(sourceFile, f1-f0)
	}
	require.Positive(t, superclass[0])
	require.LessOrEqual(t, superclass[2]+superclass[3]+superclass[4]+superclass[5], 1, "paused but for a probe: %v", superclass)
	for round, n := range sourceFile {
		require.Positive(t, n, "SourceFile is asked: still speculated in round %d (%v)", round, sourceFile)
	}
}

// jdb asks the stopped thread's name and status at every stop and never
// another thread's: after the first stop no other thread's name is
// speculated, neither at the probes of the thread list nor at the first
// step (a kind of stop goes as the other went until it has its own
// record), while the stopped thread's name still is.
func TestOtherThreadsArePausedApartFromTheStoppedOne(t *testing.T) {
	h := running(t)
	others := func() int {
		n := 0
		for _, th := range h.vm.Threads() {
			if th.ID != 1 {
				n += queuedFor(h, jdwp.CmdThreadReferenceName, th.ID)
			}
		}
		return n
	}
	jdbStop := func(step bool) {
		this := h.vm.Thread(1).Frames[0].This
		if step {
			stepOn(t, h, this)
		} else {
			stopOn(t, h, this)
		}
		for _, m := range []jdwp.CommandMessage{
			&jdwp.ThreadFrameCountCommand{Thread: 1},
			&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: 1},
			&jdwp.ThreadNameCommand{Thread: 1},
			&jdwp.ThreadStatusCommand{Thread: 1},
		} {
			got, want := ask(h, m)
			require.Equal(t, want, got)
		}
		resume(h)
	}
	jdbStop(false)
	cold := others()
	require.Positive(t, cold, "at the first stop the threads view is tried")
	own := queuedFor(h, jdwp.CmdThreadReferenceName, 1)
	for stop := 0; stop < 24; stop++ {
		jdbStop(stop%3 != 0)
	}
	require.Equal(t, cold, others(), "no other thread's name since")
	require.Greater(t, queuedFor(h, jdwp.CmdThreadReferenceName, 1), own, "the stopped thread's name is still speculated")
}

// Each kind of stop is learned apart: an IDE shows its threads view at
// every breakpoint, while a method exit request of a tracing tool stops in
// between and is resumed once the top frame was read. The other threads'
// names go out at every breakpoint, used, and at no method exit after the
// first, where they went unused.
func TestKindsOfStopAreLearnedApart(t *testing.T) {
	h := running(t)
	var others []int // other threads' names speculated at each stop
	for stop := 0; stop < 12; stop++ {
		before := 0
		for _, th := range h.vm.Threads() {
			if th.ID != 1 {
				before += queuedFor(h, jdwp.CmdThreadReferenceName, th.ID)
			}
		}
		ev, ok := h.vm.Stop(1, jdwp.SuspendPolicyAll)
		require.True(t, ok)
		asked := []jdwp.CommandMessage{&jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: 1}}
		if stop%2 == 0 {
			h.event(ev)
			asked = append(asked, &jdwp.VMAllThreadsCommand{})
			for _, th := range h.vm.Threads() {
				asked = append(asked, &jdwp.ThreadNameCommand{Thread: th.ID})
			}
		} else {
			h.event(asKind(t, ev, jdwp.EventMethodExit))
		}
		for _, m := range asked {
			got, want := ask(h, m)
			require.Equal(t, want, got)
		}
		resume(h)
		after := 0
		for _, th := range h.vm.Threads() {
			if th.ID != 1 {
				after += queuedFor(h, jdwp.CmdThreadReferenceName, th.ID)
			}
		}
		others = append(others, after-before)
	}
	for stop, n := range others {
		switch {
		case stop%2 == 0:
			require.Positive(t, n, "breakpoint %d: the threads view goes out (%v)", stop, others)
		case stop > 1:
			require.Zero(t, n, "method exit %d: paused (%v)", stop, others)
		}
	}
}
