package transport_test

import (
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
			var mu sync.Mutex
			ahead := 0 // the debugger's breakpoint requests answered before the VM saw them
			count := scache.WithJournal(func(e scache.JournalEntry) {
				h, err := jdwp.ParseHeader(e.Packet)
				data := jdwp.Data(e.Packet)
				if err != nil || e.Synthetic || e.Direction != scache.Upstream || h.IsReply() ||
					h.Cmd() != jdwp.CmdEventRequestSet || len(data) == 0 || jdwp.EventKind(data[0]) != jdwp.EventBreakpoint {
					return
				}
				if e.Hit {
					mu.Lock()
					ahead++
					mu.Unlock()
				}
			})
			link, err := latency.Listen(jvmtest.StartFor(t, o).Addr, 2*time.Millisecond)
			require.NoError(t, err)
			t.Cleanup(func() { link.Close() })
			addr, stats := serveProxyFor(t, link.Addr, "the scache proxy", append(modeOptions["scache"], count)...)
			got, _ := jvmtest.RunDriver(t, addr, o)
			require.Equal(t, direct, got)
			st := <-stats
			mu.Lock()
			defer mu.Unlock()
			require.Equal(t, 21, ahead, "the 20 breakpoints in generated classes and the marker's, answered ahead")
			require.Zero(t, st.AheadContradicted, "with the ids the VM gave")
		})
	}
}
