package transport_test

import (
	"context"
	"log"
	"net"

	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/transport"
)

// Wrap a debugger's connection and a VM's connection: Run passes the JDWP
// handshake through and relays until either side closes.
func ExampleRelay() {
	ctx := context.Background()
	ln, err := net.Listen("tcp", "127.0.0.1:8700") // loopback: JDWP grants code execution
	if err != nil {
		log.Fatal(err)
	}
	debugger, err := ln.Accept()
	if err != nil {
		log.Fatal(err)
	}
	vm, err := net.Dial("tcp", "127.0.0.1:5005")
	if err != nil {
		log.Fatal(err)
	}
	relay, err := transport.NewRelay(scache.WithJournal(func(e scache.JournalEntry) {
		if e.Hit {
			log.Printf("%v answered from the cache (%d bytes)", e.Direction, len(e.Packet))
		}
	}))
	if err != nil {
		log.Fatal(err)
	}
	if err := relay.Run(ctx, debugger, vm); err != nil {
		log.Print(err)
	}
	log.Printf("%+v", relay.Speculator().Stats())
}

// A Proxy serves one debugger session at a time, dialling the VM for each.
func ExampleProxy() {
	ln, err := net.Listen("tcp", "127.0.0.1:8700")
	if err != nil {
		log.Fatal(err)
	}
	p, err := transport.NewProxy(func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", "127.0.0.1:5005")
	}, scache.WithCacheBytes(16<<20), transport.WithSessionEnded(func(s scache.Stats, err error) {
		log.Printf("session ended: %d hits, %d misses, err %v", s.Hits, s.Misses, err)
	}))
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(p.Serve(context.Background(), ln))
}
