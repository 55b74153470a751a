package transport_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/transport"
	"github.com/stretchr/testify/require"
)

// A transport's options are not a Speculator's; a transport checks its own
// and a Speculator's, and refuses the others.
func TestTransportOptionsAreCheckedByTheConstructor(t *testing.T) {
	for name, opt := range map[string]scache.Option{
		"a relay's option":       transport.WithMaxPacketSize(1 << 20),
		"a proxy's option":       transport.WithSessionEnded(func(scache.Stats, error) {}),
		"a timeout for a relay":  transport.WithHandshakeTimeout(time.Second),
		"a speculator for relay": transport.WithSpeculator(&scache.Speculator{}),
		"a half":                 transport.WithSplit(transport.NearHalf),
	} {
		_, err := scache.New(opt)
		require.ErrorContains(t, err, "does not apply to a Speculator", name)
		_, err = scache.NewNear(opt)
		require.ErrorContains(t, err, "does not apply to a split proxy's half", name)
	}
	_, err := transport.NewRelay(transport.WithMaxPacketSize(5))
	require.ErrorContains(t, err, "at least 11")
	_, err = transport.NewRelay(transport.WithSessionEnded(func(scache.Stats, error) {}))
	require.ErrorContains(t, err, "does not apply to a Relay")
	_, err = transport.NewRelay(scache.WithCacheBytes(0))
	require.ErrorContains(t, err, "at least one byte", "a Speculator's option, checked by the transport")
	s, err := scache.New()
	require.NoError(t, err)
	_, err = transport.NewRelay(transport.WithSpeculator(s), scache.Classic())
	require.Error(t, err, "a Speculator given and options for another")
	_, err = transport.NewRelay(transport.WithSpeculator(s), transport.WithSplit(transport.FarHalf))
	require.Error(t, err, "a half makes its own Speculator")
	r, err := transport.NewRelay(transport.WithSpeculator(s))
	require.NoError(t, err)
	require.Same(t, s, r.Speculator())
	dial := func(context.Context) (net.Conn, error) { return nil, nil }
	_, err = transport.NewProxy(dial, transport.WithSpeculator(s))
	require.ErrorContains(t, err, "does not apply to a Proxy")
	_, err = transport.NewProxy(nil)
	require.Error(t, err)
	_, err = transport.NewProxy(dial, transport.WithHandshakeTimeout(-time.Second))
	require.Error(t, err)
}

// The split option names its bad value once, behind one prefix.
func TestWithSplitSaysWhatIsWrongOnce(t *testing.T) {
	_, err := transport.NewRelay(transport.WithSplit(7))
	require.EqualError(t, err, "scache: WithSplit: 7 is not a half: NearHalf or FarHalf")
}

// A Relay made with a half's options runs that half, with the Speculator
// options given.
func TestARelayOfAHalfIsThatHalf(t *testing.T) {
	for _, h := range []transport.Half{transport.NearHalf, transport.FarHalf} {
		r, err := transport.NewRelay(transport.WithSplit(h), scache.Classic())
		require.NoError(t, err)
		require.Equal(t, h, r.Half())
		require.NotNil(t, r.Speculator())
	}
	r, err := transport.NewRelay()
	require.NoError(t, err)
	require.Equal(t, transport.Whole, r.Half())
}
