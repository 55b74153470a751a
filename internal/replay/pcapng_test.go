package replay_test

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/journal"
	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/internal/replay"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
)

// A real session journaled as pcapng and as a trace file at once: tshark
// reads the pcapng with no malformed packet, and the replay of either gives
// the same figures in every mode.
func TestPcapngJournalReplaysLikeTheTraceFile(t *testing.T) {
	dir := t.TempDir()
	trace, err := journal.Create(filepath.Join(dir, "session.sctrace"))
	require.NoError(t, err)
	capture, err := journal.CreatePcapng(filepath.Join(dir, "session.pcapng"))
	require.NoError(t, err)
	recordSessionTo(t, jvmtest.DriverOptions{Stops: 2, HotSwap: true}, func(e scache.JournalEntry) {
		trace.Write(e)
		capture.Write(e)
	})
	require.NoError(t, trace.Close())
	require.NoError(t, capture.Close())

	out, err := exec.Command("tshark", "-r", filepath.Join(dir, "session.pcapng"), "-d",
		"tcp.port=="+strconv.Itoa(journal.PcapngVMPort)+",jdwp", "-Y", "_ws.malformed || _ws.expert.severity == error").Output()
	require.NoError(t, err)
	require.Empty(t, strings.TrimSpace(string(out)), "malformed packets")

	fromTrace, err := replay.LoadFile(filepath.Join(dir, "session.sctrace"))
	require.NoError(t, err)
	fromCapture, err := replay.LoadFile(filepath.Join(dir, "session.pcapng"))
	require.NoError(t, err)
	require.Len(t, fromCapture, 1)
	for _, mode := range replay.Modes {
		cfg := replay.Config{RTT: 20 * time.Millisecond}
		a, err := replay.Run(fromTrace[0], mode, cfg)
		require.NoError(t, err)
		b, err := replay.Run(fromCapture[0], mode, cfg)
		require.NoError(t, err)
		a.Trace, b.Trace = "", ""
		require.Equal(t, a, b, "%s", mode)
	}
}
