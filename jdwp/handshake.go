package jdwp

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"time"
)

// HandshakeBytes are the 14 ASCII bytes both sides send first.
var HandshakeBytes = []byte("JDWP-Handshake")

// HandshakeTimeout is the deadline DebuggerHandshake and VMHandshake apply to
// a net.Conn when the caller passes 0.
const HandshakeTimeout = 10 * time.Second

// DebuggerHandshake performs the debugger's side of the handshake: it sends
// "JDWP-Handshake" in a single write and expects the same 14 bytes back.
// On a net.Conn, the exchange must finish within timeout (HandshakeTimeout if 0);
// the deadline is cleared afterwards.
func DebuggerHandshake(rw io.ReadWriter, timeout time.Duration) error {
	defer withDeadline(rw, timeout)()
	if _, err := rw.Write(HandshakeBytes); err != nil {
		return fmt.Errorf("jdwp: sending handshake: %w", err)
	}
	return expectHandshake(rw, "VM")
}

// VMHandshake performs the VM's side: it expects "JDWP-Handshake" and answers
// with the same 14 bytes. On a net.Conn it applies a deadline like
// DebuggerHandshake.
func VMHandshake(rw io.ReadWriter, timeout time.Duration) error {
	defer withDeadline(rw, timeout)()
	if err := expectHandshake(rw, "debugger"); err != nil {
		return err
	}
	if _, err := rw.Write(HandshakeBytes); err != nil {
		return fmt.Errorf("jdwp: answering handshake: %w", err)
	}
	return nil
}

// ReadHandshake reads 14 bytes from r and checks that they are the handshake.
// peer names the other side in the error.
func ReadHandshake(r io.Reader, peer string) error { return expectHandshake(r, peer) }

func expectHandshake(r io.Reader, peer string) error {
	var got [14]byte
	n, err := io.ReadFull(r, got[:])
	if err != nil {
		if n > 0 && !bytes.HasPrefix(HandshakeBytes, got[:n]) {
			return handshakeMismatch(peer, got[:n])
		}
		return fmt.Errorf("jdwp: reading handshake from %s: %w", peer, err)
	}
	if !bytes.Equal(got[:], HandshakeBytes) {
		return handshakeMismatch(peer, got[:])
	}
	return nil
}

func handshakeMismatch(peer string, got []byte) error {
	hint := ""
	switch {
	case bytes.HasPrefix(got, []byte("GET ")) || bytes.HasPrefix(got, []byte("POST ")):
		hint = " (an HTTP request: a browser or web client talking to a JDWP port?)"
	case bytes.HasPrefix(got, []byte("HTTP/")):
		hint = " (an HTTP response: this port is a web server, not a JDWP agent)"
	}
	return fmt.Errorf("%w: %s sent %q instead of %q%s", ErrBadHandshake, peer, got, HandshakeBytes, hint)
}

// withDeadline sets a deadline on a net.Conn and returns the function that clears it.
func withDeadline(rw io.ReadWriter, timeout time.Duration) func() {
	c, ok := rw.(net.Conn)
	if !ok {
		return func() {}
	}
	if timeout <= 0 {
		timeout = HandshakeTimeout
	}
	_ = c.SetDeadline(time.Now().Add(timeout))
	return func() { _ = c.SetDeadline(time.Time{}) }
}
