package journal

import (
	"io"
	"os"
	"path/filepath"
)

// WriteFileWhole writes a file at path with write, so that whoever
// watches path sees it whole or not at all: write fills a new file beside
// it, which then takes its name. A session's -stats and -timeline are
// read as soon as they appear.
func WriteFileWhole(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // gone once renamed; left by an error otherwise
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
