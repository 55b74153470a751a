package transport_test

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/internal/latency"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/transport"
	"github.com/stretchr/testify/require"
)

// A Proxy's sessions share an attach memory: an IDE attaching again to the
// same program (another VM: the program restarted) finds the methods of the
// classes it set breakpoints in answered from speculation, through one
// proxy and through a split proxy's near half. Every transcript equals a
// direct one. (Next to the VM, on a loaded machine, the cost model may
// rightly find the VM too slow for speculation to pay: there is a link.)
func TestASecondAttachFindsTheClassesOfTheFirst(t *testing.T) {
	o := jvmtest.DriverOptions{Stops: 1, Classes: 300, BigAttach: 20}
	direct, _ := jvmtest.RunDriver(t, jvmtest.StartFor(t, o).Addr, o)
	for _, split := range []bool{false, true} {
		t.Run(map[bool]string{false: "one proxy", true: "split"}[split], func(t *testing.T) {
			var vmAddr atomic.Value // each session's VM
			dial := func(ctx context.Context) (net.Conn, error) {
				var d net.Dialer
				return d.DialContext(ctx, "tcp", vmAddr.Load().(string))
			}
			var mu sync.Mutex
			served := 0    // the debugger's MethodsWithGeneric answered from speculation, this session
			forwarded := 0 // the debugger's LineTable sent to the VM, this session
			asked := 0     // the debugger's LineTable, this session
			count := scache.WithJournal(func(e scache.JournalEntry) {
				h, err := jdwp.ParseHeader(e.Packet)
				if err != nil || e.Synthetic || e.Direction != scache.Upstream || h.IsReply() {
					return
				}
				mu.Lock()
				defer mu.Unlock()
				switch {
				case h.Cmd() == jdwp.CmdReferenceTypeMethodsWithGeneric && (e.Hit || e.Held):
					served++
				case h.Cmd() == jdwp.CmdMethodLineTable:
					asked++
					if !e.Hit && !e.Held {
						forwarded++
					}
				}
			})
			var bandwidth []float64 // each session's estimate of the link's rate
			ended := transport.WithSessionEnded(func(st scache.Stats, err error) {
				mu.Lock()
				defer mu.Unlock()
				bandwidth = append(bandwidth, st.Bandwidth)
			})
			addr := serveProxy(t, dial, count, ended)
			if split {
				near := serveProxy(t, dial, transport.WithSplit(transport.NearHalf), ended)
				addr = serveProxy(t, func(ctx context.Context) (net.Conn, error) {
					var d net.Dialer
					return d.DialContext(ctx, "tcp", near)
				}, transport.WithSplit(transport.FarHalf), count)
			}
			var servedBy, forwardedBy, askedBy []int
			for range 2 {
				// A link of 10 ms round trip to the VM: where speculation pays
				// even when a loaded machine makes the VM look slow (at 4 ms,
				// CI's load once made it forward 40 of 49 line tables).
				link, err := latency.Listen(jvmtest.StartFor(t, o).Addr, 5*time.Millisecond)
				require.NoError(t, err)
				t.Cleanup(func() { link.Close() })
				vmAddr.Store(link.Addr)
				mu.Lock()
				served, forwarded, asked = 0, 0, 0
				mu.Unlock()
				got, _ := jvmtest.RunDriver(t, addr, o)
				require.Equal(t, direct, got)
				mu.Lock()
				servedBy, forwardedBy, askedBy = append(servedBy, served), append(forwardedBy, forwarded), append(askedBy, asked)
				mu.Unlock()
			}
			require.Less(t, servedBy[0], 5, "the first attach lists the classes' methods itself")
			require.GreaterOrEqual(t, servedBy[1], 20, "the second finds the 20 classes' methods speculated: %v", servedBy)
			// Their line tables go out as the methods come back: a few of the
			// debugger's asks may overtake them on a loaded machine, not most.
			require.Less(t, 2*forwardedBy[1], askedBy[1], "and their line tables, though the recall runs ahead of the debugger: %v of %v (rates %v)", forwardedBy, askedBy, bandwidth)
		})
	}
}
