// Package tunnel is the wire format of the tunnel between the two halves of
// a split proxy: one ordered byte stream (a TCP connection, directly or
// through ssh -L, kubectl port-forward or adb forward) with its own
// handshake and framing. Package scache's halves make and parse its frames;
// package transport does the handshake and reads the frames off a
// connection.
//
// Handshake. The far half opens the tunnel and sends its hello: the 13 bytes
// "SCACHE-TUNNEL", the version (uint16, big-endian), the byte 'F' and the
// features it offers (a byte of Features bits, version 4), and a heartbeat
// frame right behind it (version 3; FarOpening). The near half answers
// with "SCACHE-TUNNEL", its version, a status byte (0: the session is on;
// StatusVersion, StatusVM, StatusBusy: it is not), the features it
// accepts of those offered (version 4), and a message (uint16 length,
// UTF-8 text) saying why not. Each half uses a feature only if the near
// half accepted it. The near half reaches
// the VM before it answers: the status tells the far half whether the VM
// answered its JDWP handshake. Every refusal after a hello carries a status
// and a message; a peer that closes without a word at the hello is no near
// half (a JDWP VM does that: it reads 14 bytes, sees no JDWP handshake and
// closes). A JDWP debugger that connects to a near half's Relay by mistake
// gets a line of text saying so in place of the JDWP handshake (a Proxy
// serves it as one proxy next to the VM instead).
//
// Frames. Each frame is a type byte, a length (uint32, big-endian, of what
// follows, at most the largest JDWP packet plus 8) and its payload:
//
//	'P' packet      a JDWP packet: the debugger's (far to near) or the VM's (near to far)
//	'A' announce    near to far: uint64 count of 'P' frames the near half had
//	                read when it sent the synthetic command that follows
//	'S' synthetic   near to far: the VM's reply to an announced command
//	'U' used        far to near: the key of a reply that answered the debugger
//	'R' round trip  far to near: uint64, the round trip from the far half to
//	                the VM in microseconds (the VM's service included), as the
//	                far half measures it (first, as the session opens, its
//	                hello's round trip); the near half weighs its pushes
//	                with it (version 2); then uint64, the rate of the link
//	                from the near half in bytes per second as the far half
//	                measures it, 0 when it did not show (version 4)
//	'H' heartbeat   either way, empty: sent every HeartbeatInterval, so a
//	                half hears from a live peer even while nothing else
//	                crosses (version 3)
//	'E' end         either way: why the sender ends the session (UTF-8 text,
//	                at most MaxText bytes); nothing follows it
//	'Z' compressed  either way, with Deflate accepted: uint32 length, then
//	                that many bytes of whole frames (none of them 'Z')
//	                compressed with DEFLATE (RFC 1951); see Packer (version 4)
//	'K' received    either way, with Resume accepted: uint64, the bytes of
//	                the tunnel's stream the sender has received from the
//	                other half so far; the other half may forget what it
//	                sent before them (version 5)
//
// Resuming (version 5, with Resume accepted). The near half's answer that
// turns the session on is followed by a Token (TokenSize bytes): the
// session's resume token, which only the two halves hold (inside the TLS
// channel of a keyed tunnel). Each half counts the bytes of the tunnel's
// stream it sent and received, and keeps what it sent until the other
// half's 'K' frame says it arrived. When the link is lost, the far half
// opens a new connection (through the same key) and sends ResumeHello: the
// magic, the version, the byte 'R', the features, the token, the bytes it
// received (uint64), and where in its stream the bytes that follow the
// hello start and end (two uint64, version 6): the far half does not wait
// for the answer, it sends again at once everything the near half has not
// acknowledged, and the near half drops what of it had arrived already.
// What the far half sends past the end, it sent once it read the answer.
// The near half answers with a near hello (status 0, or StatusResume and
// why not; then it reads nothing of what followed); status 0 is followed
// by the bytes the near half received (uint64) and the session's next
// token: a token resumes the session once. Then the near half sends again
// what the far half has not received, and the stream goes on as if the
// link had never dropped: one round trip after the channel's handshake.
package tunnel

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/jdwpscache/scache/jdwp"
)

// Version is the version of the tunnel's handshake and framing.
const Version = 6

// Features are the optional parts of the protocol a half speaks, one bit
// each: the far half offers them in its hello, the near half answers with
// those it accepts.
type Features uint8

const (
	// Deflate: 'Z' frames, batches of frames compressed with DEFLATE.
	Deflate Features = 1
	// Resume: the session survives a lost link: 'K' frames, a resume
	// token, and the far half's ResumeHello on a new connection.
	Resume Features = 2
)

// Supported are the features this version knows.
const Supported = Deflate | Resume

// HeartbeatInterval is how often each half sends a heartbeat frame. A half
// that hears nothing from its peer for SilenceTimeout ends the session.
const HeartbeatInterval = 5 * time.Second

// SilenceTimeout is how long a half waits without a frame from its peer
// before it ends the session: three heartbeats.
const SilenceTimeout = 3 * HeartbeatInterval

// magic opens both hellos.
const magic = "SCACHE-TUNNEL"

// Frame types.
const (
	Packet    byte = 'P'
	Announce  byte = 'A'
	Synthetic byte = 'S'
	Used      byte = 'U'
	RoundTrip byte = 'R'
	Heartbeat byte = 'H'
	End       byte = 'E'
	Zipped    byte = 'Z'
	Received  byte = 'K'
)

const (
	// HeaderSize is the size of a frame's header: its type byte and its
	// length.
	HeaderSize      = 5
	announceSeqSize = 8
	// MaxText bounds the text of a hello's message and of an 'E' frame.
	MaxText = 4096
)

// The near half's statuses.
const (
	// StatusOn: the session is on.
	StatusOn byte = 0
	// StatusVersion: the far half speaks another version, or is no far half.
	StatusVersion byte = 1
	// StatusVM: the near half cannot reach the VM, or the VM refused its
	// JDWP handshake; the message has the dial or handshake error.
	StatusVM byte = 2
	// StatusBusy: the near half serves another session (a VM takes one
	// debugger at a time).
	StatusBusy byte = 3
	// StatusKey: the near half requires a tunnel key and the far half
	// came without one (its hello in the clear).
	StatusKey byte = 4
	// StatusResume: the near half holds no session for the resume token
	// (it ended, or the token is wrong or was used already).
	StatusResume byte = 5
)

// NotATunnelMessage is what a JDWP debugger that connects to the near half
// reads in place of the handshake. A debugger shows the 14 bytes it read
// in place of "JDWP-Handshake": they say what to do.
const NotATunnelMessage = "use -split far: this is the near half of a split proxy (scache); connect a far half (scache proxy -split far) here and the debugger to the far half\n"

// ErrTunnel marks errors about the tunnel between the halves of a split
// proxy: a peer that is not the other half, another version, a malformed
// frame.
var ErrTunnel = errors.New("scache: tunnel")

// ErrOversized marks a frame whose length field is over the reader's
// bound: the peer broke the protocol on a connection that still works, so
// the reader's half can still tell it why it ends. It wraps ErrTunnel.
var ErrOversized = fmt.Errorf("%w: a frame over the bound", ErrTunnel)

// Errorf returns an error about the tunnel: it wraps ErrTunnel.
func Errorf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrTunnel}, args...)...)
}

// FarOpening returns what the far half sends to open the tunnel: its
// hello offering features, and a heartbeat frame right behind it. The near
// half dials the VM only once it has both, so a peer that sends a hello and
// goes silent never reaches the VM.
func FarOpening(offer Features) []byte {
	return append(FarHello(offer), NewFrame(Heartbeat)...)
}

// ReadHeartbeat reads the heartbeat frame that follows the far half's hello.
func ReadHeartbeat(r io.Reader) error {
	var b [HeaderSize]byte
	n, err := io.ReadFull(r, b[:])
	if err != nil {
		return Errorf("the far half sent %d of the 5 bytes of the heartbeat that follows its hello: %v", n, err)
	}
	if b != [HeaderSize]byte{Heartbeat} {
		return Errorf("the far half's hello is followed by %q, not a heartbeat frame", b[:])
	}
	return nil
}

// FarHello returns the far half's hello, offering features.
func FarHello(offer Features) []byte {
	b := append([]byte(magic), 0, 0, 'F', byte(offer))
	binary.BigEndian.PutUint16(b[len(magic):], Version)
	return b
}

// NearHello returns the near half's answer: status 0, the features it
// accepts and no message when the session is on.
func NearHello(status byte, accept Features, message string) []byte {
	if len(message) > MaxText {
		message = message[:MaxText]
	}
	b := make([]byte, len(magic)+2+1+1+2, len(magic)+6+len(message))
	copy(b, magic)
	binary.BigEndian.PutUint16(b[len(magic):], Version)
	b[len(magic)+2] = status
	b[len(magic)+3] = byte(accept)
	binary.BigEndian.PutUint16(b[len(magic)+4:], uint16(len(message)))
	return append(b, message...)
}

// ReadFarHello reads the far half's hello that opens a session and returns
// the features it offers. A JDWP handshake in its place returns
// ErrJDWPAtNear; a ResumeHello is refused (see ReadHello).
func ReadFarHello(r io.Reader) (Features, error) {
	h, err := ReadHello(r)
	if err == nil && h.Resume {
		return 0, Errorf("the far half asks to resume a session where one opens")
	}
	return h.Features, err
}

// A Hello is what the far half sent to open a tunnel: a new session's
// hello, or a ResumeHello.
type Hello struct {
	Features Features // offered (a new session), or agreed on (a resume)
	Resume   bool     // a ResumeHello: Token, Received, From and To are set
	Token    Token
	Received uint64 // the bytes of the stream the far half received
	// From and To: where in the far half's stream the bytes it sent again
	// right behind the hello start and end.
	From, To uint64
}

// ReadHello reads the far half's hello: FarHello's or ResumeHello's. A
// JDWP handshake in its place returns ErrJDWPAtNear.
func ReadHello(r io.Reader) (Hello, error) {
	b := make([]byte, len(magic)+3)
	// A debugger sends its 14 bytes and waits: read those first.
	n, err := io.ReadFull(r, b[:len(jdwp.HandshakeBytes)])
	if err == nil && bytes.Equal(b[:n], jdwp.HandshakeBytes) {
		return Hello{}, ErrJDWPAtNear
	}
	if err == nil && b[0] == tlsHandshakeRecord {
		return Hello{}, ErrKeyedFar
	}
	if err == nil {
		var m int
		m, err = io.ReadFull(r, b[n:])
		n += m
	}
	if err != nil {
		return Hello{}, Errorf("reading the far half's hello: %d of its %d bytes arrived: %v", n, len(b)+1, err)
	}
	if string(b[:len(magic)]) != magic {
		return Hello{}, Errorf("the peer is not the far half of a split proxy: it sent %q", b)
	}
	role := b[len(b)-1]
	if v := binary.BigEndian.Uint16(b[len(magic):]); v != Version || (role != 'F' && role != 'R') {
		return Hello{}, &VersionError{theirs: v, role: role}
	}
	rest := make([]byte, 1, 1+TokenSize+24)
	if role == 'R' {
		rest = rest[:cap(rest)]
	}
	if m, err := io.ReadFull(r, rest); err != nil {
		return Hello{}, Errorf("reading the far half's hello: %d of its %d bytes arrived: %v", n+m, n+len(rest), err)
	}
	h := Hello{Features: Features(rest[0]), Resume: role == 'R'}
	if h.Resume {
		copy(h.Token[:], rest[1:])
		h.Received = binary.BigEndian.Uint64(rest[1+TokenSize:])
		h.From = binary.BigEndian.Uint64(rest[1+TokenSize+8:])
		h.To = binary.BigEndian.Uint64(rest[1+TokenSize+16:])
	}
	return h, nil
}

// TokenSize is the size of a resume token.
const TokenSize = 32

// A Token is a session's resume token: random, known to its two halves.
type Token [TokenSize]byte

// ResumeHello returns the far half's hello on a new connection that
// resumes the session of token, having received received bytes of it; the
// bytes that follow it are its own stream's from position from to to.
func ResumeHello(agreed Features, token Token, received, from, to uint64) []byte {
	b := append([]byte(magic), 0, 0, 'R', byte(agreed))
	binary.BigEndian.PutUint16(b[len(magic):], Version)
	b = append(b, token[:]...)
	b = binary.BigEndian.AppendUint64(b, received)
	b = binary.BigEndian.AppendUint64(b, from)
	return binary.BigEndian.AppendUint64(b, to)
}

// ResumeAnswer returns what follows the near half's status 0 to a
// ResumeHello: the bytes it received, and the session's next token.
func ResumeAnswer(received uint64, next Token) []byte {
	b := binary.BigEndian.AppendUint64(nil, received)
	return append(b, next[:]...)
}

// ReadResumeAnswer reads what follows the near half's status 0 to a
// ResumeHello.
func ReadResumeAnswer(r io.Reader) (received uint64, next Token, err error) {
	var b [8 + TokenSize]byte
	if n, err := io.ReadFull(r, b[:]); err != nil {
		return 0, next, Errorf("reading the near half's answer to the resume: %d of its %d bytes arrived: %v", n, len(b), err)
	}
	copy(next[:], b[8:])
	return binary.BigEndian.Uint64(b[:]), next, nil
}

// ReadToken reads the resume token that follows the near half's answer
// when Resume was accepted.
func ReadToken(r io.Reader) (Token, error) {
	var t Token
	if n, err := io.ReadFull(r, t[:]); err != nil {
		return t, Errorf("reading the session's resume token: %d of its %d bytes arrived: %v", n, TokenSize, err)
	}
	return t, nil
}

// ReceivedFrame returns the 'K' frame saying the sender has received n
// bytes of the other half's stream.
func ReceivedFrame(n uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], n)
	return NewFrame(Received, b[:])
}

// ReceivedOf returns the count a 'K' frame's payload tells.
func ReceivedOf(payload []byte) uint64 { return binary.BigEndian.Uint64(payload) }

// ErrNoAnswer: the peer closed the connection at the far half's hello
// without a byte. A near half answers every hello, even to refuse it; a
// JDWP VM closes so (the hello is no JDWP handshake).
var ErrNoAnswer = fmt.Errorf("%w: the peer closed the connection at the tunnel's hello without answering, as a JDWP VM does, not a near half", ErrTunnel)

// tlsHandshakeRecord opens a TLS connection: a far half with a key.
const tlsHandshakeRecord = 0x16

// ErrKeyedFar: a far half with a tunnel key (its TLS handshake) reached a
// near half without one.
var ErrKeyedFar = fmt.Errorf("%w: a far half with a tunnel key connected to a near half without one", ErrTunnel)

// ErrJDWPAtNear: a JDWP debugger connected to the near half.
var ErrJDWPAtNear = fmt.Errorf("%w: a JDWP debugger connected to the near half: debuggers connect to the far half", ErrTunnel)

// A VersionError says the far half speaks another version of the tunnel.
type VersionError struct {
	theirs uint16
	role   byte
}

// Error says which side speaks which version, or that the peer is no far half.
func (e *VersionError) Error() string {
	if e.role != 'F' && e.role != 'R' {
		return fmt.Sprintf("scache: tunnel: the peer says it is %q, not a far half", e.role)
	}
	return fmt.Sprintf("scache: tunnel: the far half speaks tunnel version %d, this near half %d: run the same scache version on both sides", e.theirs, Version)
}

// Unwrap returns ErrTunnel, which every tunnel error wraps.
func (e *VersionError) Unwrap() error { return ErrTunnel }

// IsNearHelloStart reports whether b, the first bytes a peer sent, begin
// a near half's answer.
func IsNearHelloStart(b []byte) bool {
	n := min(len(b), len(magic))
	return n > 0 && string(b[:n]) == magic[:n]
}

// ReadNearHello reads the near half's answer and returns the features it
// accepts; an error says why the session is not on. An answer of another
// version names both versions (an older near half's refusal of this far
// half's version says so in its own message, read in its layout).
func ReadNearHello(r io.Reader) (Features, error) {
	b := make([]byte, len(magic)+2)
	n, err := io.ReadFull(r, b)
	switch {
	case bytes.HasPrefix(b[:n], jdwp.HandshakeBytes):
		return 0, Errorf("the peer is a JDWP VM, not the near half of a split proxy: give the far half the near half's address")
	case n == 0 && (err == io.EOF || errors.Is(err, syscall.ECONNRESET)):
		return 0, ErrNoAnswer
	case err != nil:
		return 0, Errorf("reading the near half's answer: %d of its bytes arrived: %v", n, err)
	}
	if string(b[:len(magic)]) != magic {
		return 0, Errorf("the peer is not the near half of a split proxy: it sent %q", b)
	}
	v := binary.BigEndian.Uint16(b[len(magic):])
	rest := make([]byte, 4) // status, features, message length
	if v < 4 {
		rest = rest[:3] // no features byte before version 4
	}
	if _, err := io.ReadFull(r, rest); err != nil {
		if v != Version {
			return 0, Errorf("the near half speaks tunnel version %d, this far half %d: run the same scache version on both sides", v, Version)
		}
		return 0, Errorf("reading the near half's answer: %v", err)
	}
	status, accept := rest[0], Features(0)
	if v >= 4 {
		accept = Features(rest[1])
	}
	n = int(binary.BigEndian.Uint16(rest[len(rest)-2:]))
	if n > MaxText {
		return 0, Errorf("the near half's answer carries a message of %d bytes: the bound is %d", n, MaxText)
	}
	msg := make([]byte, n)
	if _, err := io.ReadFull(r, msg); err != nil && status != 0 {
		return 0, Errorf("the near half refused the session (its message was cut short)")
	}
	if v != Version {
		why := fmt.Sprintf("the near half speaks tunnel version %d, this far half %d: run the same scache version on both sides", v, Version)
		if status != 0 && len(msg) > 0 {
			why += " (the near half says: " + string(msg) + ")"
		}
		return 0, Errorf("%s", why)
	}
	if status != 0 {
		return 0, &RefusalError{Status: status, Message: string(msg)}
	}
	if accept&^Supported != 0 {
		return 0, Errorf("the near half accepts features %#x this far half never offered", byte(accept))
	}
	return accept, nil
}

// A RefusalError is a near half's answer that refuses the session: its
// status and why.
type RefusalError struct {
	Status  byte
	Message string
}

// Error says that the near half refused the session, and why.
func (e *RefusalError) Error() string {
	return "scache: tunnel: the near half refused the session: " + e.Message
}

// Unwrap returns ErrTunnel, which every tunnel error wraps.
func (e *RefusalError) Unwrap() error { return ErrTunnel }

// NewFrame returns a frame of type typ whose payload is the concatenation
// of parts, in a buffer of its own.
func NewFrame(typ byte, parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	b := make([]byte, HeaderSize, HeaderSize+n)
	b[0] = typ
	binary.BigEndian.PutUint32(b[1:], uint32(n))
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// EndFrame returns the 'E' frame ending the session for reason, cut to
// MaxText bytes (at a rune boundary).
func EndFrame(reason string) []byte {
	if len(reason) > MaxText {
		cut := MaxText
		for cut > 0 && !utf8.RuneStart(reason[cut]) {
			cut--
		}
		reason = reason[:cut]
	}
	return NewFrame(End, []byte(reason))
}

// AnnounceFrame returns the 'A' frame of a synthetic command sent when the
// near half had read seq 'P' frames.
func AnnounceFrame(seq uint64, command []byte) []byte {
	var s [announceSeqSize]byte
	binary.BigEndian.PutUint64(s[:], seq)
	return NewFrame(Announce, s[:], command)
}

// RoundTripFrame returns the 'R' frame telling the near half the round
// trip from the far half to the VM, and the rate in bytes per second of
// the link between them (0: unknown).
func RoundTripFrame(d time.Duration, rate float64) []byte {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:], uint64(max(0, d.Microseconds())))
	binary.BigEndian.PutUint64(b[8:], uint64(max(0, rate)))
	return NewFrame(RoundTrip, b[:])
}

// RoundTripOf returns the round trip an 'R' frame's payload tells, at most
// a minute (a longer one is no link a debugger waits on), and the link's
// rate, at most 100 GB/s.
func RoundTripOf(payload []byte) (time.Duration, float64) {
	us := min(binary.BigEndian.Uint64(payload), uint64(time.Minute/time.Microsecond))
	rate := min(binary.BigEndian.Uint64(payload[8:]), 100e9)
	return time.Duration(us) * time.Microsecond, float64(rate)
}

// A Frame is one tunnel frame, parsed.
type Frame struct {
	Type    byte
	Seq     uint64 // of an 'A' frame
	Payload []byte // the packet, key or text
}

// ParseFrame parses one whole frame and checks its payload's shape.
func ParseFrame(b []byte) (Frame, error) {
	if len(b) < HeaderSize {
		return Frame{}, Errorf("a frame of %d bytes: its header has %d", len(b), HeaderSize)
	}
	f := Frame{Type: b[0], Payload: b[HeaderSize:]}
	if n := binary.BigEndian.Uint32(b[1:]); int64(n) != int64(len(f.Payload)) {
		return Frame{}, Errorf("a frame whose length field says %d carries %d bytes", n, len(f.Payload))
	}
	switch f.Type {
	case Announce:
		if len(f.Payload) < announceSeqSize {
			return Frame{}, Errorf("an announce frame of %d bytes", len(f.Payload))
		}
		f.Seq = binary.BigEndian.Uint64(f.Payload)
		f.Payload = f.Payload[announceSeqSize:]
		fallthrough
	case Packet, Synthetic:
		if err := new(jdwp.Header).Parse(f.Payload); err != nil {
			return Frame{}, Errorf("a %q frame whose packet is malformed: %v", f.Type, err)
		}
	case Used:
		if len(f.Payload) < 2 {
			return Frame{}, Errorf("a used frame of %d bytes", len(f.Payload))
		}
	case RoundTrip:
		if len(f.Payload) != 16 {
			return Frame{}, Errorf("a round-trip frame of %d bytes", len(f.Payload))
		}
	case End:
		if len(f.Payload) > MaxText {
			return Frame{}, Errorf("an end frame of %d bytes", len(f.Payload))
		}
	case Received:
		if len(f.Payload) != 8 {
			return Frame{}, Errorf("a received frame of %d bytes", len(f.Payload))
		}
	case Heartbeat:
		if len(f.Payload) != 0 {
			return Frame{}, Errorf("a heartbeat frame of %d bytes", len(f.Payload))
		}
	default:
		return Frame{}, Errorf("a frame of unknown type %#x", f.Type)
	}
	return f, nil
}

// A Reader reads whole tunnel frames, bounded before allocating.
type Reader struct {
	r     *bufio.Reader
	max   int
	buf   []byte
	unzip *unzipper // nil unless Deflate was accepted
}

// Accept lets the reader unpack the features the near half accepted:
// with Deflate, a 'Z' frame is unpacked and its frames returned one by
// one; without, it is a protocol error.
func (fr *Reader) Accept(f Features) {
	if f&Deflate != 0 && fr.unzip == nil {
		fr.unzip = &unzipper{}
	}
}

// NewReader returns a Reader of the frames of r, carrying JDWP packets of at
// most maxPacketSize bytes (0: jdwp.DefaultMaxPacketSize).
func NewReader(r io.Reader, maxPacketSize int) *Reader {
	if maxPacketSize <= 0 {
		maxPacketSize = jdwp.DefaultMaxPacketSize
	}
	return &Reader{r: bufio.NewReaderSize(r, 64<<10), max: maxPacketSize + announceSeqSize}
}

// Read returns the next whole frame, valid until the next read: io.EOF at a
// frame boundary, a tunnel error for a frame too large or cut short. The
// frames of a 'Z' frame come one by one; a 'Z' frame is never returned.
func (fr *Reader) Read() ([]byte, error) {
	if fr.unzip != nil && len(fr.unzip.pending) > 0 {
		return fr.unzip.next(fr.max)
	}
	b, err := fr.readFrame()
	if err != nil || b[0] != Zipped {
		return b, err
	}
	if fr.unzip == nil {
		return nil, Errorf("a compressed frame, which the near half did not accept")
	}
	if err := fr.unzip.unzip(b[HeaderSize:]); err != nil {
		return nil, err
	}
	if len(fr.unzip.pending) == 0 {
		return nil, Errorf("a compressed frame of no frames")
	}
	return fr.unzip.next(fr.max)
}

// readFrame reads one frame off the connection.
func (fr *Reader) readFrame() ([]byte, error) {
	var h [HeaderSize]byte
	if n, err := io.ReadFull(fr.r, h[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return nil, Errorf("the tunnel ended inside a frame header (%d of 5 bytes)", n)
		}
		return nil, err
	}
	n := binary.BigEndian.Uint32(h[1:])
	bound := fr.max
	if h[0] == Zipped && fr.unzip != nil {
		bound = MaxUnzipped // a batch, packed smaller than it was
	}
	if int64(n) > int64(bound) {
		return nil, fmt.Errorf("%w: a frame whose length field says %d: the bound is %d", ErrOversized, n, bound)
	}
	if cap(fr.buf) < HeaderSize+int(n) {
		fr.buf = make([]byte, HeaderSize+int(n))
	}
	b := fr.buf[:HeaderSize+int(n)]
	copy(b, h[:])
	if got, err := io.ReadFull(fr.r, b[HeaderSize:]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, Errorf("the tunnel ended inside a frame: %d of its %d bytes arrived", got, n)
		}
		return nil, err
	}
	return b, nil
}
