package jdwp_test

import (
	"bytes"
	"fmt"

	"github.com/jdwpscache/scache/jdwp"
)

func ExampleParseHeader() {
	packet := jdwp.AppendCommandPacket(nil, 7, &jdwp.RefTypeSourceFileCommand{RefType: 0x42}, jdwp.DefaultIDSizes)
	h, err := jdwp.ParseHeader(packet)
	if err != nil {
		panic(err)
	}
	fmt.Println(h)
	// Output: cmd id=7 ReferenceType.SourceFile len=19
}

func ExampleFramer() {
	var stream bytes.Buffer
	out := jdwp.NewFramer(&stream, nil)
	_ = out.WritePacket(jdwp.AppendReplyPacket(nil, 7, &jdwp.StringReply{Value: "Main.java"}, jdwp.DefaultIDSizes))

	in := jdwp.NewFramer(nil, &stream)
	packet, _ := in.ReadPacket() // valid until the next ReadPacket
	var reply jdwp.StringReply
	_ = jdwp.Unmarshal(jdwp.Data(packet), jdwp.DefaultIDSizes, &reply)
	fmt.Println(jdwp.PacketID(packet), reply.Value)
	// Output: 7 Main.java
}

func ExampleComposite() {
	event := &jdwp.Composite{SuspendPolicy: jdwp.SuspendPolicyAll, Events: []jdwp.Event{
		&jdwp.LocationEvent{EventKind: jdwp.EventBreakpoint, RequestID: 2, Thread: 0x10,
			Location: jdwp.Location{TypeTag: jdwp.TypeTagClass, Class: 0x20, Method: 0x30, Index: 4}},
	}}
	packet := jdwp.AppendCommandPacket(nil, 1, event, jdwp.DefaultIDSizes)

	var got jdwp.Composite
	_ = jdwp.Unmarshal(jdwp.Data(packet), jdwp.DefaultIDSizes, &got)
	bp := got.Events[0].(*jdwp.LocationEvent)
	fmt.Println(got.SuspendPolicy, bp.Kind(), bp.Location)
	// Output: ALL BREAKPOINT CLASS:0x20/0x30@4
}
