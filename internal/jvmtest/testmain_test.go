package jvmtest

import (
	"os"
	"testing"
)

// TestMain runs the package's tests and then removes what jvmtest compiled,
// so that a test run leaves the temp dir as it found it.
func TestMain(m *testing.M) { os.Exit(Main(m)) }
