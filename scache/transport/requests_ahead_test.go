package transport_test

import (
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/internal/latency"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
)

// An IDE attaching to a running program sets its breakpoints, each at a
// line of a line table the VM gave: through the proxy, every breakpoint
// request is answered at once with the id HotSpot then gives it, with the
// JDK's JDI and with Eclipse's, and the transcript equals a direct one.
func TestBreakpointRequestsAreAnsweredAheadWithTheVMsIDs(t *testing.T) {
	for _, c := range []jvmtest.Client{jvmtest.Clients[0], jvmtest.Clients[1]} {
		t.Run(c.Name, func(t *testing.T) {
			o := c.With(jvmtest.DriverOptions{Stops: 1, Classes: 300, BigAttach: 20})
			direct, _ := jvmtest.RunDriver(t, jvmtest.StartFor(t, o).Addr, o)
			ahead, count := countAhead()
			link, err := latency.Listen(jvmtest.StartFor(t, o).Addr, 2*time.Millisecond)
			require.NoError(t, err)
			t.Cleanup(func() { link.Close() })
			addr, stats := serveProxyFor(t, link.Addr, "the scache proxy", append(modeOptions["scache"], count)...)
			got, _ := jvmtest.RunDriver(t, addr, o)
			require.Equal(t, direct, got)
			st := <-stats
			require.Equal(t, 21, ahead()[jdwp.EventBreakpoint], "the 20 breakpoints in generated classes and the marker's, answered ahead")
			require.Zero(t, st.AheadContradicted, "with the ids the VM gave")
		})
	}
}

// An IDE's exception breakpoint (on RuntimeException, looked up by name,
// in the program's classes), method breakpoint (exits, in a class named by
// pattern) and watchpoint (a field's modifications) are answered at once
// too, with the JDK's JDI and with Eclipse's.
func TestOtherBreakpointsAreAnsweredAheadWithTheVMsIDs(t *testing.T) {
	for _, c := range []jvmtest.Client{jvmtest.Clients[0], jvmtest.Clients[1]} {
		t.Run(c.Name, func(t *testing.T) {
			o := c.With(jvmtest.DriverOptions{Stops: 2, Events: true})
			vm := jvmtest.Start(t, "Debuggee", o.DebuggeeArgs(3)...)
			direct, _ := jvmtest.RunDriver(t, vm.Addr, o)
			ahead, count := countAhead()
			vm = jvmtest.Start(t, "Debuggee", o.DebuggeeArgs(3)...)
			addr, stats := serveProxyFor(t, vm.Addr, "the scache proxy", append(modeOptions["scache"], count)...)
			got, _ := jvmtest.RunDriver(t, addr, o)
			require.Equal(t, direct, got)
			st := <-stats
			byKind := ahead()
			require.Equal(t, 1, byKind[jdwp.EventException], "the exception request: %v", byKind)
			require.Equal(t, 1, byKind[jdwp.EventMethodExit]+byKind[jdwp.EventMethodExitWithReturnValue], "the method exit request: %v", byKind)
			require.Equal(t, 1, byKind[jdwp.EventFieldModification], "the watchpoint: %v", byKind)
			require.Zero(t, st.AheadContradicted, "with the ids the VM gave")
		})
	}
}

// countAhead returns an option that counts, by event kind, the debugger's
// Set commands answered before the VM saw them, and what it counted.
func countAhead() (func() map[jdwp.EventKind]int, scache.Option) {
	var mu sync.Mutex
	ahead := map[jdwp.EventKind]int{}
	return func() map[jdwp.EventKind]int {
			mu.Lock()
			defer mu.Unlock()
			return maps.Clone(ahead)
		}, scache.WithJournal(func(e scache.JournalEntry) {
			h, err := jdwp.ParseHeader(e.Packet)
			data := jdwp.Data(e.Packet)
			if err != nil || e.Synthetic || !e.Hit || e.Direction != scache.Upstream || h.IsReply() ||
				h.Cmd() != jdwp.CmdEventRequestSet || len(data) == 0 {
				return
			}
			mu.Lock()
			ahead[jdwp.EventKind(data[0])]++
			mu.Unlock()
		})
}
