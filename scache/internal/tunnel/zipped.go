package tunnel

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"io"
)

// MinZipped is the smallest batch of frames a Packer compresses: below it
// (a heartbeat, a debugger's command, a short reply) the few bytes saved
// do not pay for the 'Z' frame's 9 bytes and the time.
const MinZipped = 512

// MaxUnzipped bounds what one 'Z' frame may unpack to, checked before
// anything is allocated: twice a half's queue bound, more than any batch a
// half writes at once.
const MaxUnzipped = 16 << 20

// zippedLengthSize is the size of a 'Z' frame's length of what it unpacks to.
const zippedLengthSize = 4

// A Packer compresses the batches of frames a half writes at once into
// one 'Z' frame each, where that makes them smaller. A tunnel writer uses
// one, from one goroutine.
type Packer struct {
	w   *flate.Writer
	buf bytes.Buffer
	out [1][]byte
}

// NewPacker returns a Packer. It compresses at DEFLATE's best speed: on
// JDWP it keeps the ratio within a few percent of the default level at a
// third of the time.
func NewPacker() *Packer {
	w, _ := flate.NewWriter(io.Discard, flate.BestSpeed) // the level is valid
	return &Packer{w: w}
}

// Pack returns frames as one 'Z' frame when they are MinZipped bytes or
// more and compress to fewer, else frames themselves. The 'Z' frame is
// valid until the next Pack.
func (p *Packer) Pack(frames [][]byte) [][]byte {
	n := 0
	for _, f := range frames {
		n += len(f)
	}
	if n < MinZipped || n > MaxUnzipped {
		return frames
	}
	p.buf.Reset()
	var header [HeaderSize + zippedLengthSize]byte // filled in below
	p.buf.Write(header[:])
	p.w.Reset(&p.buf)
	for _, f := range frames {
		_, _ = p.w.Write(f) // a bytes.Buffer does not fail
	}
	_ = p.w.Close()
	b := p.buf.Bytes()
	if len(b) >= n {
		return frames
	}
	b[0] = Zipped
	binary.BigEndian.PutUint32(b[1:], uint32(len(b)-HeaderSize))
	binary.BigEndian.PutUint32(b[HeaderSize:], uint32(n))
	p.out[0] = b
	return p.out[:]
}

// An unzipper unpacks 'Z' frames for a Reader and hands out the frames
// they hold, one per Read.
type unzipper struct {
	r       io.ReadCloser // flate's, reset for each 'Z' frame
	src     bytes.Reader
	buf     []byte
	pending []byte // the frames of the last 'Z' frame not handed out yet
}

// unzip unpacks a 'Z' frame's payload into pending.
func (u *unzipper) unzip(payload []byte) error {
	if len(payload) < zippedLengthSize {
		return Errorf("a compressed frame of %d bytes", len(payload))
	}
	n := binary.BigEndian.Uint32(payload)
	if n > MaxUnzipped {
		return Errorf("a compressed frame that unpacks to %d bytes: the bound is %d", n, MaxUnzipped)
	}
	u.src.Reset(payload[zippedLengthSize:])
	if u.r == nil {
		u.r = flate.NewReader(&u.src)
	} else if err := u.r.(flate.Resetter).Reset(&u.src, nil); err != nil {
		return Errorf("a compressed frame: %v", err)
	}
	if cap(u.buf) < int(n) {
		u.buf = make([]byte, n)
	}
	u.buf = u.buf[:n]
	if _, err := io.ReadFull(u.r, u.buf); err != nil {
		return Errorf("a compressed frame that does not unpack to the %d bytes it says: %v", n, err)
	}
	var extra [1]byte
	if m, _ := u.r.Read(extra[:]); m != 0 || u.src.Len() != 0 {
		return Errorf("a compressed frame that unpacks to more than the %d bytes it says", n)
	}
	u.pending = u.buf
	return nil
}

// next returns the next frame of pending, checked as Reader.Read checks a
// frame off the connection; max bounds its payload.
func (u *unzipper) next(max int) ([]byte, error) {
	b := u.pending
	if len(b) < HeaderSize {
		u.pending = nil
		return nil, Errorf("a compressed frame ends inside a frame header (%d of 5 bytes)", len(b))
	}
	n := binary.BigEndian.Uint32(b[1:])
	switch {
	case b[0] == Zipped:
		u.pending = nil
		return nil, Errorf("a compressed frame inside a compressed frame")
	case int64(n) > int64(max):
		u.pending = nil
		return nil, Errorf("a frame inside a compressed frame whose length field says %d: the bound is %d", n, max)
	case int64(n) > int64(len(b)-HeaderSize):
		u.pending = nil
		return nil, Errorf("a compressed frame ends inside a frame: %d of its %d bytes", len(b)-HeaderSize, n)
	}
	f := b[:HeaderSize+int(n)]
	u.pending = b[HeaderSize+int(n):]
	return f, nil
}
