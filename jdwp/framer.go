package jdwp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
)

// DefaultMaxPacketSize is the largest packet a Framer accepts unless told
// otherwise. Real packets are far smaller except for RedefineClasses commands
// and large array or AllClasses replies.
const DefaultMaxPacketSize = 8 << 20

// A Framer reads and writes whole JDWP packets on a stream.
//
// ReadPacket returns a packet in a buffer the Framer reuses: it is valid until
// the next ReadPacket. A caller that keeps a packet copies it (or uses
// ReadPacketInto with its own buffer). Reads and writes are independent: one
// goroutine may read while another writes, but two goroutines must not read
// (or write) at once.
type Framer struct {
	r       *bufio.Reader
	w       io.Writer
	maxSize int
	header  [HeaderSize]byte
	readBuf []byte
}

// NewFramer returns a Framer reading from r and writing to w (either may be nil
// if unused), with the DefaultMaxPacketSize.
func NewFramer(w io.Writer, r io.Reader) *Framer {
	f := &Framer{w: w, maxSize: DefaultMaxPacketSize}
	if r != nil {
		f.r = bufio.NewReaderSize(r, 64<<10)
	}
	return f
}

// SetMaxPacketSize sets the largest packet ReadPacket accepts (at least HeaderSize).
func (f *Framer) SetMaxPacketSize(n int) {
	if n < HeaderSize {
		n = HeaderSize
	}
	f.maxSize = n
}

// MaxPacketSize returns the largest packet ReadPacket accepts.
func (f *Framer) MaxPacketSize() int { return f.maxSize }

// ReadPacket reads one packet. It returns io.EOF only when the stream ends at a
// packet boundary, io.ErrUnexpectedEOF when it ends inside a packet, and a
// *PacketError wrapping ErrLengthTooSmall, ErrBadFlags or ErrPacketTooLarge for
// a header that cannot be accepted; the size is checked before the payload is
// allocated. The returned slice is valid until the next ReadPacket.
func (f *Framer) ReadPacket() ([]byte, error) {
	p, err := f.ReadPacketInto(f.readBuf[:0])
	if cap(p) > cap(f.readBuf) {
		f.readBuf = p[:0]
	}
	return p, err
}

// ReadPacketInto reads one packet and appends it to buf, returning the
// extended slice. With a buffer of enough capacity it does not allocate.
func (f *Framer) ReadPacketInto(buf []byte) ([]byte, error) {
	if f.r == nil {
		return buf, errors.New("jdwp: Framer has no reader")
	}
	if n, err := io.ReadFull(f.r, f.header[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			err = &TruncatedError{Want: HeaderSize, Got: n}
		}
		return buf, err // io.EOF at a boundary
	}
	var h Header
	if err := h.parsePrefix(f.header[:]); err != nil {
		return buf, err
	}
	if int64(h.Length) > int64(f.maxSize) {
		return buf, &PacketError{Reason: ErrPacketTooLarge, Len: f.maxSize, LengthField: h.Length}
	}
	n := int(h.Length)
	start := len(buf)
	if cap(buf)-start < n {
		nb := make([]byte, start, start+n)
		copy(nb, buf)
		buf = nb
	}
	buf = buf[:start+n]
	copy(buf[start:], f.header[:])
	if got, err := io.ReadFull(f.r, buf[start+HeaderSize:]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			err = &TruncatedError{Want: n, Got: HeaderSize + got}
		}
		return buf[:start], err
	}
	return buf, nil
}

// WritePacket writes one whole packet in a single Write, after checking its header.
func (f *Framer) WritePacket(packet []byte) error {
	if err := new(Header).Parse(packet); err != nil {
		return err
	}
	if _, err := f.w.Write(packet); err != nil {
		return fmt.Errorf("jdwp: writing packet: %w", err)
	}
	return nil
}

// ReadEach reads packets and calls fn with each, in order, until the stream
// ends or fn returns an error. It returns nil when the stream ended cleanly
// (IsCleanClose), fn's error as it is, or the read error. The packet passed
// to fn is valid only during the call.
func (f *Framer) ReadEach(fn func(packet []byte) error) error {
	for {
		p, err := f.ReadPacket()
		if err != nil {
			if IsCleanClose(err) {
				return nil
			}
			return err
		}
		if err := fn(p); err != nil {
			return err
		}
	}
}

// IsCleanClose reports whether a read error is how a JDWP connection ends
// normally: the peer closed it at a packet boundary (io.EOF), or this side
// closed it (net.ErrClosed, io.ErrClosedPipe). The one rule of every read
// loop: the relay's, share's and Conn's.
func IsCleanClose(err error) bool {
	return err == nil || err == io.EOF || errors.Is(err, net.ErrClosed) || errors.Is(err, io.ErrClosedPipe)
}
