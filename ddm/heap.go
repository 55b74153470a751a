package ddm

import (
	"errors"
	"fmt"
)

// When values of HPIF requests.
const (
	WhenNever       = 0
	WhenImmediately = 1
	WhenNextGC      = 2
	WhenEveryGC     = 3
)

// HeapInfoRequest asks for heap info (HPIF) at a time of WhenNever..WhenEveryGC.
type HeapInfoRequest struct{ When uint8 }

// ChunkType implements Message.
func (*HeapInfoRequest) ChunkType() Type    { return TypeHPIF }
func (m *HeapInfoRequest) encode(w *writer) { w.u1(m.When) }
func (m *HeapInfoRequest) decode(r *reader) { m.When = r.Uint8() }

// HeapStats is one heap of a HeapInfo.
type HeapStats struct {
	HeapID         uint32
	TimestampMs    uint64 // since the Unix epoch
	Reason         uint8  // the When that caused it
	MaxBytes       uint32 // -Xmx
	SizeBytes      uint32
	AllocatedBytes uint32
	Objects        uint32
}

// HeapInfo describes the VM's heaps (HPIF from the VM).
type HeapInfo struct{ Heaps []HeapStats }

// ChunkType implements Message.
func (*HeapInfo) ChunkType() Type { return TypeHPIF }

func (m *HeapInfo) encode(w *writer) {
	w.u4(uint32(len(m.Heaps)))
	for _, h := range m.Heaps {
		w.u4(h.HeapID)
		w.u8(h.TimestampMs)
		w.u1(h.Reason)
		w.u4(h.MaxBytes)
		w.u4(h.SizeBytes)
		w.u4(h.AllocatedBytes)
		w.u4(h.Objects)
	}
}

func (m *HeapInfo) decode(r *reader) {
	m.Heaps = make([]HeapStats, r.Count(29))
	for i := range m.Heaps {
		m.Heaps[i] = HeapStats{HeapID: r.Uint32(), TimestampMs: r.Uint64(), Reason: r.Uint8(), MaxBytes: r.Uint32(),
			SizeBytes: r.Uint32(), AllocatedBytes: r.Uint32(), Objects: r.Uint32()}
	}
}

// What values of heap segment requests.
const (
	WhatMerge   = 0 // HPSG: runs do not end at objects
	WhatObjects = 1 // HPSO: runs end at object boundaries
)

// HeapSegmentsRequest asks for heap segments (HPSG, or NHSG for the native
// heap) at every GC (When 1) or never (0).
type HeapSegmentsRequest struct {
	Native bool
	When   uint8
	What   uint8
}

// ChunkType implements Message.
func (m *HeapSegmentsRequest) ChunkType() Type {
	if m.Native {
		return TypeNHSG
	}
	return TypeHPSG
}
func (m *HeapSegmentsRequest) encode(w *writer) { w.u1(m.When); w.u1(m.What) }
func (m *HeapSegmentsRequest) decode(r *reader) { m.When, m.What = r.Uint8(), r.Uint8() }

// HeapMark starts (HPST, NHST) or ends (HPEN, NHEN) a heap dump.
type HeapMark struct {
	Type   Type // TypeHPST, TypeHPEN, TypeNHST or TypeNHEN
	HeapID uint32
}

// ChunkType implements Message.
func (m *HeapMark) ChunkType() Type  { return m.Type }
func (m *HeapMark) encode(w *writer) { w.u4(m.HeapID) }
func (m *HeapMark) decode(r *reader) { m.HeapID = r.Uint32() }

// Solidity values of a run's state.
const (
	SolidityFree     = 0
	SolidityHard     = 1
	SoliditySoft     = 2
	SolidityWeak     = 3
	SolidityPhantom  = 4
	SolidityFinalize = 5
	SoliditySweep    = 6
)

// Kind values of a run's state.
const (
	KindObject      = 0
	KindClassObject = 1
	KindArray1      = 2 // byte and boolean arrays
	KindArray2      = 3 // char and short arrays
	KindArray4      = 4 // Object, int and float arrays
	KindArray8      = 5 // long and double arrays
	KindNative      = 7 // a native allocation (NHSG)
)

// A Run is a stretch of allocation units in the same state.
type Run struct {
	Solidity uint8 // bits 0-2
	Kind     uint8 // bits 3-5
	Partial  bool  // bit 7: an object continues in the next run (HPSO)
	Units    int   // 1 to 256
}

// state packs the run's state byte.
func (r Run) state() uint8 {
	s := r.Solidity&7 | (r.Kind&7)<<3
	if r.Partial {
		s |= 0x80
	}
	return s
}

// ErrRunsMismatch is returned for segment data whose runs and unit count do not end together.
var ErrRunsMismatch = errors.New("ddm: heap segment runs do not end with its units")

// HeapSegment is a piece of heap (HPSG, HPSO or NHSG from the VM): a
// stretch of allocation units run-length encoded by state.
type HeapSegment struct {
	Type     Type // TypeHPSG, TypeHPSO or TypeNHSG
	HeapID   uint32
	UnitSize uint8  // bytes per allocation unit
	Address  uint32 // virtual address of the segment
	Offset   uint32 // of this piece from Address, in allocation units (as the document's example counts it)
	Units    uint32 // length of this piece in allocation units
	Usage    []byte // pairs of (state, units-1)
}

// ChunkType implements Message.
func (m *HeapSegment) ChunkType() Type { return m.Type }

func (m *HeapSegment) encode(w *writer) {
	w.u4(m.HeapID)
	w.u1(m.UnitSize)
	w.u4(m.Address)
	w.u4(m.Offset)
	w.u4(m.Units)
	w.raw(m.Usage)
}

func (m *HeapSegment) decode(r *reader) {
	m.HeapID, m.UnitSize, m.Address, m.Offset, m.Units = r.Uint32(), r.Uint8(), r.Uint32(), r.Uint32(), r.Uint32()
	m.Usage = r.Rest()
}

// Runs decodes the usage data. As the document requires, the data must end
// exactly when all the piece's units are accounted for, and the unused state
// bit must be zero; otherwise the chunk is rejected with ErrRunsMismatch.
func (m *HeapSegment) Runs() ([]Run, error) {
	if len(m.Usage)%2 != 0 {
		return nil, fmt.Errorf("%w: odd usage data length %d", ErrRunsMismatch, len(m.Usage))
	}
	runs := make([]Run, 0, len(m.Usage)/2)
	var units uint64
	for i := 0; i < len(m.Usage); i += 2 {
		if units >= uint64(m.Units) {
			return nil, fmt.Errorf("%w: %d bytes of runs after %d units", ErrRunsMismatch, len(m.Usage)-i, m.Units)
		}
		s, n := m.Usage[i], int(m.Usage[i+1])+1
		if s&0x40 != 0 {
			return nil, fmt.Errorf("%w: state %#02x sets the unused bit", ErrRunsMismatch, s)
		}
		runs = append(runs, Run{Solidity: s & 7, Kind: s >> 3 & 7, Partial: s&0x80 != 0, Units: n})
		units += uint64(n)
	}
	if units != uint64(m.Units) {
		return nil, fmt.Errorf("%w: runs cover %d of %d units", ErrRunsMismatch, units, m.Units)
	}
	return runs, nil
}

// SetRuns encodes runs as the usage data and sets Units to their total.
// Runs longer than 256 units are split.
func (m *HeapSegment) SetRuns(runs []Run) {
	m.Usage = m.Usage[:0]
	m.Units = 0
	for _, r := range runs {
		for n := r.Units; n > 0; {
			k := min(n, 256)
			m.Usage = append(m.Usage, r.state(), uint8(k-1))
			m.Units += uint32(k)
			n -= k
		}
	}
}

// HeapDumpRequest asks the VM to write an hprof dump to a file on the device (HPDU).
type HeapDumpRequest struct{ File string }

// ChunkType implements Message.
func (*HeapDumpRequest) ChunkType() Type    { return TypeHPDU }
func (m *HeapDumpRequest) encode(w *writer) { w.string(m.File) }
func (m *HeapDumpRequest) decode(r *reader) { m.File = r.string() }

// Result is a one-byte outcome: the HPDU, MPRE reply (0 ok, else failed), the
// REAQ and MPRQ replies (0 off, 1 on, for MPRQ 2: sampling) and REAE requests.
type Result struct {
	Type  Type
	Value uint8
}

// ChunkType implements Message.
func (m *Result) ChunkType() Type  { return m.Type }
func (m *Result) encode(w *writer) { w.u1(m.Value) }
func (m *Result) decode(r *reader) { m.Value = r.Uint8() }

// Raw is a chunk whose data is a blob for another tool: HPDS (an hprof
// file) and MPSE (a method trace) from the VM.
type Raw struct {
	Type Type
	Data []byte
}

// ChunkType implements Message.
func (m *Raw) ChunkType() Type  { return m.Type }
func (m *Raw) encode(w *writer) { w.raw(m.Data) }
func (m *Raw) decode(r *reader) { m.Data = r.Rest() }

// Bitmap unpacks the pieces of a heap into one state byte per allocation
// unit, from the lowest offset of the pieces; a piece's runs must account for
// exactly its units. Splitting a heap into pieces does not change its bitmap.
// Every piece's runs are checked before anything is allocated, and the
// bitmap is no larger than the units the runs describe (two bytes describe
// at most 256 units): pieces that leave gaps larger than they cover are
// rejected with ErrTooLarge.
func Bitmap(pieces []HeapSegment) ([]uint8, error) {
	if len(pieces) == 0 {
		return nil, nil
	}
	all := make([][]Run, len(pieces))
	lo, hi, described := uint64(pieces[0].Offset), uint64(0), uint64(0)
	for i, p := range pieces {
		runs, err := p.Runs()
		if err != nil {
			return nil, err
		}
		all[i] = runs
		lo = min(lo, uint64(p.Offset))
		hi = max(hi, uint64(p.Offset)+uint64(p.Units))
		described += uint64(p.Units)
	}
	if hi-lo > described || hi-lo > 1<<28 {
		return nil, fmt.Errorf("%w: the pieces span %d units and describe %d", ErrTooLarge, hi-lo, described)
	}
	bitmap := make([]uint8, hi-lo)
	for n, p := range pieces {
		runs := all[n]
		i := uint64(p.Offset) - lo
		for _, r := range runs {
			for k := 0; k < r.Units; k++ {
				bitmap[i] = r.state() &^ 0x80
				i++
			}
		}
	}
	return bitmap, nil
}
