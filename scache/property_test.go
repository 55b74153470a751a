package scache_test

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestMain runs the property tests with 500 random sessions each unless
// -rapid.checks says otherwise.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.checks" })
	if !set {
		_ = flag.Set("rapid.checks", "500")
	}
	os.Exit(m.Run())
}

var modelKeyable = []jdwp.Command{
	jdwp.CmdClassTypeSuperclass, jdwp.CmdReferenceTypeSourceFile, jdwp.CmdReferenceTypeSourceDebugExtension,
	jdwp.CmdReferenceTypeInterfaces, jdwp.CmdReferenceTypeMethodsWithGeneric, jdwp.CmdReferenceTypeSignature,
	jdwp.CmdReferenceTypeMethods, jdwp.CmdMethodLineTable, jdwp.CmdMethodIsObsolete,
	jdwp.CmdMethodVariableTableWithGeneric, jdwp.CmdMethodVariableTable,
}

// session is one random debugging session: a debugger script against the
// model VM through a Speculator, and a shadow model VM that answers the same
// debugger commands directly, as if there were no Speculator.
type session struct {
	t       *rapid.T
	h       *harness
	shadow  *scachetest.ModelVM
	want    map[uint32][]byte // what the debugger must receive for each of its commands
	events  int
	classes []*scachetest.ModelClass // every class ever loaded, unloaded ones too
	threads []jdwp.ObjectID
	nsig    int
	stopped jdwp.ObjectID // the thread of the last stop event
}

func newSession(t *rapid.T, opts []scache.Option) *session {
	sizes := jdwp.IDSizes{
		FieldID: rapid.IntRange(1, 8).Draw(t, "fieldSize"), MethodID: rapid.IntRange(3, 8).Draw(t, "methodSize"),
		ObjectID: rapid.IntRange(1, 8).Draw(t, "objectSize"), ReferenceTypeID: rapid.IntRange(2, 8).Draw(t, "refSize"),
		FrameID: rapid.IntRange(1, 8).Draw(t, "frameSize")}
	vm := scachetest.NewModelVM(sizes)
	s := &session{t: t, want: map[uint32][]byte{}}
	for i := rapid.IntRange(2, 6).Draw(t, "classes"); i > 0; i-- {
		s.classes = append(s.classes, vm.AddClass(s.newSignature(), rapid.IntRange(1, 3).Draw(t, "methods"),
			rapid.Bool().Draw(t, "interface"), rapid.Bool().Draw(t, "noSource")))
	}
	for i := rapid.IntRange(1, 3).Draw(t, "threads"); i > 0; i-- {
		thread := jdwp.ObjectID(len(s.threads) + 1)
		s.threads = append(s.threads, thread)
		vm.SetThread(thread, s.stack())
	}
	s.shadow = vm.Clone()
	s.h = newHarness(t, vm, opts...)
	// A debugger starts with the id sizes, which the Speculator needs.
	s.send(&jdwp.VMIDSizesCommand{})
	s.h.drain()
	return s
}

func (s *session) newSignature() string {
	s.nsig++
	// A few signatures repeat: class loaders load the same name more than once.
	return fmt.Sprintf("LC%d;", s.nsig%5)
}

func (s *session) stack() []scachetest.ModelFrame {
	var frames []scachetest.ModelFrame
	for i := rapid.IntRange(1, 6).Draw(s.t, "depth"); i > 0; i-- {
		c := rapid.SampledFrom(s.classes).Draw(s.t, "frameClass")
		m := rapid.SampledFrom(c.Methods).Draw(s.t, "frameMethod")
		if rapid.IntRange(0, 9).Draw(s.t, "obsolete") == 0 {
			m = 0
		}
		frames = append(frames, scachetest.ModelFrame{Class: c.ID, Method: m, Index: uint64(i)})
	}
	return frames
}

// send sends a debugger command, recording the shadow VM's answer to it.
func (s *session) send(cmd jdwp.CommandMessage) {
	id := s.h.nextID
	s.want[id] = s.shadow.Handle(jdwp.AppendCommandPacket(nil, id, cmd, s.shadow.Sizes))
	s.h.send(cmd)
}

func (s *session) keyableCommand() jdwp.CommandMessage {
	cmd := rapid.SampledFrom(modelKeyable).Draw(s.t, "cmd")
	c := rapid.SampledFrom(s.classes).Draw(s.t, "class")
	m := rapid.SampledFrom(append([]jdwp.MethodID{0x7777}, c.Methods...)).Draw(s.t, "method")
	switch cmd {
	case jdwp.CmdMethodLineTable:
		return &jdwp.MethodLineTableCommand{RefType: c.ID, Method: m}
	case jdwp.CmdMethodIsObsolete:
		return &jdwp.MethodIsObsoleteCommand{RefType: c.ID, Method: m}
	case jdwp.CmdMethodVariableTableWithGeneric:
		return &jdwp.MethodVariableTableWithGenericCommand{RefType: c.ID, Method: m}
	case jdwp.CmdMethodVariableTable:
		return &jdwp.MethodVariableTableCommand{RefType: c.ID, Method: m}
	case jdwp.CmdClassTypeSuperclass:
		return &jdwp.ClassTypeSuperclassCommand{RefType: c.ID}
	case jdwp.CmdReferenceTypeSourceFile:
		return &jdwp.RefTypeSourceFileCommand{RefType: c.ID}
	case jdwp.CmdReferenceTypeSourceDebugExtension:
		return &jdwp.RefTypeSourceDebugExtensionCommand{RefType: c.ID}
	case jdwp.CmdReferenceTypeInterfaces:
		return &jdwp.RefTypeInterfacesCommand{RefType: c.ID}
	case jdwp.CmdReferenceTypeMethodsWithGeneric:
		return &jdwp.RefTypeMethodsWithGenericCommand{RefType: c.ID}
	case jdwp.CmdReferenceTypeSignature:
		return &jdwp.RefTypeSignatureCommand{RefType: c.ID}
	default:
		return &jdwp.RefTypeMethodsCommand{RefType: c.ID}
	}
}

func (s *session) event(real, shadow []byte) {
	require.Equal(s.t, real, shadow, "the shadow VM stays in step")
	s.events++
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
		case 0, 1, 2:
			s.send(s.keyableCommand())
		case 3:
			s.send(&jdwp.ThreadFramesCommand{Thread: rapid.SampledFrom(s.threads).Draw(s.t, "thread"),
				StartFrame: 0, Length: int32(rapid.IntRange(-1, 1).Draw(s.t, "length"))})
		case 4:
			if rapid.Bool().Draw(s.t, "generic") {
				s.send(&jdwp.VMAllClassesWithGenericCommand{})
			} else {
				s.send(&jdwp.VMAllClassesCommand{})
			}
		case 5:
			s.send(&jdwp.VMVersionCommand{})
		case 6:
			c := rapid.SampledFrom(s.classes).Draw(s.t, "redefined")
			s.send(&jdwp.VMRedefineClassesCommand{Classes: []jdwp.ClassDef{{RefType: c.ID, ClassFile: []byte{1}}}})
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

// thread draws a thread as a debugger does: mostly the one that stopped
// last, else any, now and then one that does not exist.
func (s *session) thread() jdwp.ObjectID {
	switch n := rapid.IntRange(0, 15).Draw(s.t, "whichThread"); {
	case n == 0:
		return 0x999
	case n < 8 && s.stopped != 0:
		return s.stopped
	}
	return rapid.SampledFrom(s.threads).Draw(s.t, "thread")
}

// frame draws a frame id of a thread as the debugger would know it: mostly
// valid now, sometimes from an earlier suspension.
func (s *session) frame(t jdwp.ObjectID) jdwp.FrameID {
	th := s.shadow.Thread(t)
	if th == nil {
		return 1
	}
	gen := th.Generation
	if rapid.IntRange(0, 7).Draw(s.t, "staleFrame") == 0 && gen > 0 {
		gen--
	}
	depth := 0 // mostly the top frame, as a debugger's variables view
	if rapid.IntRange(0, 2).Draw(s.t, "deeper") == 0 {
		depth = rapid.IntRange(0, len(th.Frames)).Draw(s.t, "depth")
	}
	return jdwp.FrameID(uint64(gen)<<16 | uint64(depth))
}

// object draws an object the debugger has seen: a local, a this, or a made-up id.
func (s *session) object() jdwp.ObjectID {
	var ids []jdwp.ObjectID
	if th := s.shadow.Thread(s.stopped); th != nil && len(th.Frames) > 0 && rapid.Bool().Draw(s.t, "topObject") {
		ids = append(ids, th.Frames[0].This)
		for _, v := range th.Frames[0].Locals {
			if v.Tag.IsObject() && v.Bits != 0 {
				ids = append(ids, v.ObjectID())
			}
		}
		return rapid.SampledFrom(ids).Draw(s.t, "object")
	}
	for _, th := range s.shadow.Threads() {
		for _, f := range th.Frames {
			ids = append(ids, f.This)
			for _, v := range f.Locals {
				if v.Tag.IsObject() {
					ids = append(ids, v.ObjectID())
				}
			}
		}
	}
	ids = append(ids, 0x4242)
	return rapid.SampledFrom(ids).Draw(s.t, "object")
}

// stateCommand sends a command about threads, frames or objects, most of
// them the ones a debugger asks at a stop.
func (s *session) stateCommand() {
	t := s.thread()
	switch rapid.IntRange(0, 10).Draw(s.t, "stateCmd") {
	case 0:
		s.send(&jdwp.ThreadFramesCommand{Thread: t, StartFrame: 0, Length: -1})
	case 1:
		s.send(&jdwp.ThreadFramesCommand{Thread: t, StartFrame: int32(rapid.IntRange(0, 3).Draw(s.t, "start")),
			Length: int32(rapid.IntRange(-1, 3).Draw(s.t, "len"))})
	case 2:
		s.send(&jdwp.ThreadFrameCountCommand{Thread: t})
	case 3:
		s.send(&jdwp.ThreadNameCommand{Thread: t})
	case 4:
		s.send(&jdwp.ThreadStatusCommand{Thread: t})
	case 5:
		s.send(&jdwp.FrameThisObjectCommand{Thread: t, Frame: s.frame(t)})
	case 6:
		// The variables a debugger shows, computed as JDI does, or a random slot.
		f := s.frame(t)
		var slots []jdwp.SlotRequest
		if th := s.shadow.Thread(t); th != nil && int(uint64(f)&0xffff) < len(th.Frames) && rapid.Bool().Draw(s.t, "visible") {
			fr := th.Frames[uint64(f)&0xffff]
			slots = scache.VisibleSlots(scachetest.ModelVariableTable(fr.Method), fr.Index)
		} else {
			slots = []jdwp.SlotRequest{{Slot: int32(rapid.IntRange(0, 5).Draw(s.t, "slot")), Tag: jdwp.TagInt}}
		}
		s.send(&jdwp.FrameGetValuesCommand{Thread: t, Frame: f, Slots: slots})
	case 7:
		s.send(&jdwp.ObjectRefReferenceTypeCommand{Object: s.object()})
	case 8:
		s.send(&jdwp.StringRefValueCommand{Object: s.object()})
	case 9:
		s.send(&jdwp.VMAllThreadsCommand{})
	default:
		s.sendRaw(jdwp.CmdObjectReferenceGetValues, func(w *jdwp.Writer) {
			w.ObjectID(s.object())
			w.Int32(2)
			w.FieldID(1)
			w.FieldID(2)
		})
	}
}

// sendRaw sends a command without a typed message, recording the shadow's answer.
func (s *session) sendRaw(cmd jdwp.Command, params func(w *jdwp.Writer)) {
	w := jdwp.NewWriter(s.shadow.Sizes)
	params(w)
	id := s.h.nextID
	s.h.nextID++
	p := jdwp.AppendCommand(nil, id, cmd, w.Bytes())
	s.want[id] = s.shadow.Handle(p)
	s.h.sendRaw(p)
}

// control lets threads run or changes state: resumes, suspends, SetValues,
// invokes; and, when the VM has nothing queued, threads running for a tick
// and stops at breakpoints with each suspend policy.
func (s *session) control() {
	t := s.thread()
	switch rapid.IntRange(0, 10).Draw(s.t, "control") {
	case 0:
		s.send(&jdwp.VMResumeCommand{})
	case 1:
		s.sendRaw(jdwp.CmdThreadReferenceResume, func(w *jdwp.Writer) { w.ObjectID(t) })
	case 2:
		s.send(&jdwp.VMSuspendCommand{})
	case 3:
		s.sendRaw(jdwp.CmdThreadReferenceSuspend, func(w *jdwp.Writer) { w.ObjectID(t) })
	case 4:
		// Change a variable the debugger shows (or slot 0).
		f := s.frame(t)
		slot := int32(0)
		if th := s.shadow.Thread(t); th != nil && int(uint64(f)&0xffff) < len(th.Frames) {
			fr := th.Frames[uint64(f)&0xffff]
			if vis := scache.VisibleSlots(scachetest.ModelVariableTable(fr.Method), fr.Index); len(vis) > 0 {
				slot = rapid.SampledFrom(vis).Draw(s.t, "setSlot").Slot
			}
		}
		s.sendRaw(jdwp.CmdStackFrameSetValues, func(w *jdwp.Writer) {
			w.ObjectID(t)
			w.FrameID(f)
			w.Int32(1)
			w.Int32(slot)
			w.Value(jdwp.IntValue(int32(rapid.IntRange(-5, 5).Draw(s.t, "newValue"))))
		})
	case 5:
		obj := s.object()
		s.sendRaw(jdwp.CmdObjectReferenceSetValues, func(w *jdwp.Writer) {
			w.ObjectID(obj)
			w.Int32(1)
			w.FieldID(1)
			w.Int32(int32(rapid.IntRange(-5, 5).Draw(s.t, "newField")))
		})
	case 6:
		c := rapid.SampledFrom(s.classes).Draw(s.t, "invokedClass")
		s.sendRaw(jdwp.CmdClassTypeInvokeMethod, func(w *jdwp.Writer) {
			w.ReferenceTypeID(c.ID)
			w.ObjectID(t)
			w.MethodID(c.Methods[0])
			w.Int32(0)
			w.Int32(0)
		})
	case 7, 8:
		if s.quiet() {
			seed := rapid.Uint64().Draw(s.t, "tick")
			s.h.vm.Tick(seed)
			s.shadow.Tick(seed)
		}
	default:
		if !s.quiet() {
			return
		}
		// A running thread reaches a breakpoint.
		for _, th := range s.shadow.Threads() {
			if th.Suspends == 0 && len(th.Frames) > 0 {
				t = th.ID
				break
			}
		}
		policy := jdwp.SuspendPolicy(rapid.IntRange(0, 2).Draw(s.t, "policy"))
		ev, ok := s.h.vm.Stop(t, policy)
		shadowEv, shadowOK := s.shadow.Stop(t, policy)
		require.Equal(s.t, ok, shadowOK, "the shadow VM stays in step")
		if ok {
			s.stopped = t
			s.event(ev, shadowEv)
		}
	}
}

func (s *session) check() {
	got := map[uint32]int{}
	events := 0
	for _, p := range s.h.toDebugger {
		h, err := jdwp.ParseHeader(p)
		require.NoError(s.t, err)
		require.False(s.t, scache.IsSyntheticID(h.ID), "a synthetic id reached the debugger: %v", h)
		if !h.IsReply() {
			events++
			continue
		}
		got[h.ID]++
		want, ok := s.want[h.ID]
		require.True(s.t, ok, "a reply to id %d, which the debugger never sent", h.ID)
		require.Equal(s.t, want, p, "reply to id %d", h.ID)
	}
	for id := range s.want {
		require.Equal(s.t, 1, got[id], "replies to id %d", id)
	}
	require.Equal(s.t, s.events, events, "every event reaches the debugger once")
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
	require.Equal(s.t, int64(len(s.want)), st.Hits+st.Belayed+int64(len(forwarded)))
}

// TestTransparency is the core promise: whatever the debugger does, it gets
// exactly one reply per command, with its own id, byte-identical to what the
// VM would have answered without the Speculator, and never a synthetic id.
func TestTransparency(t *testing.T) {
	modes := map[string][]scache.Option{
		"default":     nil,
		"classic":     {scache.Classic()},
		"tiny cache":  {scache.WithCacheBytes(600)},
		"no belay":    {scache.WithBelay(false)},
		"unbounded":   {scache.WithMaxInFlight(0), scache.WithMaxFrames(2)},
		"one at once": {scache.WithMaxInFlight(1)},
	}
	for name, opts := range modes {
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				s := newSession(t, opts)
				s.run()
				s.check()
			})
		})
	}
}
