package scachetest

import (
	"io"
	"sync"

	"github.com/jdwpscache/scache/jdwp"
)

// Serve speaks JDWP as the VM on conn: it answers the handshake, then each
// command in order with vm.Handle, until the connection ends. Events can be
// sent with the returned function, which is safe to call while Serve runs.
// Serve returns nil when the peer closes the connection.
func Serve(conn io.ReadWriteCloser, vm *ModelVM) (send func(packet []byte) error, done <-chan error) {
	var mu sync.Mutex
	send = func(p []byte) error {
		mu.Lock()
		defer mu.Unlock()
		_, err := conn.Write(p)
		return err
	}
	ch := make(chan error, 1)
	go func() {
		defer conn.Close()
		if err := jdwp.VMHandshake(conn, 0); err != nil {
			ch <- err
			return
		}
		f := jdwp.NewFramer(nil, conn)
		for {
			p, err := f.ReadPacket()
			if err == io.EOF {
				ch <- nil
				return
			}
			if err != nil {
				ch <- err
				return
			}
			if reply := vm.Handle(p); reply != nil {
				if err := send(reply); err != nil {
					ch <- err
					return
				}
			}
		}
	}()
	return send, ch
}
