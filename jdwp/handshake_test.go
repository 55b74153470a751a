package jdwp_test

import (
	"net"
	"testing"
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

func TestHandshakeBothRoles(t *testing.T) {
	dbg, vm := net.Pipe()
	defer dbg.Close()
	defer vm.Close()
	done := make(chan error, 1)
	go func() { done <- jdwp.VMHandshake(vm, time.Second) }()
	require.NoError(t, jdwp.DebuggerHandshake(dbg, time.Second))
	require.NoError(t, <-done)
}

func TestHandshakeRejectsHTTP(t *testing.T) {
	client, server := net.Pipe()
	defer client.Close()
	defer server.Close()
	go func() { _, _ = client.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")) }()
	err := jdwp.VMHandshake(server, time.Second)
	require.ErrorIs(t, err, jdwp.ErrBadHandshake)
	require.Contains(t, err.Error(), "HTTP")
}

func TestHandshakeShortPeer(t *testing.T) {
	client, server := net.Pipe()
	defer server.Close()
	go func() {
		_, _ = client.Write([]byte("JDWP-Hand"))
		client.Close()
	}()
	err := jdwp.VMHandshake(server, time.Second)
	require.Error(t, err)
	require.NotErrorIs(t, err, jdwp.ErrBadHandshake)
}

func TestHandshakeDeadline(t *testing.T) {
	client, server := net.Pipe()
	defer client.Close()
	defer server.Close()
	// The peer never answers: the deadline ends the wait with a timeout error.
	err := jdwp.DebuggerHandshake(server, 10*time.Millisecond)
	require.Error(t, err)
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	require.True(t, ne.Timeout())
}
