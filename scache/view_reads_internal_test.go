package scache

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestViewStateReadsAreMovingEntries: every read a threads view makes of
// moving state is keyable as a moving entry that is no value, so the
// sequential rules hold it; and no other moving entry but the values, a
// thread's suspend count and the loaded classes is left out of the view.
func TestViewStateReadsAreMovingEntries(t *testing.T) {
	for cmd := range viewStateReads {
		spec, ok := keyable[cmd]
		require.True(t, ok, "%s is keyable", cmd)
		require.True(t, spec.moving, "%s is a moving entry", cmd)
		require.False(t, spec.values, "%s reads no values", cmd)
	}
	var left []string
	for cmd, spec := range keyable {
		if spec.moving && !spec.values && !viewStateReads[cmd] {
			left = append(left, cmd.String())
		}
	}
	require.ElementsMatch(t, []string{"ThreadReference.SuspendCount", "VirtualMachine.AllClasses", "VirtualMachine.AllClassesWithGeneric"}, left)
}
