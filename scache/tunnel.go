package scache

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/jdwpscache/scache/jdwp"
)

// The tunnel between the two halves of a split proxy: one ordered byte
// stream (a TCP connection, through ssh -L, kubectl port-forward or adb
// forward as well as directly), its own handshake and framing.
//
// Handshake. The far half opens the tunnel and sends its hello: the 13 bytes
// "SCACHE-TUNNEL", the version (uint16, big-endian) and the byte 'F'. The
// near half answers with "SCACHE-TUNNEL", its version, a status byte (0: the
// session is on; anything else: it is not), and a message (uint16 length,
// UTF-8 text) saying why not. The near half reaches the VM before it answers:
// the status tells the far half whether the VM answered its JDWP handshake.
// A JDWP debugger that connects to the near half by mistake gets a line of
// text saying so in place of the JDWP handshake, and the connection closes.
//
// Frames. Each frame is a type byte, a length (uint32, big-endian, of what
// follows, at most the largest JDWP packet plus 8) and its payload:
//
//	'P' packet      a JDWP packet: the debugger's (far to near) or the VM's (near to far)
//	'A' announce    near to far: uint64 count of 'P' frames the near half had
//	                read when it sent the synthetic command that follows
//	'S' synthetic   near to far: the VM's reply to an announced command
//	'U' used        far to near: the key of a reply that answered the debugger
//	'E' end         either way: why the sender ends the session (UTF-8 text);
//	                nothing follows it

// TunnelVersion is the version of the tunnel's handshake and framing.
const TunnelVersion = 1

// tunnelMagic opens both hellos.
const tunnelMagic = "SCACHE-TUNNEL"

// Tunnel frame types.
const (
	framePacket    byte = 'P'
	frameAnnounce  byte = 'A'
	frameSynthetic byte = 'S'
	frameUsed      byte = 'U'
	frameEnd       byte = 'E'
)

const (
	frameHeaderSize = 5
	announceSeqSize = 8
	// maxTunnelText bounds the text of a hello's message and of an 'E' frame.
	maxTunnelText = 4096
)

// notATunnelMessage is what a JDWP debugger that connects to the near half
// reads in place of the handshake. A debugger shows the 14 bytes it read
// in place of "JDWP-Handshake": they say what to do.
const notATunnelMessage = "use -split far: this is the near half of a split proxy (scache); connect a far half (proxy -split far) here and the debugger to the far half\n"

// ErrTunnel marks errors about the tunnel between the halves of a split
// proxy: a peer that is not the other half, another version, a malformed
// frame.
var ErrTunnel = errors.New("scache: tunnel")

func tunnelErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrTunnel}, args...)...)
}

// farHello returns the far half's hello.
func farHello() []byte {
	b := append([]byte(tunnelMagic), 0, 0, 'F')
	binary.BigEndian.PutUint16(b[len(tunnelMagic):], TunnelVersion)
	return b
}

// nearHello returns the near half's answer: status 0 and no message when the
// session is on.
func nearHello(status byte, message string) []byte {
	if len(message) > maxTunnelText {
		message = message[:maxTunnelText]
	}
	b := make([]byte, len(tunnelMagic)+2+1+2, len(tunnelMagic)+5+len(message))
	copy(b, tunnelMagic)
	binary.BigEndian.PutUint16(b[len(tunnelMagic):], TunnelVersion)
	b[len(tunnelMagic)+2] = status
	binary.BigEndian.PutUint16(b[len(tunnelMagic)+3:], uint16(len(message)))
	return append(b, message...)
}

// readFarHello reads the far half's hello. A JDWP handshake in its place
// returns errJDWPAtNear.
func readFarHello(r io.Reader) error {
	b := make([]byte, len(tunnelMagic)+3)
	// A debugger sends its 14 bytes and waits: read those first.
	n, err := io.ReadFull(r, b[:len(jdwp.HandshakeBytes)])
	if err == nil && bytes.Equal(b[:n], jdwp.HandshakeBytes) {
		return errJDWPAtNear
	}
	if err == nil {
		var m int
		m, err = io.ReadFull(r, b[n:])
		n += m
	}
	if err != nil {
		return tunnelErrorf("reading the far half's hello: %d of its %d bytes arrived: %v", n, len(b), err)
	}
	if string(b[:len(tunnelMagic)]) != tunnelMagic {
		return tunnelErrorf("the peer is not the far half of a split proxy: it sent %q", b)
	}
	if v := binary.BigEndian.Uint16(b[len(tunnelMagic):]); v != TunnelVersion || b[len(b)-1] != 'F' {
		return &versionError{theirs: v, role: b[len(b)-1]}
	}
	return nil
}

// errJDWPAtNear: a JDWP debugger connected to the near half.
var errJDWPAtNear = fmt.Errorf("%w: a JDWP debugger connected to the near half: debuggers connect to the far half", ErrTunnel)

// versionError: the far half speaks another version of the tunnel.
type versionError struct {
	theirs uint16
	role   byte
}

func (e *versionError) Error() string {
	if e.role != 'F' {
		return fmt.Sprintf("scache: tunnel: the peer says it is %q, not a far half", e.role)
	}
	return fmt.Sprintf("scache: tunnel: the far half speaks tunnel version %d, this near half %d: run the same scache version on both sides", e.theirs, TunnelVersion)
}

func (e *versionError) Unwrap() error { return ErrTunnel }

// readNearHello reads the near half's answer; an error says why the
// session is not on.
func readNearHello(r io.Reader) error {
	b := make([]byte, len(tunnelMagic)+5)
	n, err := io.ReadFull(r, b)
	switch {
	case bytes.HasPrefix(b[:n], jdwp.HandshakeBytes):
		return tunnelErrorf("the peer is a JDWP VM, not the near half of a split proxy: give the far half the near half's address")
	case n == 0 && err == io.EOF:
		return tunnelErrorf("the near half closed the tunnel without answering")
	case err != nil:
		return tunnelErrorf("reading the near half's answer: %d of its %d bytes arrived: %v", n, len(b), err)
	}
	if string(b[:len(tunnelMagic)]) != tunnelMagic {
		return tunnelErrorf("the peer is not the near half of a split proxy: it sent %q", b)
	}
	v := binary.BigEndian.Uint16(b[len(tunnelMagic):])
	status := b[len(tunnelMagic)+2]
	msg := make([]byte, min(int(binary.BigEndian.Uint16(b[len(tunnelMagic)+3:])), maxTunnelText))
	if _, err := io.ReadFull(r, msg); err != nil && status != 0 {
		return tunnelErrorf("the near half refused the session (its message was cut short)")
	}
	if v != TunnelVersion {
		return tunnelErrorf("the near half speaks tunnel version %d, this far half %d: run the same scache version on both sides", v, TunnelVersion)
	}
	if status != 0 {
		return tunnelErrorf("the near half refused the session: %s", msg)
	}
	return nil
}

// newFrame returns a frame of type typ whose payload is the concatenation
// of parts, in a buffer of its own.
func newFrame(typ byte, parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	b := make([]byte, frameHeaderSize, frameHeaderSize+n)
	b[0] = typ
	binary.BigEndian.PutUint32(b[1:], uint32(n))
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// announceFrame returns the 'A' frame of a synthetic command sent when the
// near half had read seq 'P' frames.
func announceFrame(seq uint64, command []byte) []byte {
	var s [announceSeqSize]byte
	binary.BigEndian.PutUint64(s[:], seq)
	return newFrame(frameAnnounce, s[:], command)
}

// A frame is one tunnel frame, parsed.
type frame struct {
	typ     byte
	seq     uint64 // of an 'A' frame
	payload []byte // the packet, key or text
}

// parseFrame parses one whole frame and checks its payload's shape.
func parseFrame(b []byte) (frame, error) {
	if len(b) < frameHeaderSize {
		return frame{}, tunnelErrorf("a frame of %d bytes: its header has %d", len(b), frameHeaderSize)
	}
	f := frame{typ: b[0], payload: b[frameHeaderSize:]}
	if n := binary.BigEndian.Uint32(b[1:]); int64(n) != int64(len(f.payload)) {
		return frame{}, tunnelErrorf("a frame whose length field says %d carries %d bytes", n, len(f.payload))
	}
	switch f.typ {
	case frameAnnounce:
		if len(f.payload) < announceSeqSize {
			return frame{}, tunnelErrorf("an announce frame of %d bytes", len(f.payload))
		}
		f.seq = binary.BigEndian.Uint64(f.payload)
		f.payload = f.payload[announceSeqSize:]
		fallthrough
	case framePacket, frameSynthetic:
		if err := new(jdwp.Header).Parse(f.payload); err != nil {
			return frame{}, tunnelErrorf("a %q frame whose packet is malformed: %v", f.typ, err)
		}
	case frameUsed:
		if len(f.payload) < 2 {
			return frame{}, tunnelErrorf("a used frame of %d bytes", len(f.payload))
		}
	case frameEnd:
		if len(f.payload) > maxTunnelText {
			return frame{}, tunnelErrorf("an end frame of %d bytes", len(f.payload))
		}
	default:
		return frame{}, tunnelErrorf("a frame of unknown type %#x", f.typ)
	}
	return f, nil
}

// A frameReader reads whole tunnel frames, bounded before allocating.
type frameReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newFrameReader(r io.Reader, maxPacketSize int) *frameReader {
	if maxPacketSize <= 0 {
		maxPacketSize = jdwp.DefaultMaxPacketSize
	}
	return &frameReader{r: bufio.NewReaderSize(r, 64<<10), max: maxPacketSize + announceSeqSize}
}

// read returns the next whole frame, valid until the next read: io.EOF at a
// frame boundary, a tunnel error for a frame too large or cut short.
func (fr *frameReader) read() ([]byte, error) {
	var h [frameHeaderSize]byte
	if n, err := io.ReadFull(fr.r, h[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return nil, tunnelErrorf("the tunnel ended inside a frame header (%d of 5 bytes)", n)
		}
		return nil, err
	}
	n := binary.BigEndian.Uint32(h[1:])
	if int64(n) > int64(fr.max) {
		return nil, tunnelErrorf("a frame whose length field says %d: the bound is %d", n, fr.max)
	}
	if cap(fr.buf) < frameHeaderSize+int(n) {
		fr.buf = make([]byte, frameHeaderSize+int(n))
	}
	b := fr.buf[:frameHeaderSize+int(n)]
	copy(b, h[:])
	if got, err := io.ReadFull(fr.r, b[frameHeaderSize:]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, tunnelErrorf("the tunnel ended inside a frame: %d of its %d bytes arrived", got, n)
		}
		return nil, err
	}
	return b, nil
}
