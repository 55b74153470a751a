package transport_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/internal/tunnel"
	"github.com/jdwpscache/scache/scache/transport"
	"github.com/stretchr/testify/require"
)

// floodEnv makes the test binary a flood of connections (floodMain) instead
// of running the tests: "ADDR IDLE SLOW".
const floodEnv = "SCACHE_TEST_FLOOD"

// The flood's connections come from loopback addresses other than
// 127.0.0.1, the real far half's: idle ones from floodSources addresses,
// and slow ones from as many others.
const floodSources = 10

// A near half with hundreds of idle connections and a hundred that drip
// their hello a byte at a time held open against it, from other
// addresses, still serves the real far half: its jdb session's transcript
// equals a direct one. The VM is dialled for that session alone, and the
// near half's sockets and goroutines stay within its limits and fall back
// once the flood ends. Plain on loopback, and keyed.
func TestAFloodOfIdleConnectionsNeverLocksOutTheFarHalf(t *testing.T) {
	opts := jvmtest.DriverOptions{Stops: 2, Jdb: true}
	vm := jvmtest.Start(t, "Debuggee", opts.DebuggeeArgs(3)...)
	direct, _ := jvmtest.RunJdb(t, vm.Addr, opts)
	key := newKey(t)
	for _, keyed := range []bool{false, true} {
		t.Run(fmt.Sprintf("keyed=%v", keyed), func(t *testing.T) {
			var keyOpts []scache.Option
			if keyed {
				keyOpts = []scache.Option{transport.WithTunnelKey(key)}
			}
			vm := jvmtest.Start(t, "Debuggee", opts.DebuggeeArgs(3)...)
			var dials atomic.Int32
			near := serveProxy(t, func(ctx context.Context) (net.Conn, error) {
				dials.Add(1)
				var d net.Dialer
				return d.DialContext(ctx, "tcp", vm.Addr)
			}, append([]scache.Option{transport.WithSplit(transport.NearHalf)}, keyOpts...)...)
			far, _ := serveProxyFor(t, near, "the far half", append([]scache.Option{transport.WithSplit(transport.FarHalf)}, keyOpts...)...)

			runtime.GC()
			fds, goroutines := openFiles(t), runtime.NumGoroutine()
			stopFlood := startFlood(t, near, 500, 100)
			peak := watchPeak(t, func() int { return openFiles(t) })
			got, _ := jvmtest.RunJdb(t, far, opts)
			require.Equal(t, direct, got, "the far half's session through the flood")
			require.Equal(t, int32(1), dials.Load(), "the VM is dialled for the far half's session alone")
			maxFDs, maxGoroutines := peak()
			// The far half, jdb's connection and the session's own take a
			// few; the near half holds at most its limit in their handshake,
			// and as many refused ones for 200 ms while their refusal is read.
			bound := 2*transport.DefaultHandshakeLimits.Full + 32
			require.LessOrEqual(t, maxFDs-fds, bound, "the files held during the flood (%d before)", fds)
			// A connection closed for a newer one ends its goroutine when
			// its read returns: under churn some are still ending.
			require.LessOrEqual(t, maxGoroutines-goroutines, 2*bound, "the goroutines during the flood")
			t.Logf("flood: %d files before, %d at most during it; %d goroutines before, %d at most", fds, maxFDs, goroutines, maxGoroutines)
			stopFlood()
			require.Eventually(t, func() bool { return openFiles(t) <= fds+2 && runtime.NumGoroutine() <= goroutines+4 },
				30*time.Second, 10*time.Millisecond, "files and goroutines fall back after the flood")
		})
	}
}

// watchPeak samples the open files and goroutines until the returned
// function is called, which returns the most of each seen.
func watchPeak(t *testing.T, files func() int) func() (int, int) {
	var mu sync.Mutex
	maxFiles, maxGoroutines := 0, 0
	sample := func() {
		f, g := files(), runtime.NumGoroutine()
		mu.Lock()
		maxFiles, maxGoroutines = max(maxFiles, f), max(maxGoroutines, g)
		mu.Unlock()
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			sample()
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	var once sync.Once
	stop := func() (int, int) {
		once.Do(func() { close(done); <-stopped })
		mu.Lock()
		defer mu.Unlock()
		return maxFiles, maxGoroutines
	}
	t.Cleanup(func() { stop() })
	return stop
}

// openFiles counts this process's open file descriptors.
func openFiles(t *testing.T) int {
	entries, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	return len(entries)
}

// startFlood starts a process of the test binary that opens idle and slow
// connections to addr and holds them until the returned function is
// called (or the test ends). It returns once all are open.
func startFlood(t *testing.T, addr string, idle, slow int) func() {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d %d", floodEnv, addr, idle, slow))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var once sync.Once
	stop := func() {
		once.Do(func() {
			in.Close() // the flood ends when its input does
			_ = cmd.Wait()
		})
	}
	t.Cleanup(stop)
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err, "the flood's first line")
	require.Equal(t, "open\n", line)
	return stop
}

// floodMain is the flood process: "ADDR IDLE SLOW" in floodEnv. Idle
// connections send nothing; slow ones send a far half's opening a byte
// every 500 ms. Each comes from a loopback address other than 127.0.0.1.
// It prints "open" once all are open, and ends when its input does.
func floodMain(spec string) int {
	f := strings.Fields(spec)
	if len(f) != 3 {
		fmt.Fprintln(os.Stderr, "flood: want ADDR IDLE SLOW, got", spec)
		return 2
	}
	idle, _ := strconv.Atoi(f[1])
	slow, _ := strconv.Atoi(f[2])
	var conns []net.Conn
	dial := func(source int) (net.Conn, error) {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(2+source))}, Timeout: 10 * time.Second}
		return d.Dial("tcp", f[0])
	}
	for i := range idle {
		c, err := dial(i % floodSources)
		if err != nil {
			fmt.Fprintln(os.Stderr, "flood:", err)
			return 1
		}
		conns = append(conns, c)
	}
	opening := tunnel.FarOpening(tunnel.Supported)
	for i := range slow {
		c, err := dial(floodSources + i%floodSources)
		if err != nil {
			fmt.Fprintln(os.Stderr, "flood:", err)
			return 1
		}
		conns = append(conns, c)
		go func() {
			tick := time.NewTicker(500 * time.Millisecond)
			defer tick.Stop()
			for _, b := range opening {
				if _, err := c.Write([]byte{b}); err != nil {
					return
				}
				<-tick.C
			}
		}()
	}
	fmt.Println("open")
	_, _ = io.Copy(io.Discard, os.Stdin)
	for _, c := range conns {
		c.Close()
	}
	return 0
}

// A far half refused at the door (here: another connection from its
// address already in its handshake, and speaking) is told why, plain and
// keyed, and logs it: not that the near half looks like a JDWP VM.
func TestAFarHalfRefusedAtTheDoorIsToldWhy(t *testing.T) {
	key := newKey(t)
	limits := transport.DefaultHandshakeLimits
	limits.PerSource = 1
	for _, keyed := range []bool{false, true} {
		t.Run(fmt.Sprintf("keyed=%v", keyed), func(t *testing.T) {
			var keyOpts []scache.Option
			if keyed {
				keyOpts = []scache.Option{transport.WithTunnelKey(key)}
			}
			var dials atomic.Int32
			for try := range 20 {
				near := serveProxy(t, func(ctx context.Context) (net.Conn, error) {
					dials.Add(1)
					return nil, io.EOF
				}, append([]scache.Option{transport.WithSplit(transport.NearHalf), transport.WithHandshakeLimits(limits)}, keyOpts...)...)
				// One that speaks and does not finish holds the address's place.
				slow, err := net.Dial("tcp", near)
				require.NoError(t, err)
				_, err = slow.Write(tunnel.FarHello(tunnel.Supported)[:3])
				require.NoError(t, err)
				ended := make(chan error, 1)
				far := serveProxy(t, func(ctx context.Context) (net.Conn, error) {
					var d net.Dialer
					return d.DialContext(ctx, "tcp", near)
				}, append([]scache.Option{transport.WithSplit(transport.FarHalf),
					transport.WithSessionEnded(func(_ scache.Stats, err error) { ended <- err })}, keyOpts...)...)
				dbg, err := net.Dial("tcp", far)
				require.NoError(t, err)
				_, err = dbg.Write([]byte("JDWP-Handshake"))
				require.NoError(t, err)
				err = <-ended
				require.ErrorContains(t, err, "the near half refused the connection", "try %d", try)
				require.ErrorContains(t, err, "the limit per address", "try %d", try)
				dbg.Close()
				slow.Close()
			}
			require.Zero(t, dials.Load(), "the VM is never dialled")
		})
	}
}

// A far half that arrives while every connection in the near half's
// handshake table speaks and none is stale takes the place of one of them
// (here the table drops every newcomer from Start on): a crowd turns no
// one away, only the limit per address does. The near half then dials the
// VM for it.
func TestAFarHalfIsNeverTurnedAwayByACrowdThatSpeaks(t *testing.T) {
	limits := transport.DefaultHandshakeLimits
	limits.Start, limits.Rate = 4, 100
	var dials atomic.Int32
	near := serveProxy(t, func(ctx context.Context) (net.Conn, error) {
		dials.Add(1)
		return nil, io.EOF
	}, transport.WithSplit(transport.NearHalf), transport.WithHandshakeLimits(limits), transport.WithHandshakeTimeout(time.Minute))
	opening := tunnel.FarOpening(tunnel.Supported)
	for range limits.Start {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
		c, err := d.Dial("tcp", near)
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		_, err = c.Write(opening[:1]) // speaking, and never finishing
		require.NoError(t, err)
	}
	ended := make(chan error, 1)
	far := serveProxy(t, func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", near)
	}, transport.WithSplit(transport.FarHalf), transport.WithSessionEnded(func(_ scache.Stats, err error) { ended <- err }))
	dbg, err := net.Dial("tcp", far)
	require.NoError(t, err)
	defer dbg.Close()
	_, err = dbg.Write([]byte("JDWP-Handshake"))
	require.NoError(t, err)
	err = <-ended
	require.Error(t, err, "the VM is not there")
	require.NotContains(t, err.Error(), "refused the connection")
	require.Equal(t, int32(1), dials.Load(), "the near half dialled the VM for the far half")
}
