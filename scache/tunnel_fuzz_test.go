package scache

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache/internal/tunnel"
)

// FuzzTunnelFrames feeds arbitrary bytes, cut into tunnel frames as a half
// reads them, to a far half (as from the near half) and to a near half (as
// from the far half). Neither may panic; a malformed frame is an error; and
// whatever a half sends the other half is a frame the other half accepts,
// and whatever it sends the debugger or the VM is a JDWP packet.
func FuzzTunnelFrames(f *testing.F) {
	cmd := jdwp.AppendCommandPacket(nil, 7, &jdwp.VMIDSizesCommand{}, jdwp.DefaultIDSizes)
	synthetic := jdwp.AppendCommandPacket(nil, FirstSyntheticID, &jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1}, jdwp.DefaultIDSizes)
	reply := jdwp.AppendReplyPacket(nil, FirstSyntheticID, &jdwp.ThreadFramesReply{}, jdwp.DefaultIDSizes)
	f.Add(bytes.Join([][]byte{tunnel.NewFrame(tunnel.Packet, cmd), tunnel.AnnounceFrame(1, synthetic), tunnel.NewFrame(tunnel.Synthetic, reply),
		tunnel.NewFrame(tunnel.Used, []byte{11, 6, 1}), tunnel.RoundTripFrame(20*time.Millisecond, 3<<20), tunnel.NewFrame(tunnel.End, []byte("bye"))}, nil))
	f.Add(tunnel.NewFrame(tunnel.RoundTrip, bytes.Repeat([]byte{0xff}, 16)))
	f.Add(tunnel.NewFrame(tunnel.Announce, []byte{1, 2, 3}))
	f.Fuzz(func(t *testing.T, data []byte) {
		far := newFar(defaultConfig())
		near := &Near{spec: newSpeculator(defaultConfig())}
		peerFar := newFar(defaultConfig())
		fr := tunnel.NewReader(bytes.NewReader(data), 1<<16)
		for {
			b, err := fr.Read()
			if err != nil {
				if err != io.EOF && !errors.Is(err, ErrTunnel) {
					t.Fatalf("a read error that is not about the tunnel: %v", err)
				}
				return
			}
			if b[0] == tunnel.End {
				continue
			}
			out, errFar := far.FromNear(clone(b))
			if errFar == nil {
				checkFarOut(t, near, out)
			}
			out, errNear := near.FromFar(clone(b))
			if errNear == nil {
				checkNearOut(t, peerFar, out)
			}
			if (errFar != nil) != (errNear != nil) {
				if _, err := tunnel.ParseFrame(b); err != nil {
					t.Fatalf("a malformed frame accepted by one half: %v / %v", errFar, errNear)
				}
			}
		}
	})
}

// checkFarOut checks what a far half sent: packets for the debugger, frames
// the near half accepts.
func checkFarOut(t *testing.T, near *Near, out Traffic) {
	for _, p := range out.Downstream {
		if err := new(jdwp.Header).Parse(p); err != nil {
			t.Fatalf("the far half sent the debugger a malformed packet: %v", err)
		}
	}
	for _, b := range out.Upstream {
		if _, err := near.FromFar(b); err != nil {
			t.Fatalf("the near half refused the far half's frame %x: %v", b, err)
		}
	}
}

// checkNearOut checks what a near half sent: packets for the VM, frames the
// far half accepts.
func checkNearOut(t *testing.T, far *Far, out Traffic) {
	for _, p := range out.Upstream {
		if err := new(jdwp.Header).Parse(p); err != nil {
			t.Fatalf("the near half sent the VM a malformed packet: %v", err)
		}
	}
	for _, b := range out.Downstream {
		if _, err := far.FromNear(b); err != nil {
			t.Fatalf("the far half refused the near half's frame %x: %v", b, err)
		}
	}
}
