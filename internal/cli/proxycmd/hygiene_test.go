package proxycmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// childRunEnv marks the test run that TestATestRunLeavesTheTempDirAsItFoundIt
// starts, so that it does not start another.
const childRunEnv = "SCACHE_TEMPDIR_CHECK_CHILD"

// TestATestRunLeavesTheTempDirAsItFoundIt runs this package's full chain
// (javac, a debuggee JVM and the JDI driver, a real adb server, an emulated
// device, the proxy) in a `go test` of its own whose temp dir is an empty
// folder, and requires the folder empty afterwards: no compiled classes, no
// JVM performance data, no adb server log.
func TestATestRunLeavesTheTempDirAsItFoundIt(t *testing.T) {
	if os.Getenv(childRunEnv) != "" {
		t.Skip("the run being checked")
	}
	tmp, goTmp := filepath.Join(t.TempDir(), "tmp"), filepath.Join(t.TempDir(), "gotmp")
	require.NoError(t, os.Mkdir(tmp, 0o755))
	require.NoError(t, os.Mkdir(goTmp, 0o755))

	cmd := exec.Command("go", "test", "-count=1", "-run", "^TestFullChain$", ".")
	// The go command's own build files go to GOTMPDIR; everything the tests
	// and the programs they start write to the temp dir goes to tmp.
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "GOTMPDIR="+goTmp, childRunEnv+"=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "ok", "the child run passed")

	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	require.Empty(t, left, "left in the temp dir by a test run")
}
