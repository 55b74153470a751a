package scache_test

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestMain runs the property tests with 500 random sessions each unless
// -rapid.checks says otherwise, and then removes what jvmtest compiled.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.checks" })
	if !set {
		_ = flag.Set("rapid.checks", "500")
	}
	os.Exit(jvmtest.Main(m))
}

// session is one random debugging session: a debugger script against the
// model VM through a Speculator, and a shadow model VM that answers the same
// debugger commands directly, as if there were no Speculator. Events happen
// only while the VM has nothing queued, so the shadow sees them at the same
// point; race_test.go lifts that.
type session struct {
	*script
	h       *harness
	shadow  *scachetest.ModelVM
	want    map[uint32][]byte // what the debugger must receive for each of its commands
	sets    map[uint32]bool   // the debugger's EventRequest.Set commands, by id
	events  [][]byte          // the events the VM sent, in order
	asked   map[uint32][]byte // the debugger's commands, by id
	history shadowHistory
}

func newSession(t *rapid.T, opts []scache.Option) *session {
	vm, d := newWorld(t)
	s := &session{script: d, want: map[uint32][]byte{}, sets: map[uint32]bool{}, asked: map[uint32][]byte{}}
	s.shadow = vm.Clone()
	s.view = s.shadow
	s.h = newHarness(t, vm, opts...)
	s.history.on = sequentialMode(opts)
	s.emit = func(p []byte) {
		s.asked[jdwp.PacketID(p)] = p
		s.history.command(p, s.shadow)
		s.want[jdwp.PacketID(p)] = s.shadow.Handle(p)
		s.history.answered(p, s.shadow)
		if h, err := jdwp.ParseHeader(p); err == nil && h.Cmd() == jdwp.CmdEventRequestSet {
			s.sets[h.ID] = true
		}
		s.h.sendRaw(p)
	}
	// A debugger starts with the id sizes, which the Speculator needs, and
	// its first event requests.
	s.send(&jdwp.VMIDSizesCommand{})
	for i := rapid.IntRange(0, 3).Draw(t, "firstRequests"); i > 0; i-- {
		s.send(&jdwp.EventRequestSetCommand{EventKind: jdwp.EventClassPrepare, SuspendPolicy: jdwp.SuspendPolicyAll})
	}
	s.h.drain()
	return s
}

func (s *session) event(real, shadow []byte) {
	require.Equal(s.t, real, shadow, "the shadow VM stays in step")
	s.events = append(s.events, real)
	s.history.event(s.shadow)
	s.h.event(real)
}

func (s *session) run() {
	steps := rapid.IntRange(10, 120).Draw(s.t, "steps")
	for i := 0; i < steps; i++ {
		switch a := rapid.IntRange(0, 17).Draw(s.t, "action"); {
		case a >= 13:
			s.control()
		case a >= 10:
			s.stateCommand()
		}
		switch rapid.IntRange(0, 9).Draw(s.t, "action") {
		case 0, 1, 2, 3, 4:
			s.metadataCommand()
		case 7:
			// Class loading and unloading happen while the VM runs; here, only when
			// it has nothing queued, so the shadow sees them at the same point.
			if !s.quiet() {
				continue
			}
			if rapid.Bool().Draw(s.t, "prepare") {
				sig := s.newSignature()
				methods := rapid.IntRange(1, 3).Draw(s.t, "methods")
				c, ev := s.h.vm.Prepare(sig, methods)
				_, shadowEv := s.shadow.Prepare(sig, methods)
				s.classes = append(s.classes, c)
				s.event(ev, shadowEv)
			} else {
				// Mostly a loaded class's signature, sometimes one never seen.
				sig := rapid.SampledFrom(s.classes).Draw(s.t, "unloaded").Signature
				if rapid.IntRange(0, 4).Draw(s.t, "unknownSignature") == 0 {
					sig = "LNeverLoaded;"
				}
				s.event(s.h.vm.Unload(sig), s.shadow.Unload(sig))
			}
		case 8:
			s.stateCommand()
		case 9:
			s.control()
		default:
			for n := rapid.IntRange(1, 4).Draw(s.t, "vmSteps"); n > 0 && s.h.step(); n-- {
			}
		}
	}
	s.h.drain()
}

// quiet lets the VM answer everything queued, most of the time, and reports
// whether it has nothing queued: only then do threads run and classes load,
// so that the shadow sees it at the same point.
func (s *session) quiet() bool {
	if rapid.IntRange(0, 3).Draw(s.t, "wait") > 0 {
		s.h.drain()
	}
	return len(s.h.vmQueue) == 0
}

// control sends a control command or, when the VM has nothing queued, lets
// threads run for a tick or a running thread stop at a breakpoint with each
// suspend policy.
func (s *session) control() {
	if s.controlCommand() || !s.quiet() {
		return
	}
	if rapid.Bool().Draw(s.t, "tickNotStop") {
		seed := rapid.Uint64().Draw(s.t, "tick")
		s.h.vm.Tick(seed)
		s.shadow.Tick(seed)
		s.history.dirty = true
		if rapid.IntRange(0, 5).Draw(s.t, "skipRequestIDs") == 0 {
			// Requests the debugger did not make take ids: the order breaks.
			s.h.vm.SkipRequestIDs(1)
			s.shadow.SkipRequestIDs(1)
		}
		return
	}
	t := s.runningThread(s.shadow, s.thread())
	s.newThis(t)
	policy := jdwp.SuspendPolicy(rapid.IntRange(0, 2).Draw(s.t, "policy"))
	ev, ok := s.h.vm.Stop(t, policy)
	shadowEv, shadowOK := s.shadow.Stop(t, policy)
	require.Equal(s.t, ok, shadowOK, "the shadow VM stays in step")
	if ok {
		s.stopped = t
		s.event(ev, shadowEv)
		if rapid.Bool().Draw(s.t, "watchAtStop") {
			// As a debugger: the frames and the top frame's this, and once
			// they are answered, what its views show.
			s.send(&jdwp.ThreadFramesCommand{Thread: t, StartFrame: 0, Length: -1})
			s.send(&jdwp.FrameThisObjectCommand{Thread: t, Frame: s.frame(t)})
			s.h.drain()
			s.watch()
		}
		if rapid.Bool().Draw(s.t, "stepAtStop") {
			s.stepRequest(t)
		}
	}
}

// newThis lets thread t, before it stops, go on to its method on a new
// object most of the time (a loop calling it on one object after another),
// now and then of another class (a subclass): the object gets the id after
// the last object's, in both VMs; half the time back at the same line; and
// its string variables, mostly, new strings.
func (s *session) newThis(t jdwp.ObjectID) {
	th, shadow := s.h.vm.Thread(t), s.shadow.Thread(t)
	if th == nil || shadow == nil || len(th.Frames) == 0 || th.Suspends > 0 {
		return
	}
	switch rapid.IntRange(0, 5).Draw(s.t, "newThis") {
	case 0, 1:
		return // the same object
	case 2:
		class := rapid.SampledFrom(s.classes).Draw(s.t, "thisClass").ID
		th.Frames[0].This, shadow.Frames[0].This = s.h.vm.NewHolder(class), s.shadow.NewHolder(class)
	default:
		class := th.Frames[0].Class
		th.Frames[0].This, shadow.Frames[0].This = s.h.vm.NewHolder(class), s.shadow.NewHolder(class)
	}
	require.Equal(s.t, th.Frames[0].This, shadow.Frames[0].This, "the shadow VM stays in step")
	if rapid.Bool().Draw(s.t, "loopBack") {
		// A loop: the thread is back at the line it stopped at before.
		th.Frames[0].Index, shadow.Frames[0].Index = loopIndex, loopIndex
	}
	s.newStrings(th.Frames[0], shadow.Frames[0])
}

// loopIndex is the code index a looping thread comes back to.
const loopIndex = 10

// newStrings gives, now and then, the string variables of a top frame a
// new string each (a loop building one at each pass), in both VMs.
func (s *session) newStrings(top, shadow scachetest.ModelFrame) {
	var slots []int32
	for slot, v := range top.Locals {
		if v.Tag == jdwp.TagString {
			slots = append(slots, slot)
		}
	}
	sort.Slice(slots, func(i, j int) bool { return slots[i] < slots[j] })
	for _, slot := range slots {
		if rapid.IntRange(0, 2).Draw(s.t, "newString") == 0 {
			continue
		}
		text := fmt.Sprintf("pass-%d", slot)
		top.Locals[slot] = jdwp.ObjectValue(jdwp.TagString, s.h.vm.NewString(text))
		shadow.Locals[slot] = jdwp.ObjectValue(jdwp.TagString, s.shadow.NewString(text))
		require.Equal(s.t, top.Locals[slot], shadow.Locals[slot], "the shadow VM stays in step")
	}
}

func (s *session) check() {
	got := map[uint32]int{}
	names := newRenaming(s.t)
	seq := sequentialCheck{h: &s.history}
	var events [][]byte
	for _, p := range s.h.toDebugger {
		h, err := jdwp.ParseHeader(p)
		require.NoError(s.t, err)
		require.False(s.t, scache.IsSyntheticID(h.ID), "a synthetic id reached the debugger: %v", h)
		if !h.IsReply() {
			events = append(events, p)
			seq.sawEvent()
			continue
		}
		got[h.ID]++
		want, ok := s.want[h.ID]
		require.True(s.t, ok, "a reply to id %d, which the debugger never sent", h.ID)
		if s.sets[h.ID] && names.requestIDs(want, p) {
			continue
		}
		cmd := jdwp.Header{}
		_ = cmd.Parse(s.asked[h.ID])
		if seq.sawReply(cmd.Cmd(), s.asked[h.ID], p, want) {
			continue
		}
		require.Equal(s.t, want, p, "reply to id %d", h.ID)
	}
	for id := range s.want {
		require.Equal(s.t, 1, got[id], "replies to id %d", id)
	}
	require.Len(s.t, events, len(s.events), "every event reaches the debugger once")
	for i, ev := range s.events {
		require.Equal(s.t, names.events(ev, s.h.vm.Sizes), events[i], "event %d, with the debugger's request ids", i)
	}
	forwarded := map[uint32]int{}
	for _, p := range s.h.toVM {
		if id := jdwp.PacketID(p); !scache.IsSyntheticID(id) {
			forwarded[id]++
			require.LessOrEqual(s.t, forwarded[id], 1, "command %d forwarded twice", id)
		}
	}
	st := s.h.s.Stats()
	require.True(s.t, st.Enabled, "valid traffic never disables: %v", s.h.s.DisabledReason())
	require.Zero(s.t, st.Held)
	require.Zero(s.t, st.InFlight)
	require.LessOrEqual(s.t, st.SyntheticUsed+st.Wasted, st.Synthetic, "used and wasted are apart")
	require.Equal(s.t, int64(len(s.want)), st.Hits+st.Belayed+int64(len(forwarded)))
}

// propertyModes are the Speculator configurations the property tests run:
// every policy that caches, with belay off, a small cache, no bound on
// commands in flight, one command in flight, and answering ahead.
var propertyModes = map[string][]scache.Option{
	"default":    nil,
	"classic":    {scache.Classic()},
	"tiny cache": {scache.WithCacheBytes(600)},
	"no belay":   {scache.WithBelay(false)},
	// Belay off with no state speculated: the debugger's own asks are in
	// flight across its writes, and only invalidation keeps their replies
	// out of the cache (a thread renamed while its Name was in flight).
	"no belay, metadata only": {scache.WithBelay(false), scache.WithFamilies(scache.FamilyClass)},
	"unbounded":               {scache.WithMaxInFlight(0), scache.WithMaxFrames(2)},
	"one at once":             {scache.WithMaxInFlight(1)},
	"ahead":                   {scache.WithAnswerAhead(true)},
	"linearizable":            {scache.WithConsistency(scache.Linearizable)},
	// A clock that makes the VM look slow (each reading a millisecond
	// later): the cost model weighs and bounds what is sent, which must
	// never change what is answered.
	"slow VM": {scache.WithClock(tickingClock())},
}

// tickingClock returns a clock that moves a millisecond at each reading.
func tickingClock() func() time.Time {
	t := time.Unix(1000, 0)
	return func() time.Time {
		t = t.Add(time.Millisecond)
		return t
	}
}

// TestTransparency is the core promise: whatever the debugger does, it gets
// exactly one reply per command, with its own id, byte-identical to what the
// VM would have answered without the Speculator, and never a synthetic id.
func TestTransparency(t *testing.T) {
	for name, opts := range propertyModes {
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				s := newSession(t, opts)
				s.run()
				s.check()
			})
		})
	}
}
