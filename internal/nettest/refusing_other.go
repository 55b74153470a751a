//go:build !unix

package nettest

import (
	"net"
	"testing"
)

// RefusingAddr returns a loopback address where nothing listens: the
// address of a listener closed at once (another process may take its port
// meanwhile, which the unix version rules out).
func RefusingAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("a refusing address: %v", err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
