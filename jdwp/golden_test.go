package jdwp_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

// goldenDir holds packets captured from a real HotSpot 17 JDWP agent by
// TestRealHotSpotSession with -update (see testdata/hotspot17/README.md).
var goldenDir = filepath.Join("testdata", "hotspot17")

func golden(t *testing.T, name string) (jdwp.Header, []byte) {
	t.Helper()
	p, err := os.ReadFile(filepath.Join(goldenDir, name+".bin"))
	require.NoError(t, err)
	h, err := jdwp.ParseHeader(p)
	require.NoError(t, err)
	return h, jdwp.Data(p)
}

func goldenComposite(t *testing.T, name string) *jdwp.Composite {
	t.Helper()
	h, data := golden(t, name)
	require.False(t, h.IsReply())
	require.Equal(t, jdwp.CmdEventComposite, h.Cmd())
	var c jdwp.Composite
	require.NoError(t, jdwp.Unmarshal(data, jdwp.DefaultIDSizes, &c))
	return &c
}

func goldenReply(t *testing.T, name string, m jdwp.Message) {
	t.Helper()
	h, data := golden(t, name)
	require.True(t, h.IsReply())
	require.Equal(t, jdwp.ErrNone, h.ErrorCode)
	require.NoError(t, jdwp.Unmarshal(data, jdwp.DefaultIDSizes, m))
	// Re-encoding gives back the VM's bytes exactly.
	require.Equal(t, data, jdwp.Marshal(m, jdwp.DefaultIDSizes))
}

func TestGoldenHotSpot17(t *testing.T) {
	start := goldenComposite(t, "event_vmstart")
	require.Equal(t, jdwp.SuspendPolicyAll, start.SuspendPolicy)
	require.Len(t, start.Events, 1)
	vmStart := start.Events[0].(*jdwp.ThreadEvent)
	require.Equal(t, jdwp.EventVMStart, vmStart.EventKind)
	require.Equal(t, int32(0), vmStart.RequestID)
	require.NotZero(t, vmStart.Thread)

	var v jdwp.VMVersionReply
	goldenReply(t, "reply_version", &v)
	require.Equal(t, int32(17), v.JDWPMajor)
	require.Equal(t, int32(0), v.JDWPMinor)
	require.Equal(t, "OpenJDK 64-Bit Server VM", v.VMName)
	require.Contains(t, v.VMVersion, "17.")

	var sizes jdwp.VMIDSizesReply
	goldenReply(t, "reply_idsizes", &sizes)
	require.Equal(t, jdwp.DefaultIDSizes, sizes.Sizes)

	prep := goldenComposite(t, "event_classprepare")
	cp := prep.Events[0].(*jdwp.ClassPrepareEvent)
	require.Equal(t, "LDebuggee;", cp.Signature)
	require.Equal(t, jdwp.TypeTagClass, cp.TypeTag)
	require.Equal(t, jdwp.ClassStatusVerified|jdwp.ClassStatusPrepared, cp.Status)

	methods := jdwp.RefTypeMethodsReply{Generic: true}
	goldenReply(t, "reply_methodswithgeneric", &methods)
	names := map[string]string{}
	for _, m := range methods.Methods {
		names[m.Name] = m.Signature
	}
	require.Equal(t, map[string]string{"<init>": "(Ljava/lang/String;)V", "recurse": "(I)I", "marker": "(I)I",
		"main": "([Ljava/lang/String;)V", "lambda$main$0": "()V", "inTurns": "(LDebuggee;II)V", "toString": "()Ljava/lang/String;"}, names)

	var lines jdwp.MethodLineTableReply
	goldenReply(t, "reply_linetable", &lines)
	markerLine := int32(jvmtest.Line("Debuggee.java", "marker"))
	require.Equal(t, markerLine, lines.Lines[0].LineNumber, "marker's first line")
	require.Equal(t, int64(0), lines.Start)

	bp := goldenComposite(t, "event_breakpoint")
	hit := bp.Events[0].(*jdwp.LocationEvent)
	require.Equal(t, jdwp.EventBreakpoint, hit.EventKind)
	require.Equal(t, cp.TypeID, hit.Location.Class)

	var frames jdwp.ThreadFramesReply
	goldenReply(t, "reply_frames", &frames)
	require.Len(t, frames.Frames, 44)
	require.Equal(t, hit.Location, frames.Frames[0].Location)

	var src jdwp.StringReply
	goldenReply(t, "reply_sourcefile", &src)
	require.Equal(t, "Debuggee.java", src.Value)
}
