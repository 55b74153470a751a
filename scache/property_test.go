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
		quiet := len(s.h.vmQueue) == 0
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
			if !quiet {
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
		default:
			for n := rapid.IntRange(1, 4).Draw(s.t, "vmSteps"); n > 0 && s.h.step(); n-- {
			}
		}
	}
	s.h.drain()
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
