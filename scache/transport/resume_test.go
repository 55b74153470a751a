package transport_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/internal/logtest"
	"github.com/jdwpscache/scache/internal/nettest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/internal/tunnel"
	"github.com/jdwpscache/scache/scache/transport"
	"github.com/stretchr/testify/require"
)

// resumeSilence is the halves' silence timeout in these tests: a
// black-holed link is noticed within it, as a real one is within 15 s.
const resumeSilence = 400 * time.Millisecond

// resumingSplit is a split proxy whose link a test cuts: a far half, a
// near half in front of a VM, a Cutter between them, and what the halves
// logged and their sessions' ends.
type resumingSplit struct {
	far    string // the debugger's address
	near   string // the near half's own address (behind the cutter)
	cutter *nettest.Cutter
	logs   *logtest.Buffer
	ended  chan halfEnd
}

type halfEnd struct {
	half  transport.Half
	stats scache.Stats
	err   error
}

// startResumingSplit runs both halves with opts (and resumeSilence) until
// the test ends.
func startResumingSplit(t *testing.T, vmAddr string, opts ...scache.Option) *resumingSplit {
	s := &resumingSplit{logs: &logtest.Buffer{}, ended: make(chan halfEnd, 4)}
	log := slog.New(slog.NewTextHandler(s.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	serve := func(half transport.Half, target string) string {
		return serveProxy(t, func(ctx context.Context) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "tcp", target)
		}, append([]scache.Option{transport.WithSplit(half), transport.WithSilenceTimeout(resumeSilence), scache.WithLogger(log),
			transport.WithSessionEnded(func(st scache.Stats, err error) { s.ended <- halfEnd{half, st, err} })}, opts...)...)
	}
	s.near = serve(transport.NearHalf, vmAddr)
	s.cutter = nettest.NewCutter(t, s.near)
	s.far = serve(transport.FarHalf, s.cutter.Addr)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s; the halves logged:\n%s", s.cutter, s.logs)
		}
	})
	return s
}

// debug starts a VM (suspended, as Debuggee 3) behind a resuming split
// proxy with opts, attaches a debugger to the far half and has the VM's
// version answered through the link. The context bounds the test.
func debug(t *testing.T, opts ...scache.Option) (*resumingSplit, *jdwp.Conn, *jvmtest.VM, context.Context) {
	jvmtest.Require(t)
	vm := jvmtest.Start(t, "Debuggee", "3")
	s := startResumingSplit(t, vm.Addr, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	dbg, err := jdwp.Dial(ctx, s.far)
	require.NoError(t, err)
	t.Cleanup(func() { dbg.Close() })
	require.NoError(t, dbg.Call(ctx, &jdwp.VMVersionCommand{}, nil))
	return s, dbg, vm, ctx
}

// ends returns both halves' session ends, the far half's first.
func (s *resumingSplit) ends(t *testing.T) (far, near halfEnd) {
	for range 2 {
		select {
		case e := <-s.ended:
			if e.half == transport.FarHalf {
				far = e
			} else {
				near = e
			}
		case <-time.After(time.Minute):
			t.Fatalf("the halves' sessions did not end; they logged:\n%s", s.logs)
		}
	}
	return far, near
}

// TestASessionSurvivesItsLinkCut debugs real VMs with the JDI driver and
// jdb through a split proxy whose link is reset or black-holed again and
// again mid-stream (at stops, in steps, in invocations, in the middle of
// frames): every transcript equals a direct session's, the link came back
// each time, and both halves ended cleanly.
func TestASessionSurvivesItsLinkCut(t *testing.T) {
	jvmtest.Require(t)
	for _, tc := range []struct {
		name  string
		opts  jvmtest.DriverOptions
		cut   func(c *nettest.Cutter)
		least int // cuts at least
	}{
		{"JDI reset every 4 KiB", jvmtest.DriverOptions{Stops: 3}, func(c *nettest.Cutter) { c.CutEvery(4 << 10) }, 3},
		{"JDI with renderers reset every 1500 bytes", jvmtest.DriverOptions{Stops: 2, Renderers: true}, func(c *nettest.Cutter) { c.CutEvery(1500) }, 10},
		{"JDI black-holed every 16 KiB", jvmtest.DriverOptions{Stops: 3}, func(c *nettest.Cutter) { c.HoleEvery(16 << 10) }, 1},
		{"jdb reset every 2 KiB", jvmtest.DriverOptions{Stops: 3, Jdb: true}, func(c *nettest.Cutter) { c.CutEvery(2 << 10) }, 3},
		// Down for a second each time: the VM runs to its next stop
		// meanwhile, and its events wait at the near half.
		{"JDI down for 1 s every 12 KiB", jvmtest.DriverOptions{Stops: 3}, func(c *nettest.Cutter) {
			c.CutEvery(12 << 10)
			c.DownFor(time.Second)
		}, 1},
		// One long outage mid-session: the far half's dials are reset all
		// along, the session waits (a minute's: cut_moments_test.go).
		{"JDI down for 10 s once", jvmtest.DriverOptions{Stops: 3, Renderers: true}, func(c *nettest.Cutter) {
			c.CutOnceAt(24 << 10)
			c.DownFor(10 * time.Second)
		}, 1},
		{"jdb down for 10 s once", jvmtest.DriverOptions{Stops: 3, Jdb: true}, func(c *nettest.Cutter) {
			c.CutOnceAt(6 << 10)
			c.DownFor(10 * time.Second)
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vm := jvmtest.Start(t, "Debuggee", tc.opts.DebuggeeArgs(3)...)
			direct, _ := jvmtest.RunDriver(t, vm.Addr, tc.opts)

			vm = jvmtest.Start(t, "Debuggee", tc.opts.DebuggeeArgs(3)...)
			s := startResumingSplit(t, vm.Addr)
			tc.cut(s.cutter)
			got, _ := jvmtest.RunDriver(t, s.far, tc.opts)
			require.Equal(t, direct, got, "the transcript through a link cut again and again (%s)\nlogs:\n%s", s.cutter, s.logs)
			far, near := s.ends(t)
			require.NoError(t, far.err, s.logs.String())
			require.NoError(t, near.err, s.logs.String())
			_, cuts := s.cutter.Counts()
			require.GreaterOrEqual(t, cuts, tc.least, "the link was cut")
			require.GreaterOrEqual(t, far.stats.TunnelResumes, tc.least, "the far half resumed after each cut: %s", s.cutter)
			require.GreaterOrEqual(t, near.stats.TunnelResumes, tc.least, "the near half too")
			require.Contains(t, s.logs.String(), "is back: the session goes on")
		})
	}
}

// TestAHundredCutsLoseAndDoubleNothing cuts one session's link a hundred
// times and more: the debugger gets exactly the replies the VM sent, each
// once (the far half's packets from the near half equal the near half's
// packets from the VM), and the transcript is the direct one.
func TestAHundredCutsLoseAndDoubleNothing(t *testing.T) {
	jvmtest.Require(t)
	opts := jvmtest.DriverOptions{Stops: 4, Renderers: true}
	vm := jvmtest.Start(t, "Debuggee", opts.DebuggeeArgs(3)...)
	direct, _ := jvmtest.RunDriver(t, vm.Addr, opts)
	vm = jvmtest.Start(t, "Debuggee", opts.DebuggeeArgs(3)...)
	s := startResumingSplit(t, vm.Addr, scache.PassThrough())
	s.cutter.CutEvery(300)
	got, _ := jvmtest.RunDriver(t, s.far, opts)
	require.Equal(t, direct, got, "logs:\n%s", s.logs)
	far, near := s.ends(t)
	require.NoError(t, far.err)
	require.NoError(t, near.err)
	require.GreaterOrEqual(t, far.stats.TunnelResumes, 100, "%s", s.cutter)
	require.Equal(t, near.stats.PacketsDown, far.stats.PacketsDown, "every packet of the VM reached the debugger once")
	require.Equal(t, far.stats.PacketsUp, near.stats.PacketsUp, "every packet of the debugger reached the VM once")
	require.Positive(t, far.stats.TunnelSentAgainBytes+near.stats.TunnelSentAgainBytes, "cuts mid-stream lost bytes in flight, sent again")
}

// TestAKeyedSessionResumesFromANewAddress resumes a keyed session: each of
// the far half's connections reaches the near half from another loopback
// address, through the same key.
func TestAKeyedSessionResumesFromANewAddress(t *testing.T) {
	jvmtest.Require(t)
	key, err := transport.GenerateTunnelKey(filepath.Join(t.TempDir(), "tunnel.key"))
	require.NoError(t, err)
	opts := jvmtest.DriverOptions{Stops: 3}
	vm := jvmtest.Start(t, "Debuggee", opts.DebuggeeArgs(3)...)
	direct, _ := jvmtest.RunDriver(t, vm.Addr, opts)
	vm = jvmtest.Start(t, "Debuggee", opts.DebuggeeArgs(3)...)
	s := startResumingSplit(t, vm.Addr, transport.WithTunnelKey(key))
	s.cutter.CutEvery(8 << 10)
	got, _ := jvmtest.RunDriver(t, s.far, opts)
	require.Equal(t, direct, got, "logs:\n%s", s.logs)
	far, _ := s.ends(t)
	require.GreaterOrEqual(t, far.stats.TunnelResumes, 2)
	logs := s.logs.String()
	var sources []string
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, "half=near") && strings.Contains(line, "is back") {
			_, remote, _ := strings.Cut(line, "remote=")
			host, _, _ := net.SplitHostPort(remote)
			sources = append(sources, host)
		}
	}
	require.GreaterOrEqual(t, len(sources), 2, logs)
	require.NotEqual(t, sources[0], sources[1], "the resumes came from different addresses")
}

// cutAndWaitForResume resets the link, brings it back, and returns once a
// debugger's command went through the resumed link.
func cutAndWaitForResume(t *testing.T, s *resumingSplit, dbg *jdwp.Conn) {
	s.cutter.Reset()
	s.cutter.Restore()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var version jdwp.VMVersionReply
	require.NoError(t, dbg.Call(ctx, &jdwp.VMVersionCommand{}, &version), "logs:\n%s", s.logs)
}

// resumeRefusal sends hello to the near half on a connection of its own and
// returns its answer's error.
func resumeRefusal(t *testing.T, nearAddr string, hello []byte) error {
	c, err := net.Dial("tcp", nearAddr)
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write(hello)
	require.NoError(t, err)
	_, err = tunnel.ReadNearHello(c)
	return err
}

// TestAWrongOrReplayedResumeNeverReachesTheSession resumes a session twice,
// then sends the near half the far half's first two resume hellos again,
// and one with a token of its own: each is refused (StatusResume) and
// logged, and the session goes on as before.
func TestAWrongOrReplayedResumeNeverReachesTheSession(t *testing.T) {
	jvmtest.Require(t)
	vm := jvmtest.Start(t, "Debuggee", "3")
	// Every command crosses the link, and only the test's cuts take it
	// down: the default silence timeout (a loaded machine can make the
	// tests' 400 ms look like a stall, and a resume more than counted).
	s := startResumingSplit(t, vm.Addr, scache.PassThrough(), transport.WithSilenceTimeout(scache.TunnelSilenceTimeout))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dbg, err := jdwp.Dial(ctx, s.far)
	require.NoError(t, err)
	defer dbg.Close()
	require.NoError(t, dbg.Call(ctx, &jdwp.VMIDSizesCommand{}, nil))
	cutAndWaitForResume(t, s, dbg)
	cutAndWaitForResume(t, s, dbg)
	// The near half forgets a resume's token once the far half shows it
	// read the next one: by what it sends after the answer. The command
	// held while the link was down went before it (a pipelined resume);
	// this one goes after.
	require.NoError(t, dbg.Call(ctx, &jdwp.VMVersionCommand{}, nil))
	// The far half's resume hellos, as they crossed: a dial that met the
	// link still down (it dials again at once) was reset before it sent any.
	var hellos [][]byte
	conns, _ := s.cutter.Counts()
	for i := 1; i < conns; i++ {
		if b := s.cutter.FirstBytes(i); len(b) > 0 {
			hellos = append(hellos, b)
		}
	}
	require.Len(t, hellos, 2, "two resumes crossed")
	var refusal *tunnel.RefusalError
	for i, hello := range append(hellos, tunnel.ResumeHello(tunnel.Resume|tunnel.Deflate, tunnel.Token{1, 2, 3}, 0, 0, 0)) {
		h, err := tunnel.ReadHello(bytes.NewReader(hello))
		require.NoError(t, err)
		require.True(t, h.Resume, "hello %d is a resume", i)
		err = resumeRefusal(t, s.near, hello[:len(tunnel.ResumeHello(0, tunnel.Token{}, 0, 0, 0))])
		require.ErrorAs(t, err, &refusal, "hello %d", i)
		require.Equal(t, tunnel.StatusResume, refusal.Status)
	}
	require.Equal(t, 3, strings.Count(s.logs.String(), "refusing to resume a split session"), s.logs)
	var threads jdwp.ObjectIDsReply
	require.NoError(t, dbg.Call(ctx, &jdwp.VMAllThreadsCommand{}, &threads), "the session goes on")
	require.NotEmpty(t, threads.IDs)
	dbg.Close()
	far, near := s.ends(t)
	require.NoError(t, far.err)
	require.NoError(t, near.err)
	require.Equal(t, 2, far.stats.TunnelResumes)
}

// A keyed near half takes a resume only through the key: a resume hello in
// the clear is refused, one through another key never gets past TLS, and
// the session goes on.
func TestAResumeWithoutTheKeyIsRefused(t *testing.T) {
	jvmtest.Require(t)
	key, err := transport.GenerateTunnelKey(filepath.Join(t.TempDir(), "tunnel.key"))
	require.NoError(t, err)
	vm := jvmtest.Start(t, "Debuggee", "3")
	s := startResumingSplit(t, vm.Addr, transport.WithTunnelKey(key), scache.PassThrough())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dbg, err := jdwp.Dial(ctx, s.far)
	require.NoError(t, err)
	defer dbg.Close()
	cutAndWaitForResume(t, s, dbg)
	var refusal *tunnel.RefusalError
	err = resumeRefusal(t, s.near, tunnel.ResumeHello(tunnel.Resume|tunnel.Deflate, tunnel.Token{7}, 0, 0, 0))
	require.ErrorAs(t, err, &refusal)
	require.Equal(t, tunnel.StatusKey, refusal.Status)

	// Another key: the TLS handshake fails before any hello is read.
	other, err := transport.GenerateTunnelKey(filepath.Join(t.TempDir(), "other.key"))
	require.NoError(t, err)
	c, err := net.Dial("tcp", s.near)
	require.NoError(t, err)
	defer c.Close()
	tc := other.Client(c)
	if err = tc.HandshakeContext(ctx); err == nil {
		_, err = tc.Write(tunnel.ResumeHello(tunnel.Resume|tunnel.Deflate, tunnel.Token{7}, 0, 0, 0))
		if err == nil {
			_, err = tunnel.ReadNearHello(tc)
		}
	}
	require.Error(t, err, "a far half with another key resumes nothing")
	require.Zero(t, strings.Count(s.logs.String(), "refusing to resume"), "no resume was even read")
	require.NoError(t, dbg.Call(ctx, &jdwp.VMVersionCommand{}, nil), "the session goes on")
}

// When the link stays down past the grace time, both halves end the
// session with the reason, the debugger's connection closes, and the near
// half releases the VM (its agent listens again).
func TestALinkThatDoesNotComeBackEndsTheSession(t *testing.T) {
	s, dbg, vm, ctx := debug(t, transport.WithResume(300*time.Millisecond))
	s.cutter.Reset() // and never back
	select {
	case <-dbg.Done():
	case <-ctx.Done():
		t.Fatalf("the debugger's connection stayed open:\n%s", s.logs)
	}
	far, near := s.ends(t)
	for _, e := range []halfEnd{far, near} {
		require.ErrorIs(t, e.err, transport.ErrTunnelLost)
		require.ErrorContains(t, e.err, "did not come back within 300ms")
	}
	require.Equal(t, 2, strings.Count(s.logs.String(), "did not come back within 300ms\" half="), s.logs)
	require.Eventually(t, func() bool { return vm.ListeningAddr() != vm.Addr }, 30*time.Second, time.Millisecond,
		"the VM's agent listens again: %s", vm.Output())
}

// When what a half keeps for the other passes its bound while the link is
// down (here the debugger's commands, held by the far half), the session
// ends: the far half says why and closes the debugger's connection, the
// near half gives up when its grace time passes and releases the VM.
func TestAFullKeepEndsTheSession(t *testing.T) {
	jvmtest.Require(t)
	vm := jvmtest.Start(t, "Debuggee", "3")
	s := startResumingSplit(t, vm.Addr, transport.WithResumeBytes(64<<10), transport.WithResume(2*time.Second), scache.PassThrough())
	dbg, err := net.Dial("tcp", s.far)
	require.NoError(t, err)
	defer dbg.Close()
	require.NoError(t, jdwp.DebuggerHandshake(dbg, 30*time.Second))
	_, err = dbg.Write(jdwp.AppendCommand(nil, 1, jdwp.Command{Set: 1, Cmd: 1}, nil)) // Version
	require.NoError(t, err)
	r := jdwp.NewFramer(nil, dbg)
	_, err = r.ReadPacket()
	require.NoError(t, err, "the session is on")
	s.cutter.Reset() // and never back
	// Commands for the VM, which the far half holds for the near half,
	// past the bound: 2000 with 100 random bytes each (the tunnel's
	// compression leaves them as they are).
	random := make([]byte, 100)
	for i := range 2000 {
		_, _ = rand.Read(random)
		if _, err := dbg.Write(jdwp.AppendCommand(nil, uint32(i+2), jdwp.Command{Set: 1, Cmd: 1}, random)); err != nil {
			break
		}
	}
	_, _ = io.Copy(io.Discard, dbg) // until the far half closes the debugger's connection
	far, near := s.ends(t)
	require.ErrorIs(t, far.err, transport.ErrTunnelLost)
	require.ErrorContains(t, far.err, "passed 65536 bytes")
	require.ErrorContains(t, near.err, "did not come back within 2s")
	require.Eventually(t, func() bool { return vm.ListeningAddr() != vm.Addr }, 30*time.Second, time.Millisecond,
		"the VM's agent listens again: %s", vm.Output())
}

// While a session waits for its link, a new far half's session takes the
// VM from it (the far half that lost the link is most likely gone: a far
// half that could reach the near half would have resumed): the old session
// ends, saying why, and the new one debugs the VM at once rather than after
// the grace time.
func TestANewFarHalfTakesTheVMFromASessionWaitingForItsLink(t *testing.T) {
	jvmtest.Require(t)
	var vmAddr atomic.Value // each session's VM (HotSpot may end once its debugger goes)
	vmAddr.Store(jvmtest.Start(t, "Debuggee", "3").Addr)
	logs := &logtest.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ended := make(chan error, 4)
	near := serveProxy(t, func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", vmAddr.Load().(string))
	}, transport.WithSplit(transport.NearHalf), transport.WithSilenceTimeout(resumeSilence), scache.WithLogger(log),
		transport.WithSessionEnded(func(_ scache.Stats, err error) { ended <- err }))
	far := func(target string) string {
		return serveProxy(t, func(ctx context.Context) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "tcp", target)
		}, transport.WithSplit(transport.FarHalf), transport.WithSilenceTimeout(resumeSilence), scache.WithLogger(log))
	}
	cutter := nettest.NewCutter(t, near)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	first, err := jdwp.Dial(ctx, far(cutter.Addr))
	require.NoError(t, err)
	defer first.Close()
	require.NoError(t, first.Call(ctx, &jdwp.VMVersionCommand{}, nil))

	cutter.BlackHole() // the first far half can no longer reach the near half
	require.Eventually(t, func() bool {
		return strings.Contains(logs.String(), "the link to the far half was lost; the session waits")
	}, 30*time.Second, time.Millisecond)
	vmAddr.Store(jvmtest.Start(t, "Debuggee", "3").Addr)
	second, err := jdwp.Dial(ctx, far(near))
	require.NoError(t, err, "logs:\n%s", logs)
	defer second.Close()
	var v jdwp.VMVersionReply
	require.NoError(t, second.Call(ctx, &jdwp.VMVersionCommand{}, &v), "logs:\n%s", logs)
	require.Equal(t, int32(17), v.JDWPMajor)
	require.Contains(t, logs.String(), "a new far half takes the VM from the session waiting for its link")
	select {
	case err := <-ended:
		require.ErrorIs(t, err, transport.ErrTunnelLost)
		require.ErrorContains(t, err, "a new far half's session took the VM")
	case <-ctx.Done():
		t.Fatalf("the first session did not end; logs:\n%s", logs)
	}
	cutter.Restore() // the first far half comes back: its resume is refused, and its debugger let go
	select {
	case <-first.Done():
	case <-ctx.Done():
		t.Fatalf("the first debugger is still attached; logs:\n%s", logs)
	}
	require.Contains(t, logs.String(), "refusing to resume a split session: no session holds its token")
}

// A session that ends while its link is down (the debugger detaches) ends
// on both sides once the link is back: the far half's end frame waits for
// the resume, and the near half learns why the session ended.
func TestAnEndWhileTheLinkIsDownCrossesOnResume(t *testing.T) {
	s, dbg, _, _ := debug(t, scache.PassThrough())
	s.cutter.Reset()
	require.Eventually(t, func() bool {
		return strings.Contains(s.logs.String(), "the link to the near half was lost; the session waits")
	}, 30*time.Second, time.Millisecond)
	dbg.Close()
	require.Eventually(t, func() bool {
		return strings.Contains(s.logs.String(), "the near half is not reachable yet")
	}, 30*time.Second, time.Millisecond, "the far half keeps dialing to deliver its end")
	s.cutter.Restore()
	far, near := s.ends(t)
	require.NoError(t, far.err, s.logs)
	require.NoError(t, near.err, s.logs)
	require.Contains(t, s.logs.String(), "the split session ended: the far half ended the session: the debugger closed the connection")
}

// A session survives a link that goes dark for 10 s (a train's tunnel, a
// laptop lid): both halves notice the silence, the far half's dials wait
// and time out while the link is dark, and the command the debugger sent
// in the dark is answered once it is back.
func TestASessionSurvivesATenSecondOutage(t *testing.T) {
	s, dbg, _, ctx := debug(t, scache.PassThrough())
	s.cutter.BlackHole()
	restore := time.AfterFunc(10*time.Second, s.cutter.Restore) // the outage itself, not a synchronisation
	defer restore.Stop()
	var v jdwp.VMVersionReply
	require.NoError(t, dbg.Call(ctx, &jdwp.VMVersionCommand{}, &v), "asked in the dark, answered after; logs:\n%s", s.logs)
	require.Equal(t, int32(17), v.JDWPMajor)
	require.NoError(t, dbg.Call(ctx, &jdwp.VMVersionCommand{}, nil))
	logs := s.logs.String()
	require.Contains(t, logs, "the link to the near half was lost; the session waits")
	require.Contains(t, logs, "the link to the near half is back: the session goes on")
}

// A far half whose dials are refused (nothing listens where the near half
// did: its process ended) ends the session after a few seconds, saying
// so, rather than at the end of its grace time.
func TestAFarHalfWhoseNearHalfIsGoneEndsTheSession(t *testing.T) {
	s, dbg, _, ctx := debug(t, scache.PassThrough())
	s.cutter.Reset()
	s.cutter.Close() // the port the far half dials now refuses
	select {
	case <-dbg.Done():
	case <-ctx.Done():
		t.Fatalf("the debugger's connection stayed open:\n%s", s.logs)
	}
	far := <-s.ended
	require.Equal(t, transport.FarHalf, far.half)
	require.ErrorIs(t, far.err, transport.ErrTunnelLost)
	require.ErrorContains(t, far.err, "the near half refuses connections (for 5s): it is no longer running")
}

// TestEveryClientSurvivesCutsAtRandom runs each debugger users run (both
// JDIs, one command at a time and in parallel waves) through a split proxy
// whose link is cut at random byte counts, reset or black-holed, and
// sometimes kept down a while: each transcript equals the direct one. The
// seed is logged; SCACHE_CUT_SEED replays one.
func TestEveryClientSurvivesCutsAtRandom(t *testing.T) {
	jvmtest.Require(t)
	jvmtest.RequireEclipse(t)
	seed := time.Now().UnixNano()
	if s := os.Getenv("SCACHE_CUT_SEED"); s != "" {
		var err error
		seed, err = strconv.ParseInt(s, 10, 64)
		require.NoError(t, err)
	}
	t.Logf("SCACHE_CUT_SEED=%d", seed)
	rnd := mrand.New(mrand.NewSource(seed))
	workloads := []string{"extras", "renderers", "threads", "event thread"}
	for _, c := range jvmtest.Clients {
		name := workloads[rnd.Intn(len(workloads))]
		every := int64(1000 + rnd.Intn(15000))
		// Eclipse's JDI gives up on a reply after 3 s: the outages one
		// reply crosses stay under that. A hole lasts the silence
		// timeout (400 ms here) and more, and the attach's class list
		// crosses several: holes are for the JDK's JDI, which waits.
		hole := !c.Eclipse && every >= 12000 && rnd.Intn(2) == 0
		var down time.Duration
		if every >= 8000 {
			down = time.Duration(rnd.Intn(3)) * 150 * time.Millisecond
		}
		t.Run(fmt.Sprintf("%s %s every %d bytes hole=%v down=%v", c.Name, name, every, hole, down), func(t *testing.T) {
			opts := c.With(clientWorkloads[name])
			vm := jvmtest.Start(t, "Debuggee", opts.DebuggeeArgs(3)...)
			direct, _ := jvmtest.RunDriver(t, vm.Addr, opts)
			vm = jvmtest.Start(t, "Debuggee", opts.DebuggeeArgs(3)...)
			s := startResumingSplit(t, vm.Addr)
			if hole {
				s.cutter.HoleEvery(every)
			} else {
				s.cutter.CutEvery(every)
				s.cutter.DownFor(down)
			}
			got, _ := jvmtest.RunDriver(t, s.far, opts)
			require.Equal(t, direct, got)
			far, near := s.ends(t)
			require.NoError(t, far.err)
			require.NoError(t, near.err)
		})
	}
}
