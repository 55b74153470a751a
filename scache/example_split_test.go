package scache_test

import (
	"fmt"
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
)

// A transport of its own runs the two halves of a split proxy: the far
// half next to the debugger, the near half next to the VM, tunnel frames
// between them. Once the tunnel's hello is answered, the far half tells
// the near half how long that took, and the near half starts on the VM.
// Then each packet or frame goes to its half, and what comes back goes
// where the Traffic says: Upstream towards the VM, Downstream towards the
// debugger, as tunnel frames where the other half lies that way. Here the
// near half asks the VM's id sizes as the session starts; the debugger's
// own IDSizes, crossing later, waits for that reply instead of going to
// the VM again, and receives it with its own id.
func ExampleFar() {
	far, err := scache.NewFar()
	if err != nil {
		panic(err)
	}
	near, err := scache.NewNear()
	if err != nil {
		panic(err)
	}
	sizes := jdwp.DefaultIDSizes
	// Far → near: the hello took 40 ms.
	for _, frame := range far.OnTunnelOpen(40 * time.Millisecond).Upstream {
		if _, err := near.FromFar(frame); err != nil {
			panic(err)
		}
	}
	// Near → VM: what the near half asks first.
	var asked uint32
	for _, p := range near.OnHandshake().Upstream {
		if h, _ := jdwp.ParseHeader(p); h.Cmd() == jdwp.CmdVirtualMachineIDSizes {
			asked = h.ID
		}
	}
	fmt.Printf("the near half asks IDSizes as %#x\n", asked)

	// Debugger → far → near: the debugger's IDSizes goes no further.
	for _, frame := range far.FromDebugger(jdwp.AppendCommandPacket(nil, 1, &jdwp.VMIDSizesCommand{}, sizes)).Upstream {
		t, err := near.FromFar(frame)
		if err != nil {
			panic(err)
		}
		fmt.Println("to the VM:", len(t.Upstream))
	}

	// VM → near → far → debugger: the reply, with the debugger's id.
	reply := near.FromVM(jdwp.AppendReplyPacket(nil, asked, &jdwp.VMIDSizesReply{Sizes: sizes}, sizes))
	for _, frame := range reply.Downstream {
		t, err := far.FromNear(frame)
		if err != nil {
			panic(err)
		}
		for _, p := range t.Downstream {
			fmt.Println("to the debugger: id", jdwp.PacketID(p))
		}
	}
	// Output:
	// the near half asks IDSizes as 0xa0000000
	// to the VM: 0
	// to the debugger: id 1
}
