package share_test

import (
	"context"
	"log"
	"net"

	"github.com/jdwpscache/scache/share"
)

// One VM connection, any number of debuggers and tools: the Session owns the
// VM side and accepts clients on a loopback listener, each with its own
// handshake.
func Example() {
	vm, err := net.Dial("tcp", "127.0.0.1:5005")
	if err != nil {
		log.Fatal(err)
	}
	session, err := share.New(vm) // does the handshake; scache.Option values may follow
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()

	ln, err := net.Listen("tcp", "127.0.0.1:8700") // loopback: JDWP grants code execution
	if err != nil {
		log.Fatal(err)
	}
	if err := session.Serve(context.Background(), ln); err != nil {
		log.Fatal(err)
	}
}
