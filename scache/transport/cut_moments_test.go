package transport_test

import (
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

// A moment of a debugging session at which a test cuts the link: a packet
// the debugger sends (up) or receives.
type moment struct {
	name string
	up   bool
	is   func(h jdwp.Header, data []byte) bool
}

var (
	// atABreakpoint: the VM's breakpoint event has reached the debugger,
	// which inspects the stop while the link is down.
	atABreakpoint = moment{"at a breakpoint", false, func(h jdwp.Header, data []byte) bool {
		return h.Cmd() == jdwp.CmdEventComposite && len(data) > 5 && jdwp.EventKind(data[5]) == jdwp.EventBreakpoint
	}}
	// duringAStep: the debugger asks for a step; the resume that starts it
	// and the step's event cross the link after it is back.
	duringAStep = moment{"during a step", true, func(h jdwp.Header, data []byte) bool {
		return h.Cmd() == jdwp.CmdEventRequestSet && len(data) > 0 && jdwp.EventKind(data[0]) == jdwp.EventSingleStep
	}}
	// duringAnInvocation: the debugger invokes a method (a renderer's
	// toString, jdb's print); the method runs in the VM while the link
	// is down, and its reply waits at the near half.
	duringAnInvocation = moment{"during an invocation", true, func(h jdwp.Header, _ []byte) bool {
		return h.Cmd() == jdwp.CmdObjectReferenceInvokeMethod || h.Cmd() == jdwp.CmdClassTypeInvokeMethod
	}}
)

// watchDebugger relays one debugger's connection to target, and calls at
// the nth packet that is m, once, before the packet goes on.
func watchDebugger(t *testing.T, target string, m moment, nth int, at func()) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		dbg, err := ln.Accept()
		if err != nil {
			return
		}
		defer dbg.Close()
		far, err := net.Dial("tcp", target)
		if err != nil {
			return
		}
		defer far.Close()
		hs := make([]byte, len(jdwp.HandshakeBytes))
		if _, err := io.ReadFull(dbg, hs); err != nil {
			return
		}
		if _, err := far.Write(hs); err != nil {
			return
		}
		if _, err := io.ReadFull(far, hs); err != nil {
			return
		}
		if _, err := dbg.Write(hs); err != nil {
			return
		}
		var mu sync.Mutex
		seen := 0
		relay := func(from, to net.Conn, up bool) {
			defer to.Close()
			_ = jdwp.NewFramer(nil, from).ReadEach(func(p []byte) error {
				if h, err := jdwp.ParseHeader(p); err == nil && !h.IsReply() && up == m.up && m.is(h, jdwp.Data(p)) {
					mu.Lock()
					seen++
					if seen == nth {
						at()
					}
					mu.Unlock()
				}
				_, err := to.Write(p)
				return err
			})
		}
		go relay(far, dbg, false)
		relay(dbg, far, true)
	}()
	return ln.Addr().String()
}

// TestASessionSurvivesCutsAtChosenMoments debugs real VMs with the JDI
// driver and jdb through a split proxy whose link is reset at a chosen
// moment, at a breakpoint, during a step or during an invocation, and
// stays down for 1 s, 10 s or 60 s: every transcript equals a direct
// session's (what the VM raised or answered during the outage reached the
// debugger after it, in order), and both halves ended cleanly.
func TestASessionSurvivesCutsAtChosenMoments(t *testing.T) {
	jvmtest.Require(t)
	jdi := jvmtest.DriverOptions{Stops: 3, Renderers: true}
	jdb := jvmtest.DriverOptions{Stops: 3, Jdb: true, JdbInspect: true}
	for _, tc := range []struct {
		client string
		opts   jvmtest.DriverOptions
		at     moment
		down   time.Duration
	}{
		// jdb's sessions stay down for at most 10 s: jdb lists the JVM's
		// own threads, and a minute's outage lets the Common-Cleaner's
		// 60-second wait expire while the VM is suspended, which shows it
		// running where a direct session showed it waiting.
		{"JDI", jdi, duringAStep, time.Minute},
		{"JDI", jdi, duringAnInvocation, time.Minute},
		{"jdb", jdb, duringAnInvocation, 10 * time.Second},
		{"JDI", jdi, atABreakpoint, time.Second},
		{"jdb", jdb, atABreakpoint, 10 * time.Second},
		{"jdb", jdb, duringAStep, time.Second},
	} {
		t.Run(fmt.Sprintf("%s %s for %v", tc.client, tc.at.name, tc.down), func(t *testing.T) {
			t.Parallel() // each waits out its outage
			vm := jvmtest.Start(t, "Debuggee", tc.opts.DebuggeeArgs(3)...)
			direct, _ := jvmtest.RunDriver(t, vm.Addr, tc.opts)

			vm = jvmtest.Start(t, "Debuggee", tc.opts.DebuggeeArgs(3)...)
			s := startResumingSplit(t, vm.Addr)
			var cut atomic.Bool
			debugger := watchDebugger(t, s.far, tc.at, 2, func() {
				cut.Store(true)
				s.cutter.Reset()
				time.AfterFunc(tc.down, s.cutter.Restore) // the outage itself, not a synchronisation
			})
			got, _ := jvmtest.RunDriver(t, debugger, tc.opts)
			require.Equal(t, direct, got, "the transcript through a link cut %s for %v", tc.at.name, tc.down)
			require.True(t, cut.Load(), "the link was cut %s", tc.at.name)
			far, near := s.ends(t)
			require.NoError(t, far.err)
			require.NoError(t, near.err)
			require.GreaterOrEqual(t, far.stats.TunnelResumes, 1, "the far half resumed")
			require.GreaterOrEqual(t, near.stats.TunnelResumes, 1, "the near half too")
		})
	}
}
