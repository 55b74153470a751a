// Command speculator drives a Speculator by hand between one debugger and
// one VM: the loop that a transport of your own (an IDE plugin's, a
// tunnel's) runs. Every packet read on either side goes to the Speculator,
// and what its edict says is written, in order, to each side.
//
//	go run ./examples/speculator -listen 127.0.0.1:8700 -vm 127.0.0.1:5005
//
// transport.Relay is this loop with bounded queues, so that a side that
// reads slowly never blocks the other; use it unless you own the I/O.
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"sync"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
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
	ln.Close()
	vm, err := net.Dial("tcp", *vmAddr)
	if err != nil {
		log.Fatal(err)
	}
	// The handshake: answer the debugger's as a VM would, after the VM's.
	s, err := scache.New()
	if err = errors.Join(err, jdwp.DebuggerHandshake(vm, jdwp.HandshakeTimeout), jdwp.VMHandshake(debugger, jdwp.HandshakeTimeout)); err != nil {
		log.Fatal(err)
	}
	toVM, toDebugger := jdwp.NewFramer(vm, vm), jdwp.NewFramer(debugger, debugger)
	var mu sync.Mutex // one decision and its writes at a time
	apply := func(decide func() scache.Response) error {
		mu.Lock()
		defer mu.Unlock()
		edict := decide().Edict // valid until the next call in the same direction
		for _, p := range edict.Upstream {
			if err := toVM.WritePacket(p); err != nil {
				return err
			}
		}
		for _, p := range edict.Downstream {
			if err := toDebugger.WritePacket(p); err != nil {
				return err
			}
		}
		return nil
	}
	if err := apply(s.OnHandshake); err != nil { // what is speculated before the first command
		log.Fatal(err)
	}
	ended := make(chan error, 2)
	read := func(from *jdwp.Framer, decide func([]byte) scache.Response) {
		ended <- from.ReadEach(func(p []byte) error { return apply(func() scache.Response { return decide(p) }) })
	}
	go read(toDebugger, s.OnUpstream)
	go read(toVM, s.OnDownstream)
	fmt.Println("the session ended:", <-ended)
	debugger.Close()
	vm.Close()
	st := s.Stats()
	fmt.Printf("answered from speculation: %d commands; sent to the VM after a miss: %d; speculated: %d\n", st.Hits+st.Belayed, st.Misses, st.Synthetic)
}
