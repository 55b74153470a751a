package jdwp

import (
	"io"
	"time"
)

// DrainTimeout is how long CloseAfterDrain waits for the peer to close its side.
const DrainTimeout = 5 * time.Second

// CloseAfterDrain ends a connection to a peer that must still read what was
// written to it. Closing a TCP socket while the peer's bytes are unread in it
// makes the kernel reset the connection, and a reset can discard what the
// peer had received but not yet read (a VM's last reply, for a debugger). So
// a connection that can half-close (CloseWrite, as *net.TCPConn) is closed
// for writing now: the peer reads everything, then end of stream, and closes
// its side, which the reader of c sees as io.EOF and answers with Close.
// Close comes after DrainTimeout at the latest. Others are closed at once.
func CloseAfterDrain(c io.Closer) {
	if hc, ok := c.(interface{ CloseWrite() error }); ok && hc.CloseWrite() == nil {
		time.AfterFunc(DrainTimeout, func() { c.Close() })
		return
	}
	c.Close()
}
