package jdwp_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/hotspot17 from a real VM")

// session is a tiny debugger built on jdwp.Conn for the integration test. It
// records the packets it receives when -update is set.
type session struct {
	t   *testing.T
	ctx context.Context
	c   *jdwp.Conn
}

func (s *session) call(name string, m jdwp.CommandMessage, out jdwp.Message) {
	s.t.Helper()
	sizes := s.c.IDSizes()
	p, err := s.c.Send(s.ctx, m.Command(), jdwp.Marshal(m, sizes))
	require.NoError(s.t, err, "%s", m.Command())
	h, err := jdwp.ParseHeader(p)
	require.NoError(s.t, err)
	require.Equal(s.t, jdwp.ErrNone, h.ErrorCode, "%s", m.Command())
	if out != nil {
		require.NoError(s.t, jdwp.Unmarshal(jdwp.Data(p), sizes, out), "%s", m.Command())
	}
	s.record(name, p)
}

func (s *session) event(name string) *jdwp.Composite {
	s.t.Helper()
	select {
	case p, ok := <-s.c.Events():
		require.True(s.t, ok, "connection ended: %v", s.c.Err())
		h, err := jdwp.ParseHeader(p)
		require.NoError(s.t, err)
		require.Equal(s.t, jdwp.CmdEventComposite, h.Cmd())
		var comp jdwp.Composite
		require.NoError(s.t, jdwp.Unmarshal(jdwp.Data(p), s.c.IDSizes(), &comp))
		s.record(name, p)
		return &comp
	case <-s.ctx.Done():
		s.t.Fatalf("no %s event: %v", name, s.ctx.Err())
		return nil
	}
}

func (s *session) record(name string, packet []byte) {
	if !*updateGolden || name == "" {
		return
	}
	require.NoError(s.t, os.MkdirAll(goldenDir, 0o755))
	require.NoError(s.t, os.WriteFile(filepath.Join(goldenDir, name+".bin"), packet, 0o644))
}

// TestRealHotSpotSession debugs a real HotSpot VM over JDWP: handshake,
// Version, IDSizes, AllClasses, a breakpoint set through a ClassPrepare
// event, the Breakpoint composite, then Frames, SourceFile and LineTable of
// the stopped frame, checked against the debuggee's source.
func TestRealHotSpotSession(t *testing.T) {
	vm := jvmtest.Start(t, "Debuggee", "1")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := jdwp.Dial(ctx, vm.Addr)
	require.NoError(t, err)
	defer c.Close()
	s := &session{t: t, ctx: ctx, c: c}

	start := s.event("event_vmstart")
	require.Len(t, start.Events, 1)
	require.Equal(t, jdwp.EventVMStart, start.Events[0].Kind())

	var version jdwp.VMVersionReply
	s.call("reply_version", &jdwp.VMVersionCommand{}, &version)
	require.Equal(t, int32(17), version.JDWPMajor)
	require.Contains(t, version.VMName, "VM")

	var sizes jdwp.VMIDSizesReply
	s.call("reply_idsizes", &jdwp.VMIDSizesCommand{}, &sizes)
	require.NoError(t, sizes.Sizes.Validate())
	c.SetIDSizes(sizes.Sizes)

	var all jdwp.VMAllClassesReply
	s.call("", &jdwp.VMAllClassesCommand{}, &all)
	require.True(t, hasSignature(all.Classes, "Ljava/lang/Object;"), "AllClasses lacks java.lang.Object")

	var prepareReq jdwp.IntReply
	s.call("", &jdwp.EventRequestSetCommand{EventKind: jdwp.EventClassPrepare, SuspendPolicy: jdwp.SuspendPolicyAll,
		Modifiers: []jdwp.Modifier{&jdwp.ClassMatchModifier{Pattern: "Debuggee"}}}, &prepareReq)
	s.call("", &jdwp.VMResumeCommand{}, nil)

	prep := s.event("event_classprepare")
	require.Len(t, prep.Events, 1)
	cp, ok := prep.Events[0].(*jdwp.ClassPrepareEvent)
	require.True(t, ok, "got %T", prep.Events[0])
	require.Equal(t, "LDebuggee;", cp.Signature)
	require.Equal(t, prepareReq.Value, cp.RequestID)
	class := cp.TypeID

	methods := jdwp.RefTypeMethodsReply{Generic: true}
	s.call("reply_methodswithgeneric", &jdwp.RefTypeMethodsWithGenericCommand{RefType: class}, &methods)
	marker := findMethod(t, methods.Methods, "marker")
	recurse := findMethod(t, methods.Methods, "recurse")

	var lines jdwp.MethodLineTableReply
	s.call("reply_linetable", lineTable(class, marker), &lines)
	markerLine := int32(jvmtest.Line("Debuggee.java", "marker"))
	index, ok := codeIndexOf(lines, markerLine)
	require.True(t, ok, "line %d not in marker's line table %+v", markerLine, lines)

	var bpReq jdwp.IntReply
	loc := jdwp.Location{TypeTag: jdwp.TypeTagClass, Class: class, Method: marker, Index: index}
	s.call("", &jdwp.EventRequestSetCommand{EventKind: jdwp.EventBreakpoint, SuspendPolicy: jdwp.SuspendPolicyAll,
		Modifiers: []jdwp.Modifier{&jdwp.LocationOnlyModifier{Location: loc}}}, &bpReq)
	s.call("", &jdwp.VMResumeCommand{}, nil)

	bp := s.event("event_breakpoint")
	require.Equal(t, jdwp.SuspendPolicyAll, bp.SuspendPolicy)
	require.Len(t, bp.Events, 1)
	hit, ok := bp.Events[0].(*jdwp.LocationEvent)
	require.True(t, ok, "got %T", bp.Events[0])
	require.Equal(t, jdwp.EventBreakpoint, hit.EventKind)
	require.Equal(t, bpReq.Value, hit.RequestID)
	require.Equal(t, loc, hit.Location)

	var frames jdwp.ThreadFramesReply
	s.call("reply_frames", &jdwp.ThreadFramesCommand{Thread: hit.Thread, StartFrame: 0, Length: -1}, &frames)
	// marker, Swappable.through, recurse(0..40) = 41 frames, main.
	require.Len(t, frames.Frames, 44)
	require.Equal(t, loc, frames.Frames[0].Location)
	require.NotEqual(t, class, frames.Frames[1].Location.Class, "Swappable.through")
	for _, f := range frames.Frames[2:43] {
		require.Equal(t, recurse, f.Location.Method)
	}

	var src jdwp.StringReply
	s.call("reply_sourcefile", &jdwp.RefTypeSourceFileCommand{RefType: class}, &src)
	require.Equal(t, "Debuggee.java", src.Value)

	var recLines jdwp.MethodLineTableReply
	s.call("", lineTable(class, recurse), &recLines)
	require.Equal(t, int32(jvmtest.Line("Debuggee.java", "recurse")), lineAt(recLines, frames.Frames[3].Location.Index))
	require.Equal(t, markerLine, lineAt(lines, frames.Frames[0].Location.Index))

	var count jdwp.IntReply
	s.call("", &jdwp.ThreadFrameCountCommand{Thread: hit.Thread}, &count)
	require.Equal(t, int32(44), count.Value)

	s.call("", &jdwp.VMDisposeCommand{}, nil)
	require.True(t, vm.Wait(30*time.Second), "VM did not finish after Dispose")
	require.Contains(t, vm.Output(), "debuggee done")
}

func hasSignature(classes []jdwp.ClassInfo, sig string) bool {
	for _, c := range classes {
		if c.Signature == sig {
			return true
		}
	}
	return false
}

func findMethod(t *testing.T, methods []jdwp.MethodInfo, name string) jdwp.MethodID {
	t.Helper()
	for _, m := range methods {
		if m.Name == name {
			return m.Method
		}
	}
	t.Fatalf("no method %q", name)
	return 0
}

func lineTable(class jdwp.ReferenceTypeID, method jdwp.MethodID) *jdwp.MethodLineTableCommand {
	return &jdwp.MethodLineTableCommand{RefType: class, Method: method}
}

func codeIndexOf(lt jdwp.MethodLineTableReply, line int32) (uint64, bool) {
	for _, l := range lt.Lines {
		if l.LineNumber == line {
			return l.CodeIndex, true
		}
	}
	return 0, false
}

// lineAt returns the line of the last entry at or before index, as debuggers do.
func lineAt(lt jdwp.MethodLineTableReply, index uint64) int32 {
	best, line := uint64(0), int32(-1)
	for _, l := range lt.Lines {
		if l.CodeIndex <= index && l.CodeIndex >= best {
			best, line = l.CodeIndex, l.LineNumber
		}
	}
	return line
}
