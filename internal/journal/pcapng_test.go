package journal_test

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/journal"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
)

// pcapngRecords is a small journal: a command and its reply, a synthetic
// command and its reply, a command answered from the cache, a large packet.
func pcapngRecords() []journal.Record {
	at := time.Date(2026, 11, 22, 10, 0, 0, 123456789, time.UTC)
	next := func() time.Time { at = at.Add(1500 * time.Microsecond); return at }
	big := make([]byte, 150000)
	return []journal.Record{
		{Time: next(), Direction: scache.Upstream, Packet: jdwp.AppendCommand(nil, 1, jdwp.CmdVirtualMachineIDSizes, nil)},
		{Time: next(), Direction: scache.Downstream, Packet: jdwp.AppendReplyPacket(nil, 1, &jdwp.VMIDSizesReply{Sizes: jdwp.DefaultIDSizes}, jdwp.DefaultIDSizes)},
		{Time: next(), Direction: scache.Upstream, Synthetic: true, Packet: jdwp.AppendCommand(nil, scache.FirstSyntheticID, jdwp.CmdVirtualMachineVersion, nil)},
		{Time: next(), Direction: scache.Downstream, Synthetic: true, Packet: jdwp.AppendReplyPacket(nil, scache.FirstSyntheticID, &jdwp.StringReply{Value: "v"}, jdwp.DefaultIDSizes)},
		{Time: next(), Direction: scache.Upstream, Hit: true, Packet: jdwp.AppendCommand(nil, 3, jdwp.CmdVirtualMachineVersion, nil)},
		{Time: next(), Direction: scache.Downstream, Hit: true, Packet: jdwp.AppendReplyPacket(nil, 3, &jdwp.StringReply{Value: "v"}, jdwp.DefaultIDSizes)},
		{Time: next(), Direction: scache.Upstream, Packet: jdwp.AppendCommand(nil, 5, jdwp.CmdVirtualMachineRedefineClasses, big)},
	}
}

func writePcapng(t *testing.T, records []journal.Record) string {
	path := filepath.Join(t.TempDir(), "journal.pcapng")
	w, err := journal.CreatePcapng(path)
	require.NoError(t, err)
	for _, r := range records {
		require.NoError(t, w.Append(r))
	}
	require.NoError(t, w.Close())
	return path
}

// A pcapng journal reads back, through the capture import, as the records
// it was written from: packets, directions and times to the nanosecond.
func TestPcapngJournalReadsBack(t *testing.T) {
	records := pcapngRecords()
	sessions, err := journal.ReadCaptureFile(writePcapng(t, records))
	require.NoError(t, err)
	require.Len(t, sessions, 1)
	require.Equal(t, journal.PcapngVMPort, int(sessions[0].VM.Port()))
	got := sessions[0].Records
	require.Len(t, got, len(records))
	for i, r := range records {
		require.Equal(t, r.Packet, got[i].Packet, "record %d", i)
		require.Equal(t, r.Direction, got[i].Direction, "record %d", i)
		require.True(t, r.Time.Equal(got[i].Time), "record %d: %v, read %v", i, r.Time, got[i].Time)
	}
}

// Wireshark's JDWP dissector reads a pcapng journal with no malformed
// packet, and shows the marks as packet comments.
func TestTsharkReadsAPcapngJournal(t *testing.T) {
	if _, err := exec.LookPath("tshark"); err != nil {
		t.Fatal("tshark not found: run the README's test command (make test), which installs it")
	}
	path := writePcapng(t, pcapngRecords())
	decode := []string{"-r", path, "-d", "tcp.port==" + strconv.Itoa(journal.PcapngVMPort) + ",jdwp"}
	out, err := exec.Command("tshark", append(decode, "-Y", "_ws.malformed || _ws.expert.severity == error")...).Output()
	require.NoError(t, err, "%s", out)
	require.Empty(t, strings.TrimSpace(string(out)), "malformed packets")
	out, err = exec.Command("tshark", append(decode, "-Y", "jdwp", "-T", "fields", "-e", "frame.comment", "-e", "jdwp.id")...).Output()
	require.NoError(t, err, "%s", out)
	packets, err := exec.Command("tshark", append(decode, "-Y", "jdwp.id")...).Output()
	require.NoError(t, err)
	require.GreaterOrEqual(t, strings.Count(string(packets), "\n"), 7, "every JDWP packet dissected:\n%s", packets)
	text := string(out)
	require.Contains(t, text, "scache: synthetic")
	require.Contains(t, text, "scache: answered from the cache")
}
