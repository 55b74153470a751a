package ddm

import (
	"encoding/binary"
	"fmt"
)

// AllocFrame is one frame of an allocation's stack.
type AllocFrame struct {
	Class, Method, File string
	Line                int16 // -1 without source, -2 in a native method
}

// Allocation is one recent allocation of a REAL reply.
type Allocation struct {
	Size     uint32
	ThreadID uint16
	Class    string
	Stack    []AllocFrame
}

// RecentAllocations is the REAL reply: the VM's recent allocations, with the
// class, method and file names in string tables that the wire format indexes
// with 16-bit numbers. Encoding builds the tables again.
type RecentAllocations struct{ Allocations []Allocation }

// ChunkType implements Message.
func (*RecentAllocations) ChunkType() Type { return TypeREAL }

// The header sizes REAL uses.
const (
	realHeaderSize = 15
	realEntrySize  = 9
	realFrameSize  = 8
)

type stringTable struct {
	names []string
	index map[string]uint16
}

func (t *stringTable) add(s string) uint16 {
	if i, ok := t.index[s]; ok {
		return i
	}
	if t.index == nil {
		t.index = map[string]uint16{}
	}
	i := uint16(len(t.names))
	t.index[s] = i
	t.names = append(t.names, s)
	return i
}

func (m *RecentAllocations) encode(w *writer) {
	var classes, methods, files stringTable
	var body writer
	for _, a := range m.Allocations {
		body.u4(a.Size)
		body.u2(a.ThreadID)
		body.u2(classes.add(a.Class))
		body.u1(uint8(len(a.Stack)))
		for _, f := range a.Stack {
			body.u2(classes.add(f.Class))
			body.u2(methods.add(f.Method))
			body.u2(files.add(f.File))
			body.u2(uint16(f.Line))
		}
	}
	w.u1(realHeaderSize)
	w.u1(realEntrySize)
	w.u1(realFrameSize)
	w.u2(uint16(len(m.Allocations)))
	w.u4(uint32(realHeaderSize + len(body.b)))
	w.u2(uint16(len(classes.names)))
	w.u2(uint16(len(methods.names)))
	w.u2(uint16(len(files.names)))
	w.raw(body.b)
	for _, t := range []stringTable{classes, methods, files} {
		for _, s := range t.names {
			w.string(s)
		}
	}
}

func (m *RecentAllocations) decode(r *reader) {
	data := r.Rest()
	if err := m.parse(data); err != nil {
		r.Reset(nil, r.Sizes())
		r.Bytes(1) // report the failure through the reader
		m.Allocations = nil
	}
}

func (m *RecentAllocations) parse(data []byte) error {
	h := newReader(data)
	hdr, entry, frame := int(h.Uint8()), int(h.Uint8()), int(h.Uint8())
	n, strOff := int(h.Uint16()), h.Uint32()
	nClasses, nMethods, nFiles := int(h.Uint16()), int(h.Uint16()), int(h.Uint16())
	if h.Err() != nil || hdr < realHeaderSize || entry < realEntrySize || frame < realFrameSize ||
		uint64(strOff) > uint64(len(data)) || uint64(strOff) < uint64(hdr) {
		return fmt.Errorf("ddm: bad REAL header")
	}
	// The string tables.
	s := newReader(data[strOff:])
	table := func(count int) []string {
		out := make([]string, 0, min(count, s.Len()/4))
		for i := 0; i < count && s.Err() == nil; i++ {
			out = append(out, s.string())
		}
		return out
	}
	classes, methods, files := table(nClasses), table(nMethods), table(nFiles)
	if s.Err() != nil || s.Len() != 0 {
		return fmt.Errorf("ddm: bad REAL string tables")
	}
	name := func(t []string, i uint16) (string, bool) {
		if int(i) < len(t) {
			return t[i], true
		}
		return "", false
	}
	// The entries, between the header and the strings.
	body := data[min(hdr, len(data)):strOff]
	m.Allocations = make([]Allocation, 0, min(n, len(body)/realEntrySize))
	for i := 0; i < n; i++ {
		if len(body) < entry {
			return fmt.Errorf("ddm: REAL entries truncated")
		}
		a := Allocation{Size: binary.BigEndian.Uint32(body), ThreadID: binary.BigEndian.Uint16(body[4:])}
		var ok bool
		if a.Class, ok = name(classes, binary.BigEndian.Uint16(body[6:])); !ok {
			return fmt.Errorf("ddm: REAL class index out of range")
		}
		depth := int(body[8])
		body = body[entry:]
		if len(body) < depth*frame {
			return fmt.Errorf("ddm: REAL stack truncated")
		}
		for k := 0; k < depth; k++ {
			f := body[k*frame:]
			var fr AllocFrame
			var ok1, ok2, ok3 bool
			fr.Class, ok1 = name(classes, binary.BigEndian.Uint16(f))
			fr.Method, ok2 = name(methods, binary.BigEndian.Uint16(f[2:]))
			fr.File, ok3 = name(files, binary.BigEndian.Uint16(f[4:]))
			if !ok1 || !ok2 || !ok3 {
				return fmt.Errorf("ddm: REAL frame index out of range")
			}
			fr.Line = int16(binary.BigEndian.Uint16(f[6:]))
			a.Stack = append(a.Stack, fr)
		}
		body = body[depth*frame:]
		m.Allocations = append(m.Allocations, a)
	}
	if len(body) != 0 {
		return fmt.Errorf("ddm: %d bytes after the REAL entries", len(body))
	}
	return nil
}

// MethodTraceStart starts method profiling to a file on the device (MPRS).
type MethodTraceStart struct {
	BufferSize uint32
	Flags      uint32
	File       string
}

// ChunkType implements Message.
func (*MethodTraceStart) ChunkType() Type { return TypeMPRS }
func (m *MethodTraceStart) encode(w *writer) {
	w.u4(m.BufferSize)
	w.u4(m.Flags)
	w.string(m.File)
}
func (m *MethodTraceStart) decode(r *reader) {
	m.BufferSize, m.Flags, m.File = r.Uint32(), r.Uint32(), r.string()
}

// StreamedTraceStart starts method profiling streamed back in an MPSE
// chunk (MPSS), or sampling profiling (SPSS, with an interval in microseconds).
type StreamedTraceStart struct {
	Sampling       bool // SPSS
	BufferSize     uint32
	Flags          uint32
	IntervalMicros uint32 // SPSS only
}

// ChunkType implements Message.
func (m *StreamedTraceStart) ChunkType() Type {
	if m.Sampling {
		return TypeSPSS
	}
	return TypeMPSS
}

func (m *StreamedTraceStart) encode(w *writer) {
	w.u4(m.BufferSize)
	w.u4(m.Flags)
	if m.Sampling {
		w.u4(m.IntervalMicros)
	}
}

func (m *StreamedTraceStart) decode(r *reader) {
	m.BufferSize, m.Flags = r.Uint32(), r.Uint32()
	if m.Sampling {
		m.IntervalMicros = r.Uint32()
	}
}
