// Package wire is the adb device wire protocol: the 24-byte messages that a
// host's adb server and a device's adbd exchange over USB or TCP (CNXN, AUTH,
// OPEN, OKAY, WRTE, CLSE), with version and payload-size negotiation.
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Commands of the protocol, each its four ASCII letters little-endian.
const (
	CNXN uint32 = 0x4e584e43
	AUTH uint32 = 0x48545541
	OPEN uint32 = 0x4e45504f
	OKAY uint32 = 0x59414b4f
	WRTE uint32 = 0x45545257
	CLSE uint32 = 0x45534c43
	SYNC uint32 = 0x434e5953
	STLS uint32 = 0x534c5453
)

// Protocol versions and sizes.
const (
	VersionMin          uint32 = 0x01000000
	VersionSkipChecksum uint32 = 0x01000001 // from this version on, payload checksums are neither sent nor checked
	Version                    = VersionSkipChecksum
	MaxPayload          uint32 = 1 << 20 // what this side accepts
	HeaderSize                 = 24
)

// CommandName returns the four letters of a command.
func CommandName(c uint32) string {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], c)
	for _, x := range b {
		if x < 'A' || x > 'Z' {
			return fmt.Sprintf("%#08x", c)
		}
	}
	return string(b[:])
}

// A Message is one adb message: a command, two arguments and a payload.
type Message struct {
	Command uint32
	Arg0    uint32
	Arg1    uint32
	Data    []byte
}

// String describes the message for logs.
func (m Message) String() string {
	return fmt.Sprintf("%s(%#x, %#x, %d bytes)", CommandName(m.Command), m.Arg0, m.Arg1, len(m.Data))
}

// Checksum is the payload checksum of protocol versions before VersionSkipChecksum: the sum of its bytes.
func Checksum(data []byte) uint32 {
	var s uint32
	for _, b := range data {
		s += uint32(b)
	}
	return s
}

// Errors of malformed messages.
var (
	ErrBadMagic    = errors.New("adb: message magic is not command ^ 0xffffffff")
	ErrTooLarge    = errors.New("adb: message payload larger than the maximum")
	ErrBadChecksum = errors.New("adb: message payload checksum mismatch")
)

// Append appends the message's header and payload. With checksum false the
// data check field is 0, as versions from VersionSkipChecksum send it.
func Append(b []byte, m Message, checksum bool) []byte {
	var check uint32
	if checksum {
		check = Checksum(m.Data)
	}
	le := binary.LittleEndian
	b = le.AppendUint32(b, m.Command)
	b = le.AppendUint32(b, m.Arg0)
	b = le.AppendUint32(b, m.Arg1)
	b = le.AppendUint32(b, uint32(len(m.Data)))
	b = le.AppendUint32(b, check)
	b = le.AppendUint32(b, m.Command^0xffffffff)
	return append(b, m.Data...)
}

// Read reads one message. The payload size is checked against maxPayload
// before anything is allocated; with checksum true a non-matching data check
// is an error (versions before VersionSkipChecksum).
func Read(r io.Reader, maxPayload uint32, checksum bool) (Message, error) {
	var h [HeaderSize]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return Message{}, err
	}
	le := binary.LittleEndian
	m := Message{Command: le.Uint32(h[0:]), Arg0: le.Uint32(h[4:]), Arg1: le.Uint32(h[8:])}
	n, check, magic := le.Uint32(h[12:]), le.Uint32(h[16:]), le.Uint32(h[20:])
	if magic != m.Command^0xffffffff {
		return Message{}, fmt.Errorf("%w (command %s, magic %#08x)", ErrBadMagic, CommandName(m.Command), magic)
	}
	if n > maxPayload {
		return Message{}, fmt.Errorf("%w: %s of %d bytes, maximum %d", ErrTooLarge, CommandName(m.Command), n, maxPayload)
	}
	m.Data = make([]byte, n)
	if _, err := io.ReadFull(r, m.Data); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return Message{}, err
	}
	if checksum && check != Checksum(m.Data) {
		return Message{}, fmt.Errorf("%w: %s says %#x, data sums to %#x", ErrBadChecksum, CommandName(m.Command), check, Checksum(m.Data))
	}
	return m, nil
}

// A Banner is the system identity of a CNXN payload:
// "device::ro.product.name=x;ro.product.model=y;ro.product.device=z;features=a,b".
type Banner struct {
	System     string            // "device", "host", "recovery", …
	Serial     string            // usually empty
	Properties map[string]string // ro.product.* and others
	Features   []string
}

// ParseBanner parses a CNXN payload (a trailing NUL is allowed).
func ParseBanner(data []byte) Banner {
	s := strings.TrimRight(string(data), "\x00")
	var b Banner
	parts := strings.SplitN(s, ":", 3)
	b.System = parts[0]
	if len(parts) > 1 {
		b.Serial = parts[1]
	}
	b.Properties = map[string]string{}
	if len(parts) > 2 {
		for _, kv := range strings.Split(parts[2], ";") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				continue
			}
			if k == "features" {
				if v != "" {
					b.Features = strings.Split(v, ",")
				}
				continue
			}
			b.Properties[k] = v
		}
	}
	return b
}

// Bytes formats the banner as a CNXN payload.
func (b Banner) Bytes() []byte {
	var sb strings.Builder
	sb.WriteString(b.System + ":" + b.Serial + ":")
	for _, k := range []string{"ro.product.name", "ro.product.model", "ro.product.device"} {
		if v, ok := b.Properties[k]; ok {
			sb.WriteString(k + "=" + v + ";")
		}
	}
	sb.WriteString("features=" + strings.Join(b.Features, ","))
	return []byte(sb.String())
}

// HasFeature reports whether the banner lists a feature.
func (b Banner) HasFeature(f string) bool {
	for _, x := range b.Features {
		if x == f {
			return true
		}
	}
	return false
}

// Negotiate returns the version and payload size two sides agree on: the
// smaller of each.
func Negotiate(ours, theirs Message) (version, maxPayload uint32) {
	return min(ours.Arg0, theirs.Arg0), min(ours.Arg1, theirs.Arg1)
}
