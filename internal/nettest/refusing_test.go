package nettest_test

import (
	"net"
	"testing"

	"github.com/jdwpscache/scache/internal/nettest"
	"github.com/stretchr/testify/require"
)

// TestRefusingAddrRefuses: a dial to the address fails with a refusal,
// twice (the port stays held).
func TestRefusingAddrRefuses(t *testing.T) {
	addr := nettest.RefusingAddr(t)
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if c != nil {
			c.Close()
		}
		require.Error(t, err)
		require.Contains(t, err.Error(), "refused")
	}
}
