// Command threadmon shows package ddm: it attaches to an Android VM's JDWP
// port, turns on thread notifications and status updates, and prints a
// line for each thread created, renamed or ended and each status update.
//
//	go run ./examples/threadmon -vm 127.0.0.1:8700 -updates 3
//
// scache threads does the same as a live table, also through adb
// (go run ./cmd/scache help threads).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"

	"github.com/jdwpscache/scache/ddm"
)

func main() {
	vmAddr := flag.String("vm", "127.0.0.1:8700", "the VM's JDWP address")
	updates := flag.Int("updates", 3, "exit after this many status updates")
	flag.Parse()
	ctx := context.Background()

	c, err := ddm.Dial(ctx, *vmAddr) // the handshake, the VM's name, HELO and FEAT
	if err != nil {
		log.Fatal(err) // ddm.ErrNotDDMAware for a HotSpot VM
	}
	defer c.Close()
	chunks := make(chan ddm.Chunk, 64)
	for _, t := range []ddm.Type{ddm.TypeTHCR, ddm.TypeTHNM, ddm.TypeTHDE, ddm.TypeTHST} {
		c.Handle(t, func(ch ddm.Chunk, isReply bool, id uint32) {
			chunks <- ddm.Chunk{Type: ch.Type, Data: append([]byte(nil), ch.Data...)} // ch is reused
		})
	}
	if _, err := c.Request(ctx, &ddm.ThreadNotify{Enable: true}); err != nil {
		log.Fatal(err)
	}
	if _, err := c.Request(ctx, &ddm.ThreadStatusInterval{Millis: 100}); err != nil {
		log.Fatal(err)
	}
	for seen := 0; seen < *updates; {
		ch := <-chunks
		switch ch.Type {
		case ddm.TypeTHCR:
			var m ddm.ThreadCreated
			if ddm.Decode(ch, &m) == nil {
				fmt.Printf("created %d %q\n", m.ID, m.Name)
			}
		case ddm.TypeTHNM:
			var m ddm.ThreadRenamed
			if ddm.Decode(ch, &m) == nil {
				fmt.Printf("renamed %d %q\n", m.ID, m.Name)
			}
		case ddm.TypeTHDE:
			var m ddm.ThreadDied
			if ddm.Decode(ch, &m) == nil {
				fmt.Printf("ended %d\n", m.ID)
			}
		case ddm.TypeTHST:
			var m ddm.ThreadStatus
			if ddm.Decode(ch, &m) == nil {
				seen++
				fmt.Printf("status of %d threads\n", len(m.Threads))
			}
		}
	}
}
