package scache_test

import (
	"fmt"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
)

// A transport presents every packet to the Speculator and sends what the
// edict says, in order. Here the debugger asks for a thread's frames; the VM's
// reply makes the Speculator ask the VM about the frame's class and method
// before the debugger does; the debugger's own SourceFile command is then
// answered from the cache with the debugger's id.
func Example() {
	s, err := scache.New(scache.Classic())
	if err != nil {
		panic(err)
	}
	sizes := jdwp.DefaultIDSizes

	// Debugger → VM: ThreadReference.Frames, forwarded.
	r := s.OnUpstream(jdwp.AppendCommandPacket(nil, 1, &jdwp.ThreadFramesCommand{Thread: 5, Length: -1}, sizes))
	fmt.Println("to VM:", len(r.Edict.Upstream))

	// VM → debugger: the Frames reply is forwarded, and 8 synthetic commands go up.
	frames := &jdwp.ThreadFramesReply{Frames: []jdwp.Frame{{Frame: 1, Location: jdwp.Location{
		TypeTag: jdwp.TypeTagClass, Class: 0x100, Method: 0x200, Index: 7}}}}
	r = s.OnDownstream(jdwp.AppendReplyPacket(nil, 1, frames, sizes))
	fmt.Println("to debugger:", len(r.Edict.Downstream), "to VM:", len(r.Edict.Upstream))
	var synthetic [][]byte
	for _, p := range r.Edict.Upstream {
		synthetic = append(synthetic, append([]byte(nil), p...)) // a Response is reused: keep copies
	}

	// VM → debugger: the VM answers the synthetic SourceFile command; it is absorbed.
	for _, p := range synthetic {
		h, _ := jdwp.ParseHeader(p)
		if h.Cmd() == jdwp.CmdReferenceTypeSourceFile {
			r = s.OnDownstream(jdwp.AppendReplyPacket(nil, h.ID, &jdwp.StringReply{Value: "Main.java"}, sizes))
			fmt.Printf("synthetic id %#x absorbed: %v\n", h.ID, len(r.Edict.Downstream) == 0)
		}
	}

	// Debugger → VM: its own SourceFile command is a hit, answered with its id.
	r = s.OnUpstream(jdwp.AppendCommandPacket(nil, 2, &jdwp.RefTypeSourceFileCommand{RefType: 0x100}, sizes))
	reply := r.Edict.Downstream[0]
	var src jdwp.StringReply
	_ = jdwp.Unmarshal(jdwp.Data(reply), sizes, &src)
	fmt.Println("hit:", len(r.Edict.Upstream) == 0, "id:", jdwp.PacketID(reply), src.Value)
	// Output:
	// to VM: 1
	// to debugger: 1 to VM: 8
	// synthetic id 0xa0000002 absorbed: true
	// hit: true id: 2 Main.java
}

// A tool that must never show the debugger a running thread's state older
// than its command keeps the linearizable promise; by default a Speculator
// keeps the sequential one, and serves a threads view of running threads
// from what it asked at the stop.
func ExampleWithConsistency() {
	strict, err := scache.New(scache.WithConsistency(scache.Linearizable))
	if err != nil {
		panic(err)
	}
	def, _ := scache.New()
	fmt.Println(strict.Consistency(), def.Consistency())
	// Output: linearizable sequential
}
