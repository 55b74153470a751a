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

// jdb's start-up is two of its threads printing in either order: the
// transcript starts after the stopped prompts they print, one or two
// (CI saw a direct session's start with two, and its transcript differ
// from a proxied one's by that prompt alone).
func TestTheTranscriptStartsAfterTheStartUpPrompts(t *testing.T) {
	const after = "Deferring breakpoint Debuggee:54.\nIt will be set after the class is loaded.\nmain[1] Set deferred breakpoint Debuggee:54\n"
	for _, out := range []string{
		"Initializing jdb ...\n> VM Started: No frames on the current call stack\n\nmain[1] " + after,
		"Initializing jdb ...\n> \nVM Started: No frames on the current call stack\n\nmain[1] main[1] " + after,
	} {
		require.Equal(t, after, fromFirstPrompt(out))
	}
}

// A stop command's output is whole once its own prompt follows what it
// printed; a start-up prompt printed before that output does not count.
func TestAStopCommandIsDoneAtItsOwnPrompt(t *testing.T) {
	const deferred = "Deferring breakpoint Debuggee:54.\nIt will be set after the class is loaded.\n"
	for seg, done := range map[string]bool{
		deferred:                                   false,
		jdbPrompt + deferred:                       false,
		deferred + jdbPrompt:                       true,
		jdbPrompt + deferred + jdbPrompt:           true,
		"Set breakpoint Debuggee:54\n":             false,
		"Set breakpoint Debuggee:54\n" + jdbPrompt: true,
	} {
		require.Equal(t, done, promptedAfterBreakpointSet(seg), "%q", seg)
	}
}
