package tunnel

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/jdwpscache/scache/jdwp"
)

// FuzzTunnelHellos feeds arbitrary bytes to both halves' hello readers:
// an error or nil, never a panic, and only the real hellos are accepted.
func FuzzTunnelHellos(f *testing.F) {
	f.Add(FarHello(Supported))
	f.Add(NearHello(0, Supported, ""))
	f.Add(NearHello(1, 0, "versions differ"))
	f.Add(jdwp.HandshakeBytes)
	f.Add(ResumeHello(Resume, Token{9}, 12345, 678, 900))
	f.Fuzz(func(t *testing.T, data []byte) {
		if offer, err := ReadFarHello(bytes.NewReader(data)); err == nil && !bytes.HasPrefix(data, FarHello(offer)) {
			t.Fatalf("accepted %q as a far half's hello", data)
		}
		if h, err := ReadHello(bytes.NewReader(data)); err == nil && h.Resume &&
			!bytes.HasPrefix(data, ResumeHello(h.Features, h.Token, h.Received, h.From, h.To)) {
			t.Fatalf("accepted %q as a resume hello", data)
		}
		if accept, err := ReadNearHello(bytes.NewReader(data)); err == nil &&
			(!bytes.HasPrefix(data, NearHello(0, accept, "")[:len(magic)+4]) || accept&^Supported != 0) {
			t.Fatalf("accepted %q as a near half's answer", data)
		}
	})
}

// FuzzTunnelReader feeds arbitrary bytes to a frame reader that unpacks
// 'Z' frames: it returns frames or an error, never panics, and every frame
// it returns is whole (its length field says what it carries) and never a
// 'Z' frame.
func FuzzTunnelReader(f *testing.F) {
	f.Add(append(NewPacker().Pack(batch(8))[0], NewFrame(Heartbeat)...))
	f.Add(NewFrame(Heartbeat))
	f.Add(zipped(nil, []byte{'Z', 0, 0, 0, 0}))
	f.Fuzz(func(t *testing.T, data []byte) {
		fr := NewReader(bytes.NewReader(data), 1<<10)
		fr.Accept(Deflate)
		for range 1000 {
			b, err := fr.Read()
			if err != nil {
				if !errors.Is(err, ErrTunnel) && err != io.EOF && !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("an error that is no tunnel error: %v", err)
				}
				return
			}
			if len(b) < HeaderSize || int(uint32(b[1])<<24|uint32(b[2])<<16|uint32(b[3])<<8|uint32(b[4])) != len(b)-HeaderSize {
				t.Fatalf("a frame that is not whole: %q", b)
			}
			if b[0] == Zipped {
				t.Fatalf("a 'Z' frame handed out: %q", b)
			}
		}
	})
}
