package transport_test

import (
	"os"
	"testing"

	"github.com/jdwpscache/scache/internal/jvmtest"
)

// TestMain runs the package's tests and then removes what jvmtest compiled,
// so that a test run leaves the temp dir as it found it. Started with
// floodEnv set, the test binary is a flood of connections instead
// (TestAFloodOfIdleConnectionsNeverLocksOutTheFarHalf).
func TestMain(m *testing.M) {
	if spec := os.Getenv(floodEnv); spec != "" {
		os.Exit(floodMain(spec))
	}
	os.Exit(jvmtest.Main(m))
}
