package proxycmd

import (
	"bytes"
	"net"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/internal/nettest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

// jdb pointed at the near half of a split proxy is served as by one proxy
// next to the VM: its transcript equals a direct one, and the near half
// logs where the debugger should have gone.
func TestJdbAtTheNearHalfIsServedAsByOneProxy(t *testing.T) {
	opts := jvmtest.DriverOptions{Stops: 2}
	direct, _ := jvmtest.RunJdb(t, jvmtest.Start(t, "Debuggee", "2").Addr, opts)
	vm := jvmtest.Start(t, "Debuggee", "2")
	near, log := startProxy(t, "-vm", vm.Addr, "-split", "near")
	got, _ := jvmtest.RunJdb(t, near, opts)
	require.Equal(t, direct, got)
	require.Contains(t, log.String(), "a JDWP debugger connected to the near half of a split proxy: serving it as one proxy next to the VM")
	require.Contains(t, log.String(), "proxy -split far")
}

// A far half pointed at a real VM says that the address answered like a
// VM; the VM is left as it was (its agent waits for a debugger) and a
// debugger attaches to it afterwards.
func TestAFarHalfPointedAtARealVMSaysSo(t *testing.T) {
	vm := jvmtest.Start(t, "Debuggee", "1")
	far, log := startProxy(t, "-vm", vm.Addr, "-split", "far")
	c, err := net.Dial("tcp", far)
	require.NoError(t, err)
	defer c.Close()
	err = jdwp.DebuggerHandshake(c, 30*time.Second)
	require.Error(t, err, "the debugger's handshake is not answered")
	require.Eventually(t, func() bool {
		return bytes.Contains([]byte(log.String()), []byte(vm.Addr+" answered like a JDWP VM, not a near half"))
	}, 30*time.Second, time.Millisecond, "%s", log.String())
	require.Contains(t, log.String(), "use -split far only towards a near half")
	// The VM's agent still waits for its debugger.
	got, _ := jvmtest.RunDriver(t, vm.Addr, jvmtest.DriverOptions{Stops: 1})
	require.Contains(t, got, "marker")
}

// A far half whose near half is not there names the near half, not the VM.
func TestAFarHalfWithoutANearHalfNamesIt(t *testing.T) {
	deadAddr := nettest.RefusingAddr(t)
	far, log := startProxy(t, "-vm", deadAddr, "-split", "far")
	c, err := net.Dial("tcp", far)
	require.NoError(t, err)
	defer c.Close()
	require.Error(t, jdwp.DebuggerHandshake(c, 30*time.Second))
	require.Eventually(t, func() bool {
		return bytes.Contains([]byte(log.String()), []byte("cannot reach the near half at "+deadAddr))
	}, 30*time.Second, time.Millisecond, "%s", log.String())
	require.NotContains(t, log.String(), "cannot reach the VM")
}
