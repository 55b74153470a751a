package threadscmd

import (
	"os"
	"testing"

	"github.com/jdwpscache/scache/internal/jvmtest"
)

// TestMain runs the package's tests and then removes what jvmtest compiled,
// so that a test run leaves the temp dir as it found it.
func TestMain(m *testing.M) { os.Exit(jvmtest.Main(m)) }
