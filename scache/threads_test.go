package scache

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
)

// TestThreadsViewGoesOutWithTheStop: from the second stop on, the view of
// the threads the last AllThreads listed (status, depth, name) goes to the VM
// with the stop's first commands, not one reply behind AllThreads; what it
// caches answers the debugger as the VM would.
func TestThreadsViewGoesOutWithTheStop(t *testing.T) {
	sizes := jdwp.DefaultIDSizes
	vm := scachetest.NewModelVM(sizes)
	c := vm.AddClass("LThreads;", 1, false, false)
	for _, id := range []jdwp.ThreadID{1, 2, 3} {
		vm.SetThread(id, []scachetest.ModelFrame{{Class: c.ID, Method: c.Methods[0], Index: 3}})
	}
	s, err := New(WithFamilies(FamilyThreads))
	require.NoError(t, err)
	// deliver lets the VM answer every command that goes up, at once.
	var deliver func(r Response)
	deliver = func(r Response) {
		for _, p := range append([][]byte(nil), r.Edict.Upstream...) {
			deliver(s.OnDownstream(vm.Handle(p)))
		}
	}
	nextID := uint32(1)
	ask := func(m jdwp.CommandMessage) Response {
		r := s.OnUpstream(jdwp.AppendCommandPacket(nil, nextID, m, sizes))
		nextID++
		deliver(r)
		return r
	}
	commandsOf := func(r Response) map[jdwp.Command]int {
		n := map[jdwp.Command]int{}
		for _, p := range r.Edict.Upstream {
			h, err := jdwp.ParseHeader(p)
			require.NoError(t, err)
			n[h.Cmd()]++
		}
		return n
	}
	ask(&jdwp.VMIDSizesCommand{})
	ask(&jdwp.VMResumeCommand{})
	ev, ok := vm.Stop(1, jdwp.SuspendPolicyAll)
	require.True(t, ok)
	r := s.OnDownstream(ev)
	require.Equal(t, map[jdwp.Command]int{jdwp.CmdVirtualMachineAllThreads: 1}, commandsOf(r),
		"first stop: no threads known yet")
	deliver(r)
	// The debugger shows its threads view: speculation of it is wanted.
	ask(&jdwp.VMAllThreadsCommand{})
	for _, id := range []jdwp.ThreadID{1, 2, 3} {
		ask(&jdwp.ThreadStatusCommand{Thread: id})
		ask(&jdwp.ThreadFrameCountCommand{Thread: id})
		ask(&jdwp.ThreadNameCommand{Thread: id})
	}

	ask(&jdwp.VMResumeCommand{})
	ev, ok = vm.Stop(2, jdwp.SuspendPolicyAll)
	require.True(t, ok)
	r = s.OnDownstream(ev)
	require.Equal(t, map[jdwp.Command]int{jdwp.CmdVirtualMachineAllThreads: 1, jdwp.CmdThreadReferenceStatus: 3,
		jdwp.CmdThreadReferenceFrameCount: 3, jdwp.CmdThreadReferenceName: 3}, commandsOf(r),
		"the last stop's threads, with the stop's first commands")
	deliver(r)
	hits := s.Stats().Hits
	for _, id := range []jdwp.ThreadID{1, 2, 3} {
		for _, m := range []jdwp.CommandMessage{&jdwp.ThreadStatusCommand{Thread: id},
			&jdwp.ThreadFrameCountCommand{Thread: id}, &jdwp.ThreadNameCommand{Thread: id}} {
			want := vm.Clone().Handle(jdwp.AppendCommandPacket(nil, nextID, m, sizes))
			r := s.OnUpstream(jdwp.AppendCommandPacket(nil, nextID, m, sizes))
			nextID++
			require.Empty(t, r.Edict.Upstream, "%s answered here", m.Command())
			require.Len(t, r.Edict.Downstream, 1)
			require.Equal(t, want, r.Edict.Downstream[0], "%s", m.Command())
		}
	}
	require.Equal(t, hits+9, s.Stats().Hits)
}

// TestStoppedThreadStatusAtAnEventThreadStop: with only the stopped thread
// suspended, its status goes out with the stop and answers the debugger;
// a running thread's status is always the VM's, asked when the debugger
// asks.
func TestStoppedThreadStatusAtAnEventThreadStop(t *testing.T) {
	sizes := jdwp.DefaultIDSizes
	vm := scachetest.NewModelVM(sizes)
	c := vm.AddClass("LThreads;", 1, false, false)
	for _, id := range []jdwp.ThreadID{1, 2} {
		vm.SetThread(id, []scachetest.ModelFrame{{Class: c.ID, Method: c.Methods[0], Index: 3}})
	}
	s, err := New(WithFamilies(FamilyThreads))
	require.NoError(t, err)
	deliver := func(r Response) {
		for _, p := range r.Edict.Upstream {
			s.OnDownstream(vm.Handle(p))
		}
	}
	nextID := uint32(1)
	ask := func(m jdwp.CommandMessage) Response {
		r := s.OnUpstream(jdwp.AppendCommandPacket(nil, nextID, m, sizes))
		nextID++
		return r
	}
	deliver(ask(&jdwp.VMIDSizesCommand{}))
	deliver(ask(&jdwp.VMResumeCommand{}))
	ev, ok := vm.Stop(1, jdwp.SuspendPolicyEventThread)
	require.True(t, ok)
	r := s.OnDownstream(ev)
	require.Len(t, r.Edict.Upstream, 1)
	h, err := jdwp.ParseHeader(r.Edict.Upstream[0])
	require.NoError(t, err)
	require.Equal(t, jdwp.CmdThreadReferenceStatus, h.Cmd())
	deliver(r)
	vm.Tick(3) // thread 2 runs on

	status := &jdwp.ThreadStatusCommand{Thread: 1}
	want := vm.Clone().Handle(jdwp.AppendCommandPacket(nil, nextID, status, sizes))
	r = ask(status)
	require.Empty(t, r.Edict.Upstream, "the stopped thread's status is answered here")
	require.Equal(t, [][]byte{want}, r.Edict.Downstream)

	r = ask(&jdwp.ThreadStatusCommand{Thread: 2})
	require.Len(t, r.Edict.Upstream, 1, "a running thread's status is asked of the VM")
	require.Empty(t, r.Edict.Downstream)
}

// TestAStopOfManyThreadsGoesOutInOneRound: with a dozen threads (an app's
// workers beside the VM's own) and a debugger that shows its threads view,
// the stop's whole speculation (its frames, name, this and values, the
// thread list, each thread's status, depth, top frame and name) is sent
// with the event: none of it waits for a reply to free a place in flight.
func TestAStopOfManyThreadsGoesOutInOneRound(t *testing.T) {
	sizes := jdwp.DefaultIDSizes
	vm := scachetest.NewModelVM(sizes)
	c := vm.AddClass("LThreads;", 2, false, false)
	const threads = 12
	for id := jdwp.ThreadID(1); id <= threads; id++ {
		vm.SetThread(id, []scachetest.ModelFrame{{Class: c.ID, Method: c.Methods[0], Index: 3}, {Class: c.ID, Method: c.Methods[1], Index: 5}})
	}
	s, err := New()
	require.NoError(t, err)
	// deliver lets the VM answer, in order, what goes up (the edicts'
	// packets are the Speculator's until its next call: copied).
	deliver := func(r Response) {
		var pending [][]byte
		keep := func(r Response) {
			for _, p := range r.Edict.Upstream {
				pending = append(pending, append([]byte(nil), p...))
			}
		}
		for keep(r); len(pending) > 0; {
			p := pending[0]
			pending = pending[1:]
			keep(s.OnDownstream(vm.Handle(p)))
		}
	}
	nextID := uint32(1)
	ask := func(m jdwp.CommandMessage) {
		deliver(s.OnUpstream(jdwp.AppendCommandPacket(nil, nextID, m, sizes)))
		nextID++
	}
	threadsView := func(stopped jdwp.ThreadID) {
		ask(&jdwp.VMAllThreadsCommand{})
		for id := jdwp.ThreadID(1); id <= threads; id++ {
			ask(&jdwp.ThreadStatusCommand{Thread: id})
			ask(&jdwp.ThreadFrameCountCommand{Thread: id})
			if id != stopped {
				ask(&jdwp.ThreadFramesCommand{Thread: id, StartFrame: 0, Length: 1})
			}
			ask(&jdwp.ThreadNameCommand{Thread: id})
		}
	}
	ask(&jdwp.VMIDSizesCommand{})
	for stop := jdwp.ThreadID(1); stop <= 3; stop++ {
		ask(&jdwp.VMResumeCommand{})
		ev, ok := vm.Stop(stop, jdwp.SuspendPolicyAll)
		require.True(t, ok)
		r := s.OnDownstream(ev)
		if stop == 3 {
			require.Greater(t, len(r.Edict.Upstream), 4*threads, "the whole stop, with the event")
			require.Zero(t, s.Stats().Held)
			sent := map[jdwp.Command]int{}
			for _, p := range r.Edict.Upstream {
				h, err := jdwp.ParseHeader(p)
				require.NoError(t, err)
				sent[h.Cmd()]++
			}
			require.Equal(t, threads, sent[jdwp.CmdThreadReferenceName], "every thread's name")
			require.Equal(t, threads, sent[jdwp.CmdThreadReferenceStatus], "every thread's status")
		}
		deliver(r)
		ask(&jdwp.ThreadFramesCommand{Thread: stop, StartFrame: 0, Length: -1})
		threadsView(stop)
	}
}
