package tunnel

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"io"
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

// batch returns n 'S' frames of Frames-like replies: what a near half
// pushes at a stop.
func batch(n int) [][]byte {
	var frames [][]byte
	for i := range n {
		var frames8 []jdwp.Frame
		for j := range 8 {
			frames8 = append(frames8, jdwp.Frame{Frame: jdwp.FrameID(0x10000*i + j), Location: jdwp.Location{
				TypeTag: jdwp.TypeTagClass, Class: jdwp.ClassID(0x100 + j), Method: jdwp.MethodID(0x7f00a000 + j), Index: uint64(i)}})
		}
		p := jdwp.AppendReplyPacket(nil, uint32(0xA0000000+i), &jdwp.ThreadFramesReply{Frames: frames8}, jdwp.DefaultIDSizes)
		frames = append(frames, NewFrame(Synthetic, p))
	}
	return frames
}

// zipped returns a 'Z' frame that says it unpacks to n bytes and holds
// the DEFLATE of raw.
func zipped(_ *testing.T, raw []byte, n ...int) []byte {
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestSpeed)
	_, _ = w.Write(raw)
	_ = w.Close()
	length := len(raw)
	if len(n) > 0 {
		length = n[0]
	}
	var l [4]byte
	binary.BigEndian.PutUint32(l[:], uint32(length))
	return NewFrame(Zipped, l[:], buf.Bytes())
}

// readAll reads every frame of b, copies them, and returns the error that
// ended the reading (io.EOF at a clean end).
func readAll(b []byte, accept Features) ([][]byte, error) {
	fr := NewReader(bytes.NewReader(b), jdwp.DefaultMaxPacketSize)
	fr.Accept(accept)
	var frames [][]byte
	for {
		f, err := fr.Read()
		if err != nil {
			return frames, err
		}
		frames = append(frames, append([]byte(nil), f...))
	}
}

// A stop's pushes pack into one smaller 'Z' frame, and a reader that
// accepts Deflate hands out the same frames, in order, then what follows.
func TestAPackedBatchReadsBackAsItsFrames(t *testing.T) {
	frames := batch(12)
	var raw []byte
	for _, f := range frames {
		raw = append(raw, f...)
	}
	packed := NewPacker().Pack(frames)
	require.Len(t, packed, 1)
	require.Equal(t, Zipped, packed[0][0])
	require.Less(t, len(packed[0]), len(raw)/2, "JDWP frames compress to less than half")
	t.Logf("%d bytes of frames packed into %d", len(raw), len(packed[0]))

	got, err := readAll(append(append([]byte(nil), packed[0]...), NewFrame(Heartbeat)...), Deflate)
	require.ErrorIs(t, err, io.EOF)
	require.Equal(t, append(frames, NewFrame(Heartbeat)), got)
}

// A batch under MinZipped goes as it is, and so does one that does not
// compress.
func TestWhatDoesNotPayGoesAsItIs(t *testing.T) {
	p := NewPacker()
	small := [][]byte{NewFrame(Heartbeat), NewFrame(Used, []byte("key"))}
	require.Equal(t, small, p.Pack(small))
	noise := make([]byte, 4096)
	for i := range noise {
		noise[i] = byte(i*7919>>3) ^ byte(i*104729>>5)
	}
	random := [][]byte{NewFrame(End, noise[:MaxText])}
	out := p.Pack(random)
	if len(out[0]) > 0 && out[0][0] == Zipped {
		require.Less(t, len(out[0]), len(random[0]), "packed only when smaller")
	} else {
		require.Equal(t, random, out)
	}
}

// A reader that did not accept Deflate refuses a 'Z' frame.
func TestAZFrameWithoutDeflateIsRefused(t *testing.T) {
	packed := NewPacker().Pack(batch(8))
	_, err := readAll(packed[0], 0)
	require.ErrorIs(t, err, ErrTunnel)
	require.ErrorContains(t, err, "a compressed frame, which the near half did not accept")
}

// Malformed 'Z' frames are tunnel errors, each saying what is wrong, and
// the length a 'Z' frame claims is bounded before anything is allocated.
func TestMalformedZFrames(t *testing.T) {
	hb := NewFrame(Heartbeat)
	for _, tc := range []struct {
		name  string
		frame []byte
		want  string
	}{
		{"over the bound", zipped(t, hb, MaxUnzipped+1), "unpacks to 16777217 bytes: the bound is"},
		{"shorter than it says", zipped(t, hb, len(hb)+3), "does not unpack to the 8 bytes it says"},
		{"longer than it says", zipped(t, append(hb, hb...), len(hb)), "unpacks to more than the 5 bytes it says"},
		{"nested", zipped(t, zipped(t, hb)), "a compressed frame inside a compressed frame"},
		{"a frame cut short", zipped(t, NewFrame(Heartbeat, []byte("abc"))[:6]), "ends inside a frame: 1 of its 3 bytes"},
		{"a header cut short", zipped(t, hb[:3]), "ends inside a frame header"},
		{"empty", zipped(t, nil), "a compressed frame of no frames"},
		{"not DEFLATE", NewFrame(Zipped, []byte{0, 0, 0, 5, 0xff, 0xff, 0xff}), "does not unpack"},
		{"no length", NewFrame(Zipped, []byte{0, 1}), "a compressed frame of 2 bytes"},
	} {
		_, err := readAll(tc.frame, Deflate)
		require.ErrorIs(t, err, ErrTunnel, tc.name)
		require.ErrorContains(t, err, tc.want, tc.name)
	}
	// A frame inside over the reader's packet bound.
	big := NewFrame(Packet, make([]byte, 2048))
	fr := NewReader(bytes.NewReader(zipped(t, big)), 1024)
	fr.Accept(Deflate)
	_, err := fr.Read()
	require.ErrorContains(t, err, "a frame inside a compressed frame whose length field says 2048: the bound is 1032")
}

// The hellos carry the features: the far half's offer, the near half's
// answer; a near half of version 3 is named with both versions.
func TestTheHellosCarryTheFeatures(t *testing.T) {
	offer, err := ReadFarHello(bytes.NewReader(FarHello(Deflate)))
	require.NoError(t, err)
	require.Equal(t, Deflate, offer)
	accept, err := ReadNearHello(bytes.NewReader(NearHello(StatusOn, Deflate, "")))
	require.NoError(t, err)
	require.Equal(t, Deflate, accept)
	accept, err = ReadNearHello(bytes.NewReader(NearHello(StatusOn, 0, "")))
	require.NoError(t, err)
	require.Zero(t, accept)

	v3 := append([]byte(magic), 0, 3, StatusVersion, 0, 9)
	v3 = append(v3, "too new: "...)
	_, err = ReadNearHello(bytes.NewReader(v3))
	require.ErrorContains(t, err, fmt.Sprintf("the near half speaks tunnel version 3, this far half %d", Version))
	require.ErrorContains(t, err, "(the near half says: too new: )")

	oldFar := append([]byte(magic), 0, 3, 'F')
	_, err = ReadFarHello(bytes.NewReader(append(oldFar, NewFrame(Heartbeat)...)))
	require.ErrorContains(t, err, fmt.Sprintf("the far half speaks tunnel version 3, this near half %d", Version))
}
