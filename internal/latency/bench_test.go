package latency_test

import (
	"fmt"
	"io"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/latency"
	"github.com/stretchr/testify/require"
)

// BenchmarkLinkRoundTrip measures what a link realizes against what it was
// given: one JDWP command at a time through it (after the handshake) to an
// echo server and back. It reports the least and mean realized round trips
// in microseconds and the mean's excess over the set RTT and service time,
// in microseconds: how true the benchmarks' links and slow VMs are to
// their settings on this machine.
func BenchmarkLinkRoundTrip(b *testing.B) {
	for _, c := range []struct{ delay, service time.Duration }{
		{time.Millisecond, 0}, {10 * time.Millisecond, 0}, {0, 500 * time.Microsecond}, {0, 2 * time.Millisecond},
	} {
		b.Run(fmt.Sprintf("rtt=%v/service=%v", 2*c.delay, c.service), func(b *testing.B) {
			echo := echoServer(b)
			defer echo.Close()
			link, err := latency.Listen(echo.Addr().String(), c.delay, latency.WithService(c.service))
			require.NoError(b, err)
			defer link.Close()
			conn, err := net.Dial("tcp", link.Addr)
			require.NoError(b, err)
			defer conn.Close()
			handshake := []byte("JDWP-Handshake")
			_, err = conn.Write(handshake)
			require.NoError(b, err)
			_, err = io.ReadFull(conn, handshake)
			require.NoError(b, err)
			command := []byte{0, 0, 0, 11, 0, 0, 0, 1, 0, 1, 1} // VirtualMachine.Version
			var rtts []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				_, err := conn.Write(command)
				require.NoError(b, err)
				_, err = io.ReadFull(conn, command)
				require.NoError(b, err)
				rtts = append(rtts, time.Since(start))
			}
			var sum time.Duration
			for _, r := range rtts {
				sum += r
			}
			mean := sum / time.Duration(len(rtts))
			set := 2*c.delay + c.service
			b.ReportMetric(float64(slices.Min(rtts).Microseconds()), "least_us")
			b.ReportMetric(float64(mean.Microseconds()), "mean_us")
			b.ReportMetric(float64((mean - set).Microseconds()), "mean_excess_us")
		})
	}
}
