package scache_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
)

// The per-packet costs of the Speculator's paths, beside a baseline that only
// parses the header and copies the packet (what any proxy does).

var sink []byte

func BenchmarkBaselineParseAndCopy(b *testing.B) {
	p := jdwp.AppendCommandPacket(nil, 1, &jdwp.ThreadNameCommand{Thread: 5}, sizes8)
	buf := make([]byte, 0, 64)
	var h jdwp.Header
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := h.Parse(p); err != nil {
			b.Fatal(err)
		}
		buf = append(buf[:0], p...)
	}
	sink = buf
}

// BenchmarkForward: a command that is not keyable, and its reply.
func BenchmarkForward(b *testing.B) {
	s := newSpeculator(b)
	cmd := jdwp.AppendCommandPacket(nil, 1, &jdwp.ThreadNameCommand{Thread: 5}, sizes8)
	reply := jdwp.AppendReplyPacket(nil, 1, &jdwp.StringReply{Value: "main"}, sizes8)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s.OnUpstream(cmd)
		s.OnDownstream(reply)
	}
}

func TestForwardPathDoesNotAllocate(t *testing.T) {
	s := newSpeculator(t)
	cmd := jdwp.AppendCommandPacket(nil, 1, &jdwp.ThreadNameCommand{Thread: 5}, sizes8)
	reply := jdwp.AppendReplyPacket(nil, 1, &jdwp.StringReply{Value: "main"}, sizes8)
	s.OnUpstream(cmd)
	s.OnDownstream(reply)
	allocs := testing.AllocsPerRun(200, func() {
		s.OnUpstream(cmd)
		s.OnDownstream(reply)
	})
	require.Zero(t, allocs)
}

// BenchmarkHit: a keyable command answered from the cache.
func BenchmarkHit(b *testing.B) {
	vm, c := scachetest.OneFrameWorld(sizes8)
	h := newHarness(b, vm)
	h.send(&jdwp.ThreadFramesCommand{Thread: 7, StartFrame: 0, Length: -1})
	h.drain()
	cmd := jdwp.AppendCommandPacket(nil, 100, &jdwp.MethodLineTableCommand{RefType: c.ID, Method: c.Methods[0]}, sizes8)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r := h.s.OnUpstream(cmd)
		if len(r.Edict.Downstream) != 1 {
			b.Fatal("not a hit")
		}
	}
}

// BenchmarkSpeculate: a Frames reply of 10 frames over 10 classes, the
// synthetic commands it triggers and their replies (80 packets absorbed).
func BenchmarkSpeculate(b *testing.B) {
	vm := scachetest.NewModelVM(sizes8)
	var frames []scachetest.ModelFrame
	for i := 0; i < 10; i++ {
		c := vm.AddClass("LC"+string(rune('A'+i))+";", 1, false, false)
		frames = append(frames, scachetest.ModelFrame{Class: c.ID, Method: c.Methods[0]})
	}
	vm.SetThread(1, frames)
	framesCmd := jdwp.AppendCommandPacket(nil, 1, &jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1}, sizes8)
	framesReply := vm.Handle(framesCmd)
	replies := map[string][]byte{} // the VM's answers, computed once
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := newSpeculator(b, scache.WithMaxInFlight(0))
		s.OnUpstream(framesCmd)
		r := s.OnDownstream(framesReply)
		cmds := make([][]byte, len(r.Edict.Upstream))
		for j, p := range r.Edict.Upstream {
			cmds[j] = append([]byte(nil), p...)
		}
		for _, p := range cmds {
			key := string(p[4:])
			reply, ok := replies[key]
			if !ok {
				reply = vm.Handle(p)
				replies[key] = reply
			}
			s.OnDownstream(reply)
		}
	}
}
