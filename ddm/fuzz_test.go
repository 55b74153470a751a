package ddm_test

import (
	"testing"

	"github.com/jdwpscache/scache/ddm"
)

// FuzzChunks parses arbitrary packet data into chunks and decodes each with
// every message of both directions: never a panic.
func FuzzChunks(f *testing.F) {
	f.Add(ddm.AppendChunk(nil, ddm.Encode(&ddm.HelloRequest{Version: 1})))
	f.Add(ddm.AppendChunk(nil, ddm.Encode(&ddm.Hello{Version: 1, PID: 2, VMIdent: "vm", AppName: "a", Fields: 6})))
	f.Add(ddm.AppendChunk(nil, ddm.Encode(&ddm.ThreadStatus{Threads: []ddm.ThreadInfo{{ID: 1}}})))
	f.Add(ddm.AppendChunk(nil, ddm.Compress(ddm.Encode(&ddm.RecentAllocations{Allocations: []ddm.Allocation{{Class: "C", Stack: []ddm.AllocFrame{{Class: "C"}}}}}))))
	f.Fuzz(func(t *testing.T, data []byte) {
		chunks, _ := ddm.ParseChunks(data)
		for _, c := range chunks {
			c, err := ddm.Decompress(c)
			if err != nil {
				continue
			}
			for _, m := range []ddm.Message{ddm.NewRequest(c.Type), ddm.NewFromVM(c.Type),
				&ddm.LegacyThreadStatus{}, &ddm.RecentAllocations{}, &ddm.NativeHeap{}} {
				if m == nil {
					continue
				}
				c.Type = m.ChunkType()
				_ = ddm.Decode(c, m)
			}
		}
	})
}

// FuzzHeapSegment decodes arbitrary usage data: never a panic, and runs that
// decode encode back to the same data.
func FuzzHeapSegment(f *testing.F) {
	f.Add(uint32(10), []byte{0x01, 9})
	f.Add(uint32(0x400), []byte{0x01, 255, 0x00, 255, 0x21, 255, 0x0a, 255})
	f.Fuzz(func(t *testing.T, units uint32, usage []byte) {
		seg := ddm.HeapSegment{Type: ddm.TypeHPSO, Units: units, Usage: usage}
		runs, err := seg.Runs()
		if err != nil {
			return
		}
		var again ddm.HeapSegment
		again.SetRuns(runs)
		if again.Units != units || string(again.Usage) != string(usage) {
			t.Fatalf("runs %v re-encode to %x/%d, want %x/%d", runs, again.Usage, again.Units, usage, units)
		}
		if _, err := ddm.Bitmap([]ddm.HeapSegment{seg}); err != nil && units < 1<<20 {
			t.Fatal(err)
		}
	})
}
