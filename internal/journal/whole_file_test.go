package journal_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/jdwpscache/scache/internal/journal"
	"github.com/stretchr/testify/require"
)

// TestAFileIsWrittenWhole: while write runs, nothing is at the path; after,
// the file holds all it wrote; a write that fails leaves nothing behind.
func TestAFileIsWrittenWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "stats.json")
	require.NoError(t, journal.WriteFileWhole(path, func(w io.Writer) error {
		_, err := w.Write([]byte("{\n"))
		require.NoError(t, err)
		_, err = os.Stat(path)
		require.True(t, os.IsNotExist(err), "nothing at the path before the file is whole")
		_, err = w.Write([]byte("}\n"))
		return err
	}))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "{\n}\n", string(b))
	require.Error(t, journal.WriteFileWhole(filepath.Join(dir, "t.json"), func(io.Writer) error { return errors.New("no") }))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the file written whole")
}
