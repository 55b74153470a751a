package jvmtest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/stretchr/testify/require"
)

// TestDriverDirect runs the JDI driver straight against a real VM and checks
// the transcript against the debuggee's source.
func TestDriverDirect(t *testing.T) {
	vm := jvmtest.Start(t, "Debuggee", "2")
	transcript, elapsed := jvmtest.RunDriver(t, vm.Addr, jvmtest.DriverOptions{Stops: 2})
	require.Positive(t, elapsed)
	marker := jvmtest.Line("Debuggee.java", "marker")
	require.Contains(t, transcript, fmt.Sprintf("breakpoint at Debuggee.marker(Debuggee.java:%d)", marker))
	require.Contains(t, transcript, "stop 2 in thread main")
	// marker, Swappable.through, 41 recurse frames, main.
	require.Contains(t, transcript, "frames 44")
	require.Contains(t, transcript, fmt.Sprintf("#1 Swappable.through(Swappable.java:%d)", jvmtest.Line("Swappable.java", "through")+1))
	require.Contains(t, transcript, "    n : int = 0")
	require.Contains(t, transcript, "    this Debuggee")
	require.Contains(t, transcript, "step over -> Debuggee.marker(Debuggee.java:")
	require.Contains(t, transcript, "disposed after 2 stops")
	require.Equal(t, 2, strings.Count(transcript, "step out ->"))
}
