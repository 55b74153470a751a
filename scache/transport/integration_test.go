package transport_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/transport"
	"github.com/stretchr/testify/require"
)

// modeOptions maps the proxy's modes to Speculator options.
var modeOptions = map[string][]scache.Option{
	"off":     {scache.PassThrough()},
	"classic": {scache.Classic()},
	"scache":  nil,
}

// startProxy runs a Proxy in front of vmAddr in the given mode until the test
// ends, and returns its address and the stats of its sessions.
func startProxy(t testing.TB, vmAddr, mode string) (string, <-chan scache.Stats) {
	return serveProxyFor(t, vmAddr, "the "+mode+" proxy", modeOptions[mode]...)
}

// serveProxyFor runs a Proxy with opts that dials target, until the test
// ends; name says what it is in failures. It returns the Proxy's address
// and the stats of its sessions.
func serveProxyFor(t testing.TB, target, name string, opts ...scache.Option) (string, <-chan scache.Stats) {
	stats := make(chan scache.Stats, 4)
	addr := serveProxy(t, func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", target)
	}, append(opts, transport.WithSessionEnded(func(st scache.Stats, err error) {
		if err != nil {
			t.Errorf("session through %s: %v", name, err)
		}
		stats <- st
	}))...)
	return addr, stats
}

// serveProxy runs a Proxy with opts (and a silent logger, unless opts give
// one) that dials the VM with dial, on loopback until the test ends, and
// returns its address.
func serveProxy(t testing.TB, dial func(context.Context) (net.Conn, error), opts ...scache.Option) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p, err := transport.NewProxy(dial, append([]scache.Option{scache.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))}, opts...)...)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	return ln.Addr().String()
}

// transcriptWorkloads are the JDI driver workloads whose transcripts through
// a proxy must equal direct ones.
var transcriptWorkloads = map[string]jvmtest.DriverOptions{
	"plain":    {Stops: 3},
	"hot swap": {Stops: 3, HotSwap: true},
	"setValue": {Stops: 2, SetValue: true},
	// An IDE's expanded `this`: class details, fields, statics, an array;
	// with this's arrays expanded, an element edited in the view.
	"extras": {Stops: 2, Extras: true, Arrays: true},
	// Other threads keep running during stops: the stopped thread's
	// frames and locals, and immutable facts, are true for the stop; the
	// expanded this's fields, statics and arrays (the variables view of a
	// suspend-thread breakpoint, Eclipse's and VS Code's default) move,
	// an element edited in the view among them.
	"event thread": {Stops: 3, EventThread: true, Extras: true, Arrays: true},
	// Another debugger: the JDK's jdb, typed at as a user would.
	"jdb": {Stops: 2, Jdb: true},
	// jdb printing (toString invoked: it changes the object), dumping this
	// and a map, listing the threads.
	"jdb print": {Stops: 2, Jdb: true, JdbInspect: true},
	// jdb with catch and watch: an exception breakpoint and a watchpoint
	// stop each round four times more.
	"jdb events": {Stops: 2, Jdb: true, Events: true},
	// Stops in one thread after another; the threads view reads where each
	// suspended thread is.
	"threads": {Stops: 3, Threads: 3},
	// Threads that run at once under suspend-thread breakpoints: several
	// suspended at their own stops, the others running, each resumed
	// alone; the threads view reads the suspended ones' top frames.
	"together": {Stops: 3, Threads: 3, Together: true},
	// An IDE's renderers: toString() and size() invoked at every stop and
	// step; toString changes the object, so a stale cache shows.
	"renderers": {Stops: 3, Renderers: true},
	// A user walking up the stack: this and the variables of the frames
	// below the top (a static frame among them).
	"deep": {Stops: 2, Deep: 4},
	// The other kinds of breakpoint an IDE sets: a watchpoint on a field
	// written, an exception breakpoint, method exits with their return
	// values, stopping in steps too; under either suspend policy.
	"events":               {Stops: 2, Events: true},
	"events, event thread": {Stops: 2, Events: true, EventThread: true},
	// A conditional breakpoint as an IDE evaluates it: n read at every
	// hit, two hits in three resumed at once, the third shown and stepped.
	"conditional": {Stops: 2, Conditional: true},
	// An IDE's Drop Frame at each stop: the frames, this and the values
	// after StackFrame.PopFrames are the caller's, and a step into runs
	// the call again.
	"drop frame": {Stops: 2, DropFrame: true},
	// A running thread suspended and resumed from the threads view at
	// each stop, as a user does, while the stopped thread alone is
	// suspended by the event; then the whole VM paused (an IDE's Pause),
	// its threads view read, and resumed.
	"suspend another": {Stops: 2, EventThread: true, SuspendOther: true, Pause: true},
	// Workers stopped together and read first in first out as an IDE's
	// threads view and variables view read them: this's arrays (an
	// element edited), a local set, the suspend count; each worker's
	// second stop suspends a running thread from the view, its third
	// pauses the VM while the other worker is parked at its own stop.
	"workers": {Stops: 6, Threads: 2, Together: true, Arrays: true, SetValue: true, SuspendOther: true, Pause: true},
}

// startDebuggee starts the Debuggee a transcript test's session runs on:
// at least three rounds, and one for each of its stops.
func startDebuggee(t testing.TB, opts jvmtest.DriverOptions) *jvmtest.VM {
	return jvmtest.Start(t, "Debuggee", opts.DebuggeeArgs(max(3, opts.Stops))...)
}

// TestTranscriptThroughProxyEqualsDirect debugs real HotSpot VMs with a real
// JDI debugger, directly and through the proxy in each mode, and compares the
// transcripts line for line: frames, sources, lines, variables, steps.
func TestTranscriptThroughProxyEqualsDirect(t *testing.T) {
	for name, opts := range transcriptWorkloads {
		t.Run(name, func(t *testing.T) {
			vm := startDebuggee(t, opts)
			direct, _ := jvmtest.RunDriver(t, vm.Addr, opts)
			require.Regexp(t, "disposed after|The application exited", direct, "the direct session ended as it should")
			for _, mode := range []string{"off", "classic", "scache"} {
				vm := startDebuggee(t, opts)
				addr, stats := startProxy(t, vm.Addr, mode)
				got, _ := jvmtest.RunDriver(t, addr, opts)
				require.Equal(t, direct, got, "transcript through the %s proxy", mode)
				st := <-stats
				if mode == "off" {
					require.Zero(t, st.Synthetic)
				} else {
					require.Positive(t, st.Synthetic, "%s speculated", mode)
					require.Positive(t, st.Hits+st.Belayed, "%s answered from speculation", mode)
				}
				if mode == "scache" && !opts.Together { // together: no steps
					// HotSpot numbers requests as OpenJDK's agent does.
					require.GreaterOrEqual(t, st.AnsweredAhead, int64(3*(opts.Stops-1)), "step requests answered ahead")
					require.Zero(t, st.AheadContradicted, "and the VM gave the ids answered")
				}
			}
		})
	}
}

// TestExitReplyReachesTheDebugger: a JDI debugger's vm.exit() through the
// proxy returns normally in every mode, run after run, with speculation
// under way when it sends VirtualMachine.Exit (issue: speculation sent after
// Exit made the exiting VM reset the connection, losing the Exit reply).
func TestExitReplyReachesTheDebugger(t *testing.T) {
	for _, mode := range []string{"off", "classic", "scache"} {
		for run := 0; run < 4; run++ {
			vm := jvmtest.Start(t, "Debuggee", "3")
			addr, stats := startProxy(t, vm.Addr, mode)
			got, _ := jvmtest.RunDriver(t, addr, jvmtest.DriverOptions{Stops: 2, Exit: true})
			require.Contains(t, got, "exited after 2 stops", "through the %s proxy, run %d", mode, run)
			<-stats
			require.True(t, vm.Wait(30*time.Second), "the VM exited")
		}
	}
}
