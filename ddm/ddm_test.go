package ddm_test

import (
	"runtime"
	"testing"

	"github.com/jdwpscache/scache/ddm"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func str(t *rapid.T, name string) string { return rapid.String().Draw(t, name) }
func u1(t *rapid.T) uint8                { return rapid.Uint8().Draw(t, "u1") }
func u2(t *rapid.T) uint16               { return rapid.Uint16().Draw(t, "u2") }
func u4(t *rapid.T) uint32               { return rapid.Uint32().Draw(t, "u4") }
func n(t *rapid.T) int                   { return rapid.IntRange(0, 4).Draw(t, "n") }
func blob(t *rapid.T) []byte             { return rapid.SliceOfN(rapid.Byte(), 0, 30).Draw(t, "blob") }

type msgCase struct {
	name  string
	draw  func(t *rapid.T) ddm.Message
	empty func() ddm.Message
}

func request(tp ddm.Type, draw func(t *rapid.T) ddm.Message) msgCase {
	return msgCase{tp.String() + " request", draw, func() ddm.Message { return ddm.NewRequest(tp) }}
}

func fromVM(tp ddm.Type, draw func(t *rapid.T) ddm.Message) msgCase {
	return msgCase{tp.String() + " from VM", draw, func() ddm.Message { return ddm.NewFromVM(tp) }}
}

func emptyRequest(tp ddm.Type) msgCase {
	return request(tp, func(*rapid.T) ddm.Message { return &ddm.Empty{Type: tp} })
}

func result(tp ddm.Type, req bool) msgCase {
	draw := func(t *rapid.T) ddm.Message { return &ddm.Result{Type: tp, Value: u1(t)} }
	if req {
		return request(tp, draw)
	}
	return fromVM(tp, draw)
}

var cases = []msgCase{
	request(ddm.TypeHELO, func(t *rapid.T) ddm.Message { return &ddm.HelloRequest{Version: u4(t)} }),
	fromVM(ddm.TypeHELO, func(t *rapid.T) ddm.Message {
		h := &ddm.Hello{Version: u4(t), PID: u4(t), VMIdent: str(t, "vm"), AppName: str(t, "app"),
			Fields: rapid.IntRange(0, 6).Draw(t, "fields")}
		if h.Fields >= 1 {
			h.UserID = u4(t)
		}
		if h.Fields >= 2 {
			h.ABI = str(t, "abi")
		}
		if h.Fields >= 3 {
			h.JVMFlags = str(t, "flags")
		}
		if h.Fields >= 4 {
			h.NativeDebuggable = rapid.Bool().Draw(t, "nd")
		}
		if h.Fields >= 5 {
			h.PackageName = str(t, "pkg")
		}
		if h.Fields >= 6 {
			h.Stage = u4(t)
			h.Extra = blob(t) // what a newer release appends
		} else {
			h.Extra = []byte{}
		}
		return h
	}),
	emptyRequest(ddm.TypeFEAT),
	fromVM(ddm.TypeFEAT, func(t *rapid.T) ddm.Message {
		f := &ddm.Features{Names: make([]string, n(t))}
		for i := range f.Names {
			f.Names[i] = str(t, "feature")
		}
		return f
	}),
	fromVM(ddm.TypeWAIT, func(t *rapid.T) ddm.Message { return &ddm.Wait{Reason: u1(t)} }),
	fromVM(ddm.TypeAPNM, func(t *rapid.T) ddm.Message {
		a := &ddm.AppName{Name: str(t, "name"), Fields: rapid.IntRange(0, 2).Draw(t, "fields")}
		if a.Fields >= 1 {
			a.UserID = u4(t)
		}
		if a.Fields >= 2 {
			a.PackageName = str(t, "pkg")
		}
		return a
	}),
	fromVM(ddm.TypeSTAG, func(t *rapid.T) ddm.Message { return &ddm.Stage{Stage: u4(t)} }),
	fromVM(ddm.TypeFAIL, func(t *rapid.T) ddm.Message { return &ddm.Fail{Code: u4(t), Message: str(t, "msg")} }),
	request(ddm.TypeEXIT, func(t *rapid.T) ddm.Message { return &ddm.Exit{Status: u4(t)} }),
	emptyRequest(ddm.TypeDBGD),
	request(ddm.TypeTHEN, func(t *rapid.T) ddm.Message { return &ddm.ThreadNotify{Enable: rapid.Bool().Draw(t, "on")} }),
	fromVM(ddm.TypeTHCR, func(t *rapid.T) ddm.Message { return &ddm.ThreadCreated{ID: u4(t), Name: str(t, "name")} }),
	fromVM(ddm.TypeTHNM, func(t *rapid.T) ddm.Message { return &ddm.ThreadRenamed{ID: u4(t), Name: str(t, "name")} }),
	fromVM(ddm.TypeTHDE, func(t *rapid.T) ddm.Message { return &ddm.ThreadDied{ID: u4(t)} }),
	request(ddm.TypeTHST, func(t *rapid.T) ddm.Message { return &ddm.ThreadStatusInterval{Millis: u4(t)} }),
	fromVM(ddm.TypeTHST, func(t *rapid.T) ddm.Message {
		s := &ddm.ThreadStatus{Threads: make([]ddm.ThreadInfo, n(t))}
		for i := range s.Threads {
			s.Threads[i] = ddm.ThreadInfo{ID: u4(t), Status: u1(t), TID: u4(t), UTime: u4(t), STime: u4(t), Daemon: rapid.Bool().Draw(t, "d")}
		}
		return s
	}),
	request(ddm.TypeSTKL, func(t *rapid.T) ddm.Message { return &ddm.StackRequest{ThreadID: u4(t)} }),
	fromVM(ddm.TypeSTKL, func(t *rapid.T) ddm.Message {
		s := &ddm.Stack{Flags: u4(t), ThreadID: u4(t), Frames: make([]ddm.StackElement, n(t))}
		for i := range s.Frames {
			s.Frames[i] = ddm.StackElement{Class: str(t, "c"), Method: str(t, "m"), File: str(t, "f"), Line: rapid.Int32().Draw(t, "line")}
		}
		return s
	}),
	request(ddm.TypeHPIF, func(t *rapid.T) ddm.Message { return &ddm.HeapInfoRequest{When: u1(t)} }),
	fromVM(ddm.TypeHPIF, func(t *rapid.T) ddm.Message {
		h := &ddm.HeapInfo{Heaps: make([]ddm.HeapStats, n(t))}
		for i := range h.Heaps {
			h.Heaps[i] = ddm.HeapStats{HeapID: u4(t), TimestampMs: rapid.Uint64().Draw(t, "ts"), Reason: u1(t),
				MaxBytes: u4(t), SizeBytes: u4(t), AllocatedBytes: u4(t), Objects: u4(t)}
		}
		return h
	}),
	request(ddm.TypeHPSG, func(t *rapid.T) ddm.Message { return &ddm.HeapSegmentsRequest{When: u1(t), What: u1(t)} }),
	request(ddm.TypeNHSG, func(t *rapid.T) ddm.Message {
		return &ddm.HeapSegmentsRequest{Native: true, When: u1(t), What: u1(t)}
	}),
	fromVM(ddm.TypeHPST, func(t *rapid.T) ddm.Message { return &ddm.HeapMark{Type: ddm.TypeHPST, HeapID: u4(t)} }),
	fromVM(ddm.TypeHPEN, func(t *rapid.T) ddm.Message { return &ddm.HeapMark{Type: ddm.TypeHPEN, HeapID: u4(t)} }),
	fromVM(ddm.TypeNHST, func(t *rapid.T) ddm.Message { return &ddm.HeapMark{Type: ddm.TypeNHST, HeapID: u4(t)} }),
	fromVM(ddm.TypeNHEN, func(t *rapid.T) ddm.Message { return &ddm.HeapMark{Type: ddm.TypeNHEN, HeapID: u4(t)} }),
	fromVM(ddm.TypeHPSG, segment(ddm.TypeHPSG)),
	fromVM(ddm.TypeHPSO, segment(ddm.TypeHPSO)),
	fromVM(ddm.TypeNHSG, segment(ddm.TypeNHSG)),
	emptyRequest(ddm.TypeHPGC),
	request(ddm.TypeHPDU, func(t *rapid.T) ddm.Message { return &ddm.HeapDumpRequest{File: str(t, "file")} }),
	result(ddm.TypeHPDU, false),
	emptyRequest(ddm.TypeHPDS),
	fromVM(ddm.TypeHPDS, func(t *rapid.T) ddm.Message { return &ddm.Raw{Type: ddm.TypeHPDS, Data: blob(t)} }),
	result(ddm.TypeREAE, true),
	emptyRequest(ddm.TypeREAQ),
	result(ddm.TypeREAQ, false),
	emptyRequest(ddm.TypeREAL),
	fromVM(ddm.TypeREAL, func(t *rapid.T) ddm.Message {
		r := &ddm.RecentAllocations{Allocations: make([]ddm.Allocation, n(t))}
		names := []string{"Ljava/lang/String;", "LMain;", "run", "Main.java", "😀x"}
		pick := func() string { return rapid.SampledFrom(names).Draw(t, "name") }
		for i := range r.Allocations {
			a := ddm.Allocation{Size: u4(t), ThreadID: u2(t), Class: pick()}
			for k := n(t); k > 0; k-- {
				a.Stack = append(a.Stack, ddm.AllocFrame{Class: pick(), Method: pick(), File: pick(), Line: rapid.Int16().Draw(t, "line")})
			}
			r.Allocations[i] = a
		}
		return r
	}),
	emptyRequest(ddm.TypeNHGT),
	fromVM(ddm.TypeNHGT, func(t *rapid.T) ddm.Message {
		h := &ddm.NativeHeap{TotalMemory: u4(t), BacktraceSize: uint32(rapid.IntRange(0, 3).Draw(t, "bt"))}
		if m := blob(t); len(m) > 0 {
			h.Maps = m
		}
		for k := n(t); k > 0; k-- {
			a := ddm.NativeAllocation{Size: u4(t), Allocations: u4(t), Backtrace: make([]uint32, h.BacktraceSize)}
			for i := range a.Backtrace {
				a.Backtrace[i] = u4(t)
			}
			h.Allocations = append(h.Allocations, a)
		}
		return h
	}),
	request(ddm.TypeMPRS, func(t *rapid.T) ddm.Message {
		return &ddm.MethodTraceStart{BufferSize: u4(t), Flags: u4(t), File: str(t, "file")}
	}),
	emptyRequest(ddm.TypeMPRE),
	result(ddm.TypeMPRE, false),
	request(ddm.TypeMPSS, func(t *rapid.T) ddm.Message { return &ddm.StreamedTraceStart{BufferSize: u4(t), Flags: u4(t)} }),
	emptyRequest(ddm.TypeMPSE),
	fromVM(ddm.TypeMPSE, func(t *rapid.T) ddm.Message { return &ddm.Raw{Type: ddm.TypeMPSE, Data: blob(t)} }),
	request(ddm.TypeSPSS, func(t *rapid.T) ddm.Message {
		return &ddm.StreamedTraceStart{Sampling: true, BufferSize: u4(t), Flags: u4(t), IntervalMicros: u4(t)}
	}),
	emptyRequest(ddm.TypeSPSE),
	emptyRequest(ddm.TypeMPRQ),
	result(ddm.TypeMPRQ, false),
}

func segment(tp ddm.Type) func(t *rapid.T) ddm.Message {
	return func(t *rapid.T) ddm.Message {
		return &ddm.HeapSegment{Type: tp, HeapID: u4(t), UnitSize: u1(t), Address: u4(t), Offset: u4(t), Units: u4(t), Usage: blob(t)}
	}
}

// TestRoundTrip: decode(encode(x)) == x for every chunk of both directions,
// also through a packet and a ZLIB chunk.
func TestRoundTrip(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) {
				m := c.draw(rt)
				chunk := ddm.Encode(m)
				back := c.empty()
				require.NotNil(rt, back)
				require.NoError(rt, ddm.Decode(chunk, back))
				require.Equal(rt, m, back)
				// Through a packet, and through ZLIB.
				chunks, err := ddm.ParseChunks(ddm.AppendChunk(nil, ddm.Compress(chunk)))
				require.NoError(rt, err)
				inflated, err := ddm.Decompress(chunks[0])
				require.NoError(rt, err)
				require.Equal(rt, chunk.Type, inflated.Type)
				require.Equal(rt, chunk.Data, inflated.Data)
			})
		})
	}
}

// TestEveryTypeHasACase keeps the cases in step with the registry.
func TestEveryTypeHasACase(t *testing.T) {
	names := map[string]bool{}
	for _, c := range cases {
		names[c.name] = true
	}
	for _, tp := range []ddm.Type{ddm.TypeHELO, ddm.TypeFEAT, ddm.TypeWAIT, ddm.TypeDBGD, ddm.TypeAPNM, ddm.TypeSTAG,
		ddm.TypeEXIT, ddm.TypeFAIL, ddm.TypeTHEN, ddm.TypeTHCR, ddm.TypeTHDE, ddm.TypeTHNM, ddm.TypeTHST, ddm.TypeSTKL, ddm.TypeHPIF,
		ddm.TypeHPSG, ddm.TypeHPSO, ddm.TypeNHSG, ddm.TypeHPST, ddm.TypeHPEN, ddm.TypeNHST, ddm.TypeNHEN, ddm.TypeHPGC,
		ddm.TypeHPDU, ddm.TypeHPDS, ddm.TypeNHGT, ddm.TypeREAE, ddm.TypeREAQ, ddm.TypeREAL, ddm.TypeMPRS, ddm.TypeMPRE,
		ddm.TypeMPSS, ddm.TypeMPSE, ddm.TypeSPSS, ddm.TypeSPSE, ddm.TypeMPRQ} {
		if ddm.NewRequest(tp) != nil {
			require.True(t, names[tp.String()+" request"], "%s request", tp)
		}
		if ddm.NewFromVM(tp) != nil {
			require.True(t, names[tp.String()+" from VM"], "%s from VM", tp)
		}
		require.True(t, ddm.NewRequest(tp) != nil || ddm.NewFromVM(tp) != nil, "%s unknown", tp)
	}
}

// A 21-byte HPSG that claims 0x0FFFFFFF units with one 2-byte run, or two
// tiny pieces far apart, is rejected before the bitmap is allocated.
func TestBitmapAllocatesOnlyWhatTheRunsDescribe(t *testing.T) {
	cases := map[string][]ddm.HeapSegment{
		"huge claim": {{HeapID: 1, UnitSize: 8, Units: 0x0FFFFFFF, Usage: []byte{1, 0}}},
		"far apart": {
			{HeapID: 1, UnitSize: 8, Offset: 0, Units: 1, Usage: []byte{1, 0}},
			{HeapID: 1, UnitSize: 8, Offset: 0x0FFFFFF0, Units: 1, Usage: []byte{1, 0}},
		},
	}
	for name, pieces := range cases {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := ddm.Bitmap(pieces)
		runtime.ReadMemStats(&after)
		require.Error(t, err, name)
		require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "%s: bytes allocated", name)
	}
}
