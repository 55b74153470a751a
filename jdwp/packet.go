package jdwp

import (
	"encoding/binary"
	"fmt"
)

// HeaderSize is the size of a JDWP packet header in bytes.
const HeaderSize = 11

// FlagReply is the header flag bit that marks a reply packet. No other flag
// bit is defined by the specification.
const FlagReply = 0x80

// A Header is the fixed 11-byte header of a JDWP packet.
//
// For a command, CommandSet and Command identify it and ErrorCode is zero.
// For a reply (Flags&FlagReply != 0), ErrorCode holds the error and CommandSet
// and Command are zero: a reply does not say which command it answers, only
// its ID does.
type Header struct {
	Length     uint32 // length of the whole packet, header included
	ID         uint32 // pairs a reply with the command it answers
	Flags      uint8
	CommandSet CommandSet // commands only
	Command    uint8      // commands only
	ErrorCode  ErrorCode  // replies only
}

// IsReply reports whether the header belongs to a reply packet.
func (h Header) IsReply() bool { return h.Flags&FlagReply != 0 }

// Cmd returns the command set and command of a command packet's header.
func (h Header) Cmd() Command { return Command{Set: h.CommandSet, Cmd: h.Command} }

// String returns a short description such as "cmd id=7 ThreadReference.Frames len=27".
func (h Header) String() string {
	if h.IsReply() {
		return fmt.Sprintf("reply id=%d err=%s len=%d", h.ID, h.ErrorCode, h.Length)
	}
	return fmt.Sprintf("cmd id=%d %s len=%d", h.ID, h.Cmd(), h.Length)
}

// ParseHeader parses the header of a complete packet. It checks that the
// packet is at least HeaderSize bytes, that the length field equals len(packet)
// and that no undefined flag bit is set; any failure is a *PacketError.
func ParseHeader(packet []byte) (Header, error) {
	var h Header
	if err := h.Parse(packet); err != nil {
		return Header{}, err
	}
	return h, nil
}

// Parse is ParseHeader into a Header the caller owns. It does not allocate.
func (h *Header) Parse(packet []byte) error {
	if len(packet) < HeaderSize {
		return &PacketError{Reason: ErrShortPacket, Len: len(packet)}
	}
	if err := h.parsePrefix(packet[:HeaderSize]); err != nil {
		return err
	}
	if int64(h.Length) != int64(len(packet)) {
		return &PacketError{Reason: ErrLengthMismatch, Len: len(packet), LengthField: h.Length}
	}
	return nil
}

// parsePrefix parses the 11 header bytes without comparing the length field
// with anything but the header size.
func (h *Header) parsePrefix(b []byte) error {
	h.Length = binary.BigEndian.Uint32(b[0:4])
	h.ID = binary.BigEndian.Uint32(b[4:8])
	h.Flags = b[8]
	if h.Length < HeaderSize {
		return &PacketError{Reason: ErrLengthTooSmall, Len: len(b), LengthField: h.Length}
	}
	if h.Flags&^FlagReply != 0 {
		return &PacketError{Reason: ErrBadFlags, Len: len(b), LengthField: h.Length, Flags: h.Flags}
	}
	if h.IsReply() {
		h.CommandSet, h.Command = 0, 0
		h.ErrorCode = ErrorCode(binary.BigEndian.Uint16(b[9:11]))
	} else {
		h.CommandSet, h.Command = CommandSet(b[9]), b[10]
		h.ErrorCode = 0
	}
	return nil
}

// AppendHeader appends the 11 bytes of h to b.
func AppendHeader(b []byte, h Header) []byte {
	b = binary.BigEndian.AppendUint32(b, h.Length)
	b = binary.BigEndian.AppendUint32(b, h.ID)
	b = append(b, h.Flags)
	if h.IsReply() {
		return binary.BigEndian.AppendUint16(b, uint16(h.ErrorCode))
	}
	return append(b, byte(h.CommandSet), h.Command)
}

// AppendCommand appends a command packet with the given id, command and data to b.
func AppendCommand(b []byte, id uint32, cmd Command, data []byte) []byte {
	b = AppendHeader(b, Header{Length: uint32(HeaderSize + len(data)), ID: id, CommandSet: cmd.Set, Command: cmd.Cmd})
	return append(b, data...)
}

// AppendReply appends a reply packet with the given id, error code and data to b.
func AppendReply(b []byte, id uint32, code ErrorCode, data []byte) []byte {
	b = AppendHeader(b, Header{Length: uint32(HeaderSize + len(data)), ID: id, Flags: FlagReply, ErrorCode: code})
	return append(b, data...)
}

// PacketID returns the id field of a packet of at least HeaderSize bytes, or 0.
func PacketID(packet []byte) uint32 {
	if len(packet) < HeaderSize {
		return 0
	}
	return binary.BigEndian.Uint32(packet[4:8])
}

// SetPacketID overwrites the id field of a packet of at least HeaderSize bytes
// in place. It is how a cached reply is re-tagged for the command it answers.
func SetPacketID(packet []byte, id uint32) {
	if len(packet) >= HeaderSize {
		binary.BigEndian.PutUint32(packet[4:8], id)
	}
}

// Data returns the data part of a packet (everything after the header).
func Data(packet []byte) []byte {
	if len(packet) < HeaderSize {
		return nil
	}
	return packet[HeaderSize:]
}
