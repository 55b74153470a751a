package jvmtest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/stretchr/testify/require"
)

// TestDriverDirect runs the JDI driver straight against a real VM and checks
// the transcript against the debuggee's source.
func TestDriverDirect(t *testing.T) {
	vm := jvmtest.Start(t, "Debuggee", "2")
	transcript, elapsed := jvmtest.RunDriver(t, vm.Addr, jvmtest.DriverOptions{Stops: 2})
	require.Positive(t, elapsed)
	marker := jvmtest.Line("Debuggee.java", "marker")
	require.Contains(t, transcript, fmt.Sprintf("breakpoint at Debuggee.marker(Debuggee.java:%d)", marker))
	require.Contains(t, transcript, "stop 2 in thread main")
	// marker, Swappable.through, 41 recurse frames, main.
	require.Contains(t, transcript, "frames 44")
	require.Contains(t, transcript, fmt.Sprintf("#1 Swappable.through(Swappable.java:%d)", jvmtest.Line("Swappable.java", "through")+1))
	require.Contains(t, transcript, "    n : int = 0")
	require.Contains(t, transcript, "    this Debuggee")
	require.Contains(t, transcript, "step over -> Debuggee.marker(Debuggee.java:")
	require.Contains(t, transcript, "disposed after 2 stops")
	require.Equal(t, 2, strings.Count(transcript, "step out ->"))
}

// TestJdbDirect runs jdb straight against a real VM: each stop is where the
// debuggee's source says, with its stack, locals and this.
func TestJdbDirect(t *testing.T) {
	vm := jvmtest.Start(t, "Debuggee", "2")
	transcript, elapsed := jvmtest.RunJdb(t, vm.Addr, jvmtest.DriverOptions{Stops: 2})
	require.Positive(t, elapsed)
	marker := jvmtest.Line("Debuggee.java", "marker")
	require.Equal(t, 2, strings.Count(transcript, fmt.Sprintf(`Breakpoint hit: "thread=main", Debuggee.marker(), line=%d bci=0`, marker)), transcript)
	require.Equal(t, 4, strings.Count(transcript, `Step completed: "thread=main", Debuggee.marker()`), transcript)
	require.Equal(t, 2, strings.Count(transcript, "[44] Debuggee.main (Debuggee.java:"), transcript)
	require.Contains(t, transcript, "name: \"round-1\"")
	require.Contains(t, transcript, "recent: instance of int[4] (id=N)")
	require.Contains(t, transcript, "The application exited")
}

// TestDriverDirectInThreads runs the JDI driver against a debuggee whose
// app threads take turns: the stops come from one thread after another,
// each thread's stack starts at its run method, and the threads view
// lists every app thread.
func TestDriverDirectInThreads(t *testing.T) {
	opts := jvmtest.DriverOptions{Stops: 3, Threads: 2}
	vm := jvmtest.Start(t, "Debuggee", opts.DebuggeeArgs(3)...)
	transcript, _ := jvmtest.RunDriver(t, vm.Addr, opts)
	require.Contains(t, transcript, "stop 1 in thread app-0", transcript)
	require.Contains(t, transcript, "stop 2 in thread app-1")
	require.Contains(t, transcript, "stop 3 in thread app-0")
	// marker, Swappable.through, 41 recurse frames, the lambda, Thread.run.
	require.Contains(t, transcript, "frames 45")
	require.Regexp(t, `threads \[.*app-0:45, app-1,`, transcript)
	require.Regexp(t, `threads \[.*app-0, app-1:45,`, transcript)
	require.Contains(t, transcript, "disposed after 3 stops")
}

// TestDriverDirectWithRenderers runs the renderer workload straight against
// a real VM: each stop and step shows this through its toString (which
// counts its calls) and this.shapes through size(), then the top frame
// again; out of marker, the caller's local holds the object.
func TestDriverDirectWithRenderers(t *testing.T) {
	opts := jvmtest.DriverOptions{Stops: 2, Renderers: true}
	vm := jvmtest.Start(t, "Debuggee", opts.DebuggeeArgs(2)...)
	transcript, _ := jvmtest.RunDriver(t, vm.Addr, opts)
	require.Contains(t, transcript, `render this = "Debuggee round-0 rendered 1 shapes 0"`, transcript)
	require.Contains(t, transcript, `render this = "Debuggee round-0 rendered 3 shapes 0"`, "two steps later: the renderer changed the object")
	require.Contains(t, transcript, `render local = "Debuggee round-0 rendered 4 shapes 1"`, "out in the caller, a local")
	require.Contains(t, transcript, "render this.shapes = size 0")
	require.Equal(t, 8, strings.Count(transcript, "after rendering at "), "two stops and their three steps, each rendered")
}

// A big attach: the driver attaches to a running VM with generated
// classes loaded and sets breakpoints in many of them, then stops at the
// marker as usual.
func TestBigAttach(t *testing.T) {
	o := jvmtest.DriverOptions{Stops: 1, Classes: 300, BigAttach: 20}
	vm := jvmtest.StartFor(t, o)
	r := jvmtest.RunDriverTimed(t, vm.Addr, o)
	require.Contains(t, r.Transcript, "attached: breakpoints in 20 generated classes and at the marker")
	require.Contains(t, r.Transcript, "stop 1 in thread main")
	require.Positive(t, r.Attach)
	require.Less(t, r.Attach, r.Elapsed)
}

// TestDriverDirectTogether runs the JDI driver against a debuggee whose
// app threads run at once under suspend-thread breakpoints: each thread
// stops once per round of its own, the stopped thread alone is resumed,
// and two sessions' transcripts are equal whatever order the threads
// reached their breakpoints in. With the threads view's own actions
// (suspendother, pause), each thread's stops carry them on its own
// schedule: its suspend count at every stop, the worker suspended at every
// second, the VM paused at every third.
func TestDriverDirectTogether(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		opts                      jvmtest.DriverOptions
		counts, suspended, paused int
	}{
		{"view", jvmtest.DriverOptions{Stops: 6, Threads: 3, Together: true}, 0, 0, 0},
		{"actions", jvmtest.DriverOptions{Stops: 12, Threads: 3, Together: true, Arrays: true, SetValue: true, SuspendOther: true, Pause: true}, 12, 6, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			var transcripts []string
			for range 2 {
				vm := jvmtest.Start(t, "Debuggee", opts.DebuggeeArgs(opts.Stops)...)
				transcript, _ := jvmtest.RunDriver(t, vm.Addr, opts)
				for _, app := range []string{"app-0", "app-1", "app-2"} {
					require.Equal(t, opts.Stops/3, strings.Count(transcript, "stop in thread "+app+"\n"), transcript)
				}
				require.Contains(t, transcript, fmt.Sprintf("disposed after %d stops", opts.Stops))
				require.Equal(t, tc.counts, strings.Count(transcript, "  suspend count 1\n"), transcript)
				require.Equal(t, tc.suspended, strings.Count(transcript, "  suspended worker: true, count 1,"), transcript)
				require.Equal(t, tc.paused, strings.Count(transcript, "  paused: every thread suspended true\n"), transcript)
				transcripts = append(transcripts, transcript)
			}
			require.Equal(t, transcripts[0], transcripts[1])
		})
	}
}

// TestDriverDirectDeep runs the JDI driver walking up the stack at each
// breakpoint: this and the variables of the frames below the top, the
// static one right below it included, with each client.
func TestDriverDirectDeep(t *testing.T) {
	for _, c := range []jvmtest.Client{jvmtest.Clients[0], jvmtest.Clients[3]} {
		t.Run(c.Name, func(t *testing.T) {
			opts := c.With(jvmtest.DriverOptions{Stops: 2, Deep: 3})
			vm := jvmtest.Start(t, "Debuggee", opts.DebuggeeArgs(opts.Stops)...)
			transcript, _ := jvmtest.RunDriver(t, vm.Addr, opts)
			require.Equal(t, 2, strings.Count(transcript, "  frame 1 this null d="), transcript)
			require.Equal(t, 2, strings.Count(transcript, "  frame 2 this Debuggee n=0\n"), transcript)
			require.Equal(t, 2, strings.Count(transcript, "  frame 3 this Debuggee n=1 next=0"), transcript)
			require.NotContains(t, transcript, "  frame 4 ")
		})
	}
}

// TestDriverDirectEvents runs the JDI driver with the other kinds of
// breakpoint an IDE sets (a watchpoint, an exception breakpoint, method
// exits), with each client: the watchpoint and the exits stop their three
// times, the exception once a round, and each shows what its event says.
func TestDriverDirectEvents(t *testing.T) {
	for _, c := range jvmtest.Clients {
		t.Run(c.Name, func(t *testing.T) {
			opts := c.With(jvmtest.DriverOptions{Stops: 2, Events: true})
			vm := jvmtest.Start(t, "Debuggee", opts.DebuggeeArgs(3)...)
			transcript, _ := jvmtest.RunDriver(t, vm.Addr, opts)
			require.Equal(t, 3, strings.Count(transcript, "\nwatch counter "), transcript)
			require.Equal(t, 2, strings.Count(transcript, "\nexception java.lang.IllegalStateException at Debuggee.refuse(Debuggee.java:"), transcript)
			require.Contains(t, transcript, ") caught at Debuggee.marker(Debuggee.java:")
			require.Equal(t, 3, strings.Count(transcript, "\nexit "), transcript)
			require.Contains(t, transcript, "\nexit area returns 1764.0 at Debuggee$Square.area(Debuggee.java:")
			require.Contains(t, transcript, "\nwatch counter 0 -> 8 at Debuggee.marker(Debuggee.java:")
			require.Contains(t, transcript, "disposed after 2 stops")
		})
	}
}

// TestDriverDirectConditional runs the JDI driver with a conditional
// breakpoint, as an IDE evaluates one: two hits in three are resumed once
// n was read, the third is the stop the transcript shows.
func TestDriverDirectConditional(t *testing.T) {
	opts := jvmtest.DriverOptions{Stops: 2, Conditional: true}
	vm := jvmtest.Start(t, "Debuggee", opts.DebuggeeArgs(opts.Stops)...)
	transcript, _ := jvmtest.RunDriver(t, vm.Addr, opts)
	for _, hit := range []string{"hit 1: n is 0, condition false", "hit 2: n is 0, condition false", "stop 1 in thread main", "hit 4: n is 0, condition false", "stop 2 in thread main", "disposed after 2 stops"} {
		require.Contains(t, transcript, hit+"\n")
	}
	require.Less(t, strings.Index(transcript, "hit 2:"), strings.Index(transcript, "stop 1 "), transcript)
	require.NotContains(t, transcript, "hit 3:")
}

// TestJdbDirectEvents runs jdb with an exception caught and a field
// watched: each round stops at the breakpoint, at the field written twice
// in marker and once in main, and at the exception thrown, and jdb shows
// where and the locals at each.
func TestJdbDirectEvents(t *testing.T) {
	opts := jvmtest.DriverOptions{Stops: 2, Jdb: true, Events: true}
	vm := jvmtest.Start(t, "Debuggee", opts.DebuggeeArgs(3)...)
	transcript, _ := jvmtest.RunDriver(t, vm.Addr, opts)
	require.Equal(t, 2, strings.Count(transcript, "Exception occurred: java.lang.IllegalStateException (to be caught at: Debuggee.marker()"), transcript)
	require.Equal(t, 6, strings.Count(transcript, "Field (Debuggee.counter) is "), transcript)
	require.Equal(t, 2, strings.Count(transcript, "Breakpoint hit:"), transcript)
	require.Contains(t, transcript, "The application exited")
}
