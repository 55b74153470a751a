package ddm

import (
	"encoding/binary"
	"fmt"
)

// NativeAllocation is one entry of a NativeHeap: a call site's total size,
// allocation count and backtrace.
type NativeAllocation struct {
	Size        uint32
	Allocations uint32
	Backtrace   []uint32
}

// NativeHeap is the NHGT reply: the native heap's allocations by call site
// and the process's memory map. It is the one little-endian chunk:
//
//	u4 mapSize, u4 allocSize, u4 allocInfoSize, u4 totalMemory, u4 backtraceSize,
//	mapSize bytes of /proc/self/maps text,
//	allocSize/allocInfoSize entries of u4 size, u4 allocations, backtraceSize × u4 address.
type NativeHeap struct {
	TotalMemory   uint32
	BacktraceSize uint32 // addresses per entry
	Maps          []byte
	Allocations   []NativeAllocation
}

// ChunkType implements Message.
func (*NativeHeap) ChunkType() Type { return TypeNHGT }

func (m *NativeHeap) encode(w *writer) {
	info := 8 + 4*m.BacktraceSize
	le := binary.LittleEndian
	w.b = le.AppendUint32(w.b, uint32(len(m.Maps)))
	w.b = le.AppendUint32(w.b, uint32(len(m.Allocations))*info)
	w.b = le.AppendUint32(w.b, info)
	w.b = le.AppendUint32(w.b, m.TotalMemory)
	w.b = le.AppendUint32(w.b, m.BacktraceSize)
	w.raw(m.Maps)
	for _, a := range m.Allocations {
		w.b = le.AppendUint32(w.b, a.Size)
		w.b = le.AppendUint32(w.b, a.Allocations)
		for i := uint32(0); i < m.BacktraceSize; i++ {
			var addr uint32
			if int(i) < len(a.Backtrace) {
				addr = a.Backtrace[i]
			}
			w.b = le.AppendUint32(w.b, addr)
		}
	}
}

func (m *NativeHeap) decode(r *reader) {
	if err := m.parse(r.Rest()); err != nil {
		r.Reset(nil, r.Sizes())
		r.Bytes(1)
		*m = NativeHeap{}
	}
}

func (m *NativeHeap) parse(data []byte) error {
	le := binary.LittleEndian
	if len(data) < 20 {
		return fmt.Errorf("ddm: NHGT header truncated")
	}
	mapSize, allocSize, infoSize := le.Uint32(data), le.Uint32(data[4:]), le.Uint32(data[8:])
	m.TotalMemory, m.BacktraceSize = le.Uint32(data[12:]), le.Uint32(data[16:])
	data = data[20:]
	if uint64(mapSize) > uint64(len(data)) {
		return fmt.Errorf("ddm: NHGT maps truncated")
	}
	m.Maps, data = data[:mapSize], data[mapSize:]
	if mapSize == 0 {
		m.Maps = nil
	}
	if infoSize == 0 {
		return nil // allocation tracking is off
	}
	if uint64(infoSize) != 8+4*uint64(m.BacktraceSize) || allocSize%infoSize != 0 || uint64(allocSize) != uint64(len(data)) {
		return fmt.Errorf("ddm: NHGT allocations do not fit their sizes")
	}
	n := int(allocSize / infoSize)
	if n == 0 {
		return nil
	}
	m.Allocations = make([]NativeAllocation, n)
	for i := range m.Allocations {
		e := data[i*int(infoSize):]
		a := NativeAllocation{Size: le.Uint32(e), Allocations: le.Uint32(e[4:]), Backtrace: make([]uint32, m.BacktraceSize)}
		for k := range a.Backtrace {
			a.Backtrace[k] = le.Uint32(e[8+4*k:])
		}
		m.Allocations[i] = a
	}
	return nil
}
