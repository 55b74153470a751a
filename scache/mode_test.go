package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
)

func TestModeOptions(t *testing.T) {
	for mode, enabled := range map[string]bool{"scache": true, "classic": true, "off": false} {
		opts, err := scache.ModeOptions(mode)
		require.NoError(t, err, mode)
		require.Equal(t, enabled, newSpeculator(t, opts...).Enabled(), mode)
	}
	_, err := scache.ModeOptions("fast")
	require.ErrorContains(t, err, `unknown mode "fast"`)
}
