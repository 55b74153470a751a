package jdwp

import (
	"errors"
	"fmt"
)

// A Message is the data of one command or reply packet: what follows the header.
// Encode appends it to a Writer; Decode reads it from a Reader and returns the
// Reader's error.
type Message interface {
	Encode(w *Writer)
	Decode(r *Reader) error
}

// A CommandMessage is the data of a command: it knows its command set and command.
type CommandMessage interface {
	Message
	Command() Command
}

// ErrTrailingData is returned by Unmarshal when bytes are left after a message.
var ErrTrailingData = errors.New("jdwp: trailing data after message")

// Marshal returns the encoding of m with the given id sizes.
func Marshal(m Message, sizes IDSizes) []byte {
	w := NewWriter(sizes)
	m.Encode(w)
	return w.Bytes()
}

// Unmarshal decodes data into m and requires that every byte is consumed.
func Unmarshal(data []byte, sizes IDSizes, m Message) error {
	var r Reader
	r.Reset(data, sizes)
	if err := m.Decode(&r); err != nil {
		return err
	}
	if r.Len() != 0 {
		return &DecodeError{Offset: r.Offset(), What: fmt.Sprintf("%T", m), Err: ErrTrailingData}
	}
	return nil
}

// AppendCommandPacket appends a whole command packet carrying m to b.
func AppendCommandPacket(b []byte, id uint32, m CommandMessage, sizes IDSizes) []byte {
	start := len(b)
	b = AppendHeader(b, Header{ID: id, CommandSet: m.Command().Set, Command: m.Command().Cmd})
	w := Writer{buf: b, sizes: sizes}
	m.Encode(&w)
	b = w.buf
	putLength(b[start:])
	return b
}

// AppendReplyPacket appends a whole successful reply packet carrying m to b.
func AppendReplyPacket(b []byte, id uint32, m Message, sizes IDSizes) []byte {
	start := len(b)
	b = AppendHeader(b, Header{ID: id, Flags: FlagReply})
	w := Writer{buf: b, sizes: sizes}
	m.Encode(&w)
	b = w.buf
	putLength(b[start:])
	return b
}

func putLength(packet []byte) {
	n := uint32(len(packet))
	packet[0], packet[1], packet[2], packet[3] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
}

// emptyData is embedded by messages that carry no data.
type emptyData struct{}

// Encode writes nothing.
func (emptyData) Encode(*Writer) {}

// Decode reads nothing.
func (emptyData) Decode(r *Reader) error { return r.Err() }

// EmptyReply is the reply of commands that answer with no data (Dispose,
// Suspend, Resume, RedefineClasses, EventRequest.Clear, …).
type EmptyReply struct{ emptyData }

// StringReply is a reply holding one string: ReferenceType.Signature,
// SourceFile and SourceDebugExtension, ThreadReference.Name, StringReference.Value.
type StringReply struct{ Value string }

// Encode implements Message.
func (m *StringReply) Encode(w *Writer) { w.String(m.Value) }

// Decode implements Message.
func (m *StringReply) Decode(r *Reader) error { m.Value = r.String(); return r.Err() }

// IntReply is a reply holding one int: ThreadReference.FrameCount,
// EventRequest.Set (the request id), ThreadReference.SuspendCount.
type IntReply struct{ Value int32 }

// Encode implements Message.
func (m *IntReply) Encode(w *Writer) { w.Int32(m.Value) }

// Decode implements Message.
func (m *IntReply) Decode(r *Reader) error { m.Value = r.Int32(); return r.Err() }

// BoolReply is a reply holding one boolean: Method.IsObsolete, ObjectReference.IsCollected.
type BoolReply struct{ Value bool }

// Encode implements Message.
func (m *BoolReply) Encode(w *Writer) { w.Bool(m.Value) }

// Decode implements Message.
func (m *BoolReply) Decode(r *Reader) error { m.Value = r.Bool(); return r.Err() }

func encodeMethod(w *Writer, t ReferenceTypeID, m MethodID) {
	w.ReferenceTypeID(t)
	w.MethodID(m)
}
