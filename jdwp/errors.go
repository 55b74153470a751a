package jdwp

import (
	"errors"
	"fmt"
	"io"
)

// Sentinel errors of malformed packets. A *PacketError wraps one of them, so
// errors.Is(err, ErrShortPacket) works on whatever a parser returned.
var (
	// ErrShortPacket: fewer than HeaderSize bytes.
	ErrShortPacket = errors.New("jdwp: packet shorter than the 11-byte header")
	// ErrLengthTooSmall: the length field is below HeaderSize.
	ErrLengthTooSmall = errors.New("jdwp: length field smaller than the 11-byte header")
	// ErrLengthMismatch: the length field differs from the packet's size.
	ErrLengthMismatch = errors.New("jdwp: length field does not match packet size")
	// ErrBadFlags: a flag bit other than FlagReply is set.
	ErrBadFlags = errors.New("jdwp: undefined flag bits set")
	// ErrPacketTooLarge: the length field exceeds the Framer's maximum.
	ErrPacketTooLarge = errors.New("jdwp: packet larger than the maximum")
	// ErrTruncated: a read went past the end of a packet's data.
	ErrTruncated = errors.New("jdwp: data truncated")
	// ErrBadIDSize: an id size outside 1..8.
	ErrBadIDSize = errors.New("jdwp: id size must be 1 to 8 bytes")
	// ErrBadTag: a value tag that the specification does not define.
	ErrBadTag = errors.New("jdwp: unknown value tag")
	// ErrBadCount: an array count that is negative or larger than the data can hold.
	ErrBadCount = errors.New("jdwp: bad count")
	// ErrBadHandshake: the peer did not send "JDWP-Handshake".
	ErrBadHandshake = errors.New("jdwp: bad handshake")
	// ErrUnknownKind: an event or modifier kind whose layout is not known.
	ErrUnknownKind = errors.New("jdwp: unknown kind")
)

// A PacketError describes a packet whose header cannot be accepted.
type PacketError struct {
	Reason      error  // one of the sentinel errors above
	Len         int    // bytes available
	LengthField uint32 // the header's length field, when it was read
	Flags       uint8  // the header's flags, when they were read
}

// Error describes what is wrong with the packet.
func (e *PacketError) Error() string {
	switch e.Reason {
	case ErrShortPacket:
		return fmt.Sprintf("%v (%d bytes)", e.Reason, e.Len)
	case ErrBadFlags:
		return fmt.Sprintf("%v (flags 0x%02x)", e.Reason, e.Flags)
	case ErrLengthTooSmall:
		return fmt.Sprintf("%v (the length field says %d)", e.Reason, e.LengthField)
	case ErrPacketTooLarge:
		return fmt.Sprintf("%v (the length field says %d, the maximum is %d)", e.Reason, e.LengthField, e.Len)
	default:
		return fmt.Sprintf("%v (the length field says %d, the packet has %d bytes)", e.Reason, e.LengthField, e.Len)
	}
}

// Unwrap returns the sentinel reason.
func (e *PacketError) Unwrap() error { return e.Reason }

// A TruncatedError says that a connection ended inside a packet. It wraps
// io.ErrUnexpectedEOF.
type TruncatedError struct {
	Want, Got int // the packet's bytes (from its length field, or the header's 11) and those read
}

// Error says how much of the packet arrived.
func (e *TruncatedError) Error() string {
	return fmt.Sprintf("jdwp: the connection ended inside a packet: %d of its %d bytes arrived: %v", e.Got, e.Want, io.ErrUnexpectedEOF)
}

// Unwrap returns io.ErrUnexpectedEOF.
func (e *TruncatedError) Unwrap() error { return io.ErrUnexpectedEOF }

// A DecodeError says where in a packet's data decoding failed.
type DecodeError struct {
	Offset int    // offset in the data (after the header)
	What   string // what was being read ("u4", "string", "tag", …)
	Err    error  // sentinel reason
}

// Error says what was being read, where, and why it failed.
func (e *DecodeError) Error() string {
	return fmt.Sprintf("%v: reading %s at offset %d", e.Err, e.What, e.Offset)
}

// Unwrap returns the sentinel reason.
func (e *DecodeError) Unwrap() error { return e.Err }

// A ReplyError is an error reply from the VM (a reply with a non-zero error
// code), kept apart from local failures. errors.Is matches it against an
// ErrorCode.
type ReplyError struct {
	ID   uint32    // the packet id of the command
	Cmd  Command   // the command that failed, when known
	Code ErrorCode // the VM's error code
}

// Error names the command, its id and the VM's error code.
func (e *ReplyError) Error() string {
	return fmt.Sprintf("jdwp: %s (id %d) failed: %s", e.Cmd, e.ID, e.Code)
}

// Is reports whether target is the same ErrorCode.
func (e *ReplyError) Is(target error) bool {
	c, ok := target.(ErrorCode)
	return ok && c == e.Code
}
