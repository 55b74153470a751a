package ddm

import (
	"encoding/binary"
	"unicode/utf16"

	"github.com/jdwpscache/scache/jdwp"
)

// reader reads chunk data: big-endian integers from a jdwp.Reader, and DDM strings.
type reader struct{ jdwp.Reader }

func newReader(data []byte) *reader {
	r := &reader{}
	r.Reset(data, jdwp.DefaultIDSizes)
	return r
}

// utf16 reads n UTF-16BE code units as a string; n is bounded by the data left.
func (r *reader) utf16(n uint32) string {
	if uint64(n)*2 > uint64(r.Len()) {
		r.Bytes(r.Len() + 1) // records the truncation
		return ""
	}
	b := r.Bytes(int(n) * 2)
	if len(b) != int(n)*2 {
		return "" // the reader had already failed
	}
	units := make([]uint16, n)
	for i := range units {
		units[i] = binary.BigEndian.Uint16(b[2*i:])
	}
	return string(utf16.Decode(units))
}

// string reads a u4 length in 16-bit units and the UTF-16BE characters.
func (r *reader) string() string { return r.utf16(r.Uint32()) }

// writer appends chunk data.
type writer struct{ b []byte }

func (w *writer) u1(v uint8)   { w.b = append(w.b, v) }
func (w *writer) u2(v uint16)  { w.b = binary.BigEndian.AppendUint16(w.b, v) }
func (w *writer) u4(v uint32)  { w.b = binary.BigEndian.AppendUint32(w.b, v) }
func (w *writer) u8(v uint64)  { w.b = binary.BigEndian.AppendUint64(w.b, v) }
func (w *writer) raw(b []byte) { w.b = append(w.b, b...) }

// chars appends the UTF-16BE code units of s, without a length.
func (w *writer) chars(s string) {
	for _, u := range utf16.Encode([]rune(s)) {
		w.u2(u)
	}
}

// units returns the length of s in UTF-16 code units.
func units(s string) uint32 { return uint32(len(utf16.Encode([]rune(s)))) }

// string appends a u4 length in 16-bit units and the characters.
func (w *writer) string(s string) {
	w.u4(units(s))
	w.chars(s)
}

func boolByte(v bool) uint8 {
	if v {
		return 1
	}
	return 0
}
