//go:build unix

package nettest

import (
	"fmt"
	"syscall"
	"testing"
)

// RefusingAddr returns a loopback address where nothing listens, held
// until the test ends: every connection to it is refused. The port is
// bound by a socket that never listens, so no other process (a JVM or an
// adb server another test starts) can take it meanwhile, as it could a
// port whose listener was closed.
func RefusingAddr(t testing.TB) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatalf("a socket for a refusing address: %v", err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatalf("binding a refusing address: %v", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatalf("the refusing address's port: %v", err)
	}
	in4, ok := sa.(*syscall.SockaddrInet4)
	if !ok {
		t.Fatalf("the refusing address is %T", sa)
	}
	return fmt.Sprintf("127.0.0.1:%d", in4.Port)
}
