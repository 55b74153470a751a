package ddm

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
)

// MaxInflated bounds the size of a chunk inflated from a ZLIB chunk.
const MaxInflated = 64 << 20

// Compress wraps a chunk in a ZLIB chunk: its data is the original type, the
// uncompressed length, then the zlib stream of the original data.
func Compress(c Chunk) Chunk {
	var b bytes.Buffer
	b.Write(binary.BigEndian.AppendUint32(nil, uint32(c.Type)))
	b.Write(binary.BigEndian.AppendUint32(nil, uint32(len(c.Data))))
	zw := zlib.NewWriter(&b)
	_, _ = zw.Write(c.Data)
	_ = zw.Close()
	return Chunk{Type: TypeZLIB, Data: b.Bytes()}
}

// Decompress unwraps a ZLIB chunk; other chunks are returned as they are.
// The uncompressed length is checked against MaxInflated before inflating,
// and the stream must inflate to exactly that length.
func Decompress(c Chunk) (Chunk, error) {
	if c.Type != TypeZLIB {
		return c, nil
	}
	if len(c.Data) < 8 {
		return Chunk{}, fmt.Errorf("%w: ZLIB chunk of %d bytes", ErrShortChunk, len(c.Data))
	}
	t, n := Type(binary.BigEndian.Uint32(c.Data)), binary.BigEndian.Uint32(c.Data[4:])
	if n > MaxInflated {
		return Chunk{}, fmt.Errorf("%w: ZLIB chunk inflating to %d bytes", ErrTooLarge, n)
	}
	zr, err := zlib.NewReader(bytes.NewReader(c.Data[8:]))
	if err != nil {
		return Chunk{}, fmt.Errorf("ddm: ZLIB chunk: %w", err)
	}
	defer zr.Close()
	out := make([]byte, n)
	if _, err := io.ReadFull(zr, out); err != nil {
		return Chunk{}, fmt.Errorf("ddm: ZLIB chunk shorter than its %d bytes: %w", n, err)
	}
	if k, _ := zr.Read(make([]byte, 1)); k != 0 {
		return Chunk{}, fmt.Errorf("ddm: ZLIB chunk longer than its %d bytes", n)
	}
	return Chunk{Type: t, Data: out}, nil
}
