package tunnel

import (
	"bytes"
	"testing"

	"github.com/jdwpscache/scache/jdwp"
)

// FuzzTunnelHellos feeds arbitrary bytes to both halves' hello readers:
// an error or nil, never a panic, and only the real hellos are accepted.
func FuzzTunnelHellos(f *testing.F) {
	f.Add(FarHello())
	f.Add(NearHello(0, ""))
	f.Add(NearHello(1, "versions differ"))
	f.Add(jdwp.HandshakeBytes)
	f.Fuzz(func(t *testing.T, data []byte) {
		if ReadFarHello(bytes.NewReader(data)) == nil && !bytes.HasPrefix(data, FarHello()) {
			t.Fatalf("accepted %q as a far half's hello", data)
		}
		if ReadNearHello(bytes.NewReader(data)) == nil && !bytes.HasPrefix(data, NearHello(0, "")[:len(magic)+3]) {
			t.Fatalf("accepted %q as a near half's answer", data)
		}
	})
}
