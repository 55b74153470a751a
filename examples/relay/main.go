// Command relay shows the smallest use of package transport: a Relay
// wires a Speculator between one debugger's connection and one VM's.
//
//	go run ./examples/relay -listen 127.0.0.1:8700 -vm 127.0.0.1:5005
//
// It waits for one debugger, dials the VM, relays the session until either
// side closes, and prints what speculation answered. scache proxy does the
// same for session after session, with every flag (go run ./cmd/scache help proxy).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"

	"github.com/jdwpscache/scache/scache/transport"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8700", "where the debugger connects (loopback: JDWP grants code execution)")
	vmAddr := flag.String("vm", "127.0.0.1:5005", "the VM's JDWP address")
	flag.Parse()

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("listening on", ln.Addr())
	debugger, err := ln.Accept()
	if err != nil {
		log.Fatal(err)
	}
	ln.Close() // one session
	vm, err := net.Dial("tcp", *vmAddr)
	if err != nil {
		log.Fatal(err)
	}

	relay, err := transport.NewRelay() // scache's default options: speculate
	if err != nil {
		log.Fatal(err)
	}
	if err := relay.Run(context.Background(), debugger, vm); err != nil {
		fmt.Println("the session ended:", err)
	}
	st := relay.Stats()
	fmt.Printf("answered from speculation: %d commands; sent to the VM after a miss: %d; speculated: %d\n",
		st.Hits+st.Belayed, st.Misses, st.Synthetic)
}
