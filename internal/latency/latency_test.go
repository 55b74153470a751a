package latency_test

import (
	"io"
	"math/rand/v2"
	"net"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/latency"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// echoServer answers every connection with what it reads.
func echoServer(t testing.TB) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	return ln
}

// TestLinkKeepsEveryByteInOrder sends a megabyte in uneven writes through the
// link to an echo server and back: both directions deliver every byte, in
// order, and Close leaves no goroutine behind.
func TestLinkKeepsEveryByteInOrder(t *testing.T) {
	for _, c := range []struct {
		name    string
		delay   time.Duration
		profile string
	}{{"0s", 0, ""}, {"1ms", time.Millisecond, ""}, {"usb", 0, "usb"}, {"wifi-powersave", 0, "wifi-powersave"}} {
		delay := c.delay
		t.Run(c.name, func(t *testing.T) {
			defer goleak.VerifyNone(t)
			echo := echoServer(t)
			defer echo.Close()
			// With a service time too: bytes that are not JDWP go on unserved.
			opts := []latency.Option{latency.WithService(delay)}
			if c.profile != "" {
				opts = append(opts, latency.WithProfile(latency.Profiles[c.profile], 7))
			}
			link, err := latency.Listen(echo.Addr().String(), delay, opts...)
			require.NoError(t, err)
			defer link.Close()

			c, err := net.Dial("tcp", link.Addr)
			require.NoError(t, err)
			defer c.Close()
			want := make([]byte, 1<<20)
			rng := rand.New(rand.NewPCG(1, uint64(delay)))
			for i := range want {
				want[i] = byte(rng.Uint32())
			}
			go func() {
				for rest := want; len(rest) > 0; {
					n := min(len(rest), 1+rng.IntN(70000))
					if _, err := c.Write(rest[:n]); err != nil {
						return
					}
					rest = rest[n:]
				}
			}()
			got := make([]byte, len(want))
			_, err = io.ReadFull(c, got)
			require.NoError(t, err)
			require.Equal(t, want, got)
		})
	}
}
