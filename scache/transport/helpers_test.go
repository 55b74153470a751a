package transport_test

import (
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/transport"
	"github.com/stretchr/testify/require"
)

// newRelay returns a Relay with valid options.
func newRelay(t require.TestingT, opts ...scache.Option) *transport.Relay {
	r, err := transport.NewRelay(opts...)
	require.NoError(t, err)
	return r
}

// newSpeculator returns a Speculator with valid options.
func newSpeculator(t require.TestingT, opts ...scache.Option) *scache.Speculator {
	s, err := scache.New(opts...)
	require.NoError(t, err)
	return s
}
