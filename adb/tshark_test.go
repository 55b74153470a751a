package adb_test

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jdwpscache/scache/adb"
	"github.com/jdwpscache/scache/adb/wire"
	"github.com/jdwpscache/scache/internal/capturetest"
	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

// TestWireProtocolDissects captures the traffic between a real adb server
// and the emulated device (CNXN, OPEN, OKAY, WRTE, CLSE, with a JDWP session
// inside) and has Wireshark's ADB dissector read it: no malformed packet.
func TestWireProtocolDissects(t *testing.T) {
	c := adbServer(t)
	d := device(t)
	port := portOf(d.Addr)
	stop := capturetest.Capture(t, port, "pcapng")
	serial := connect(t, c, d)
	out, err := c.Shell(ctx(t), adb.Selector{Serial: serial}, "echo dissect me")
	require.NoError(t, err)
	require.Equal(t, "dissect me\n", out)
	vm := jvmtest.Start(t, "Debuggee", "1")
	d.AddProcess(31, vm.Addr)
	conn, err := c.JDWP(ctx(t), adb.Selector{Serial: serial}, 31)
	require.NoError(t, err)
	require.NoError(t, jdwp.DebuggerHandshake(conn, 10*time.Second))
	jc := jdwp.NewConn(conn)
	var v jdwp.VMVersionReply
	require.NoError(t, jc.Call(ctx(t), &jdwp.VMVersionCommand{}, &v))
	jc.Close()
	d.Close()
	file := stop()

	decode := []string{"-r", file, "-d", "tcp.port==" + port + ",adb"}
	commands, err := exec.Command("tshark", append(decode, "-T", "fields", "-e", "adb.command")...).CombinedOutput()
	require.NoError(t, err, "%s", commands)
	if !strings.Contains(string(commands), "0x") {
		summary, _ := exec.Command("tshark", "-r", file).CombinedOutput()
		t.Logf("capture on port %s:\n%s", port, summary)
	}
	for _, cmd := range []uint32{wire.CNXN, wire.OPEN, wire.OKAY, wire.WRTE, wire.CLSE} {
		require.Contains(t, string(commands), fmt.Sprintf("0x%08x", cmd), "the dissector reads %s messages", wire.CommandName(cmd))
	}
	malformed, err := exec.Command("tshark", append(decode, "-Y", "_ws.malformed || _ws.expert.severity == error")...).CombinedOutput()
	require.NoError(t, err, "%s", malformed)
	require.Empty(t, strings.TrimSpace(filterNoise(string(malformed))), "malformed packets")
}

// filterNoise drops tshark's warning about running as root.
func filterNoise(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "Running as user") || strings.Contains(l, "This could be dangerous") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}
