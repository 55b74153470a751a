package ddm_test

import (
	"context"
	"fmt"
	"log"

	"github.com/jdwpscache/scache/ddm"
	"github.com/jdwpscache/scache/jdwp"
)

// A DDM packet is an ordinary JDWP packet of command set 0xC7 whose data is a
// list of chunks. Here a VM's HELO reply is built and read back.
func Example() {
	hello := &ddm.Hello{Version: 1, PID: 4242, VMIdent: "Dalvik v2.1.0", AppName: "com.example"}
	packet := ddm.AppendReplyPacket(nil, ddm.FirstToolID, ddm.Encode(hello))

	chunks, err := ddm.ParseChunks(jdwp.Data(packet))
	if err != nil {
		log.Fatal(err)
	}
	var got ddm.Hello
	if err := ddm.Decode(chunks[0], &got); err != nil {
		log.Fatal(err)
	}
	fmt.Println(chunks[0].Type, got.PID, got.AppName)
	// Output: HELO 4242 com.example
}

// A tool connects to a VM's JDWP port (or a forwarded jdwp:<pid>), says HELO
// and asks for the thread list.
func ExampleDial() {
	ctx := context.Background()
	c, err := ddm.Dial(ctx, "127.0.0.1:8700")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	hello, err := c.Hello(ctx)
	if err != nil {
		log.Fatal(err) // ddm.ErrNotDDMAware from a VM that is not Android's
	}
	fmt.Println("pid", hello.PID, "features", c.Features())

	c.Handle(ddm.TypeTHCR, func(ch ddm.Chunk, isReply bool, id uint32) {
		var t ddm.ThreadCreated
		if ddm.Decode(ch, &t) == nil {
			fmt.Println("thread created:", t.Name)
		}
	})
	if _, err := c.Request(ctx, &ddm.ThreadNotify{Enable: true}); err != nil {
		log.Fatal(err)
	}
}
