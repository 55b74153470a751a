package transport_test

import (
	"context"
	"log/slog"
	"net"
	"testing"

	"github.com/jdwpscache/scache/internal/logtest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/transport"
	"github.com/stretchr/testify/require"
)

// A session that ends on an error (here a VM that dies inside a packet) is
// logged as a warning with the error, not as an ordinary end.
func TestProxyLogsASessionEndedByAnErrorAsAWarning(t *testing.T) {
	vmLn, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer vmLn.Close()
	go func() {
		c, err := vmLn.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		if jdwp.VMHandshake(c, 0) != nil {
			return
		}
		// The proxy's id sizes, asked at the handshake, are read first: a
		// socket closed with bytes unread is reset, not ended.
		if _, err := jdwp.NewFramer(nil, c).ReadPacket(); err == nil {
			_, _ = c.Write(jdwp.AppendReply(nil, 1, jdwp.ErrNone, []byte("0123456789"))[:15])
		}
	}()
	var logs logtest.Buffer
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ended := make(chan error, 1)
	p, err := transport.NewProxy(func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", vmLn.Addr().String())
	}, scache.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))),
		transport.WithSessionEnded(func(_ scache.Stats, err error) { ended <- err }))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, ln) }()
	defer func() {
		cancel()
		<-done
	}()
	c, err := jdwp.Dial(ctx, ln.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	require.ErrorContains(t, <-ended, "15 of its 21 bytes arrived")
	require.Regexp(t, `level=WARN msg="scache: session ended".*err=".*15 of its 21 bytes`, logs.String())
}
