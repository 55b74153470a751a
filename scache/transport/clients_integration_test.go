package transport_test

import (
	"sort"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/internal/latency"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
)

// clientWorkloads are the driver workloads every client runs through every
// mode: what an IDE does at a stop, with the variants that stress a cache
// (a value changed, a class redefined, threads that run through the stop
// while the variables view reads this's fields and arrays, stops in one
// thread after another, renderers that run code, watchpoint, exception and
// method exit stops, a conditional breakpoint's hits).
var clientWorkloads = map[string]jvmtest.DriverOptions{
	"plain":           {Stops: 2},
	"extras":          {Stops: 2, Extras: true, Arrays: true},
	"setValue":        {Stops: 2, SetValue: true},
	"hot swap":        {Stops: 2, HotSwap: true},
	"event thread":    {Stops: 2, EventThread: true, Extras: true, Arrays: true},
	"threads":         {Stops: 3, Threads: 3},
	"together":        {Stops: 3, Threads: 3, Together: true},
	"renderers":       {Stops: 2, Renderers: true},
	"deep":            {Stops: 2, Deep: 4},
	"events":          {Stops: 2, Events: true},
	"conditional":     {Stops: 2, Conditional: true},
	"drop frame":      {Stops: 2, DropFrame: true},
	"suspend another": {Stops: 2, EventThread: true, SuspendOther: true, Pause: true},
	"workers":         {Stops: 6, Threads: 2, Together: true, Arrays: true, SetValue: true, SuspendOther: true, Pause: true},
}

// TestTranscriptOfEveryClientEqualsDirect debugs real HotSpot VMs with the
// debuggers users run besides the JDK's JDI one command at a time (which
// TestTranscriptThroughProxyEqualsDirect covers with more workloads):
// Eclipse's JDI (the Eclipse IDE's, VS Code's), and both JDIs asking each
// stop's reads in parallel waves as an async IDE does. Each transcript
// through one proxy (off, classic, scache) and through a split proxy
// equals the direct one.
func TestTranscriptOfEveryClientEqualsDirect(t *testing.T) {
	names := make([]string, 0, len(clientWorkloads))
	for name := range clientWorkloads {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, c := range jvmtest.Clients[1:] {
		t.Run(c.Name, func(t *testing.T) {
			for _, name := range names {
				opts := c.With(clientWorkloads[name])
				t.Run(name, func(t *testing.T) {
					vm := startDebuggee(t, opts)
					direct, _ := jvmtest.RunDriver(t, vm.Addr, opts)
					require.Regexp(t, "disposed after", direct, "the direct session ended as it should")
					for _, mode := range []string{"off", "classic", "scache", "split"} {
						vm := startDebuggee(t, opts)
						var addr string
						if mode == "split" {
							addr, _, _ = startSplit(t, vm.Addr, "scache", 2*time.Millisecond)
						} else {
							addr, _ = startProxy(t, vm.Addr, mode)
						}
						got, _ := jvmtest.RunDriver(t, addr, opts)
						require.Equal(t, direct, got, "%s's transcript through the %s proxy", c.Name, mode)
					}
				})
			}
		})
	}
}

// TestEveryAnswerToAParallelClientIsTheVMs checks the parallel clients
// command by command, not only by transcript: through one proxy with the
// audit on (scache.WithAudit), 2 ms from the VM so that their concurrent
// asks meet speculation in flight, every answer the proxy gave from the
// cache, derived or held equals the VM's reply to a copy of the command
// sent in its place.
func TestEveryAnswerToAParallelClientIsTheVMs(t *testing.T) {
	for _, c := range jvmtest.Clients {
		if c.Parallel == 0 {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			for _, name := range []string{"extras", "event thread", "threads", "together", "events", "suspend another", "workers"} {
				opts := c.With(clientWorkloads[name])
				t.Run(name, func(t *testing.T) {
					vm := startDebuggee(t, opts)
					link, err := latency.Listen(vm.Addr, time.Millisecond)
					require.NoError(t, err)
					defer link.Close()
					addr, stats := serveProxyFor(t, link.Addr, "the audited proxy", append(modeOptions["scache"], scache.WithAudit(true))...)
					transcript, _ := jvmtest.RunDriver(t, addr, opts)
					require.Regexp(t, "disposed after", transcript)
					st := <-stats
					require.Positive(t, st.Audited, "answers were audited")
					require.Zero(t, st.AuditMismatches, "of %d answers audited", st.Audited)
					t.Logf("%s %s: %d answers audited (%d hits, %d held)", c.Name, name, st.Audited, st.Hits, st.Belayed)
				})
			}
		})
	}
}
