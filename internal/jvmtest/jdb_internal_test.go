package jvmtest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSettledOrdersJdbsRacingPrompts: whichever way jdb's two threads
// interleave the prompt after "cont" with the breakpoint's lines, the
// transcript reads the same.
func TestSettledOrdersJdbsRacingPrompts(t *testing.T) {
	event := "\nBreakpoint hit: \"thread=main\", Debuggee.marker(), line=49 bci=0\n49    int local = n + 42;\n\n"
	want := event + jdbPrompt
	for name, seg := range map[string]string{
		"running prompt first":         "> " + event + jdbPrompt,
		"running prompt last":          event + jdbPrompt + "> ",
		"stopped prompt first":         jdbPrompt + event + jdbPrompt,
		"stopped prompt last":          event + jdbPrompt + jdbPrompt,
		"stopped prompt between lines": "\nBreakpoint hit: \"thread=main\", Debuggee.marker(), line=49 bci=0\n" + jdbPrompt + "49    int local = n + 42;\n\n" + jdbPrompt,
	} {
		require.Equal(t, want, settled(seg), name)
	}
}
