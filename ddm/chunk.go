package ddm

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/jdwpscache/scache/jdwp"
)

// CommandSet and Command are the JDWP command that carries DDM chunks.
const (
	CommandSet jdwp.CommandSet = 0xC7
	Command    uint8           = 0x01
)

// Cmd is the JDWP command of DDM packets.
var Cmd = jdwp.Command{Set: CommandSet, Cmd: Command}

// ChunkHeaderSize is the size of a chunk's type and length.
const ChunkHeaderSize = 8

// A Type is a chunk type: four ASCII characters packed big-endian.
type Type uint32

// TypeOf packs a four-character name into a Type.
func TypeOf(name string) Type {
	var b [4]byte
	copy(b[:], name)
	return Type(binary.BigEndian.Uint32(b[:]))
}

// String returns the four characters of the type.
func (t Type) String() string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(t))
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return fmt.Sprintf("Type(%#08x)", uint32(t))
		}
	}
	return string(b[:])
}

// The chunk types of the protocol and of current Android releases.
var (
	TypeHELO = TypeOf("HELO") // hello: versions, pid, VM and app names
	TypeFEAT = TypeOf("FEAT") // feature list
	TypeWAIT = TypeOf("WAIT") // the VM waits for a debugger
	TypeDBGD = TypeOf("DBGD") // the debugger disconnected
	TypeAPNM = TypeOf("APNM") // the application name changed
	TypeSTAG = TypeOf("STAG") // the app's boot stage changed
	TypeEXIT = TypeOf("EXIT") // make the VM exit
	TypeFAIL = TypeOf("FAIL") // a request failed
	TypeZLIB = TypeOf("ZLIB") // a compressed chunk

	TypeTHEN = TypeOf("THEN") // thread notifications on/off
	TypeTHCR = TypeOf("THCR") // thread created
	TypeTHDE = TypeOf("THDE") // thread died
	TypeTHNM = TypeOf("THNM") // thread renamed
	TypeTHST = TypeOf("THST") // thread status
	TypeSTKL = TypeOf("STKL") // a thread's stack

	TypeHPIF = TypeOf("HPIF") // heap info
	TypeHPSG = TypeOf("HPSG") // heap segments
	TypeHPSO = TypeOf("HPSO") // heap segments, runs ending at objects
	TypeNHSG = TypeOf("NHSG") // native heap segments
	TypeHPST = TypeOf("HPST") // heap dump start
	TypeHPEN = TypeOf("HPEN") // heap dump end
	TypeNHST = TypeOf("NHST") // native heap dump start
	TypeNHEN = TypeOf("NHEN") // native heap dump end
	TypeHPGC = TypeOf("HPGC") // run the garbage collector
	TypeHPDU = TypeOf("HPDU") // dump the heap to a file on the device
	TypeHPDS = TypeOf("HPDS") // dump the heap and stream it
	TypeNHGT = TypeOf("NHGT") // native heap allocations (little-endian)
	TypeREAE = TypeOf("REAE") // recent allocation tracking on/off
	TypeREAQ = TypeOf("REAQ") // is allocation tracking on
	TypeREAL = TypeOf("REAL") // recent allocations

	TypeMPRS = TypeOf("MPRS") // method profiling start (to a file)
	TypeMPRE = TypeOf("MPRE") // method profiling end
	TypeMPSS = TypeOf("MPSS") // method profiling start (streamed)
	TypeMPSE = TypeOf("MPSE") // method profiling end (streamed), and the trace
	TypeSPSS = TypeOf("SPSS") // sampling profiling start (streamed)
	TypeSPSE = TypeOf("SPSE") // sampling profiling end (streamed)
	TypeMPRQ = TypeOf("MPRQ") // is method profiling on
)

// A Chunk is one chunk: its type and data. Data aliases the packet it was
// parsed from.
type Chunk struct {
	Type Type
	Data []byte
}

// Errors of malformed DDM data.
var (
	ErrShortChunk = errors.New("ddm: chunk shorter than its header or length")
	ErrNotDDM     = errors.New("ddm: not a DDM packet")
	ErrTooLarge   = errors.New("ddm: data larger than the maximum")
)

// ParseChunks splits the data of a DDM packet into its chunks.
func ParseChunks(data []byte) ([]Chunk, error) {
	var chunks []Chunk
	for len(data) > 0 {
		if len(data) < ChunkHeaderSize {
			return chunks, fmt.Errorf("%w: %d bytes left", ErrShortChunk, len(data))
		}
		t := Type(binary.BigEndian.Uint32(data))
		n := binary.BigEndian.Uint32(data[4:])
		if uint64(n) > uint64(len(data)-ChunkHeaderSize) {
			return chunks, fmt.Errorf("%w: %s claims %d bytes, %d left", ErrShortChunk, t, n, len(data)-ChunkHeaderSize)
		}
		chunks = append(chunks, Chunk{Type: t, Data: data[ChunkHeaderSize : ChunkHeaderSize+int(n)]})
		data = data[ChunkHeaderSize+int(n):]
	}
	return chunks, nil
}

// AppendChunk appends a chunk's header and data to b.
func AppendChunk(b []byte, c Chunk) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(c.Type))
	b = binary.BigEndian.AppendUint32(b, uint32(len(c.Data)))
	return append(b, c.Data...)
}

// IsDDM reports whether a JDWP packet is a DDM command.
func IsDDM(packet []byte) bool {
	var h jdwp.Header
	return h.Parse(packet) == nil && !h.IsReply() && h.Cmd() == Cmd
}

// AppendCommandPacket appends a JDWP command packet carrying chunks.
func AppendCommandPacket(b []byte, id uint32, chunks ...Chunk) []byte {
	var data []byte
	for _, c := range chunks {
		data = AppendChunk(data, c)
	}
	return jdwp.AppendCommand(b, id, Cmd, data)
}

// AppendReplyPacket appends a JDWP reply packet carrying chunks (none for an
// empty success reply).
func AppendReplyPacket(b []byte, id uint32, chunks ...Chunk) []byte {
	var data []byte
	for _, c := range chunks {
		data = AppendChunk(data, c)
	}
	return jdwp.AppendReply(b, id, jdwp.ErrNone, data)
}

// FromVM reports whether a DDM packet id was chosen by the VM: VM-initiated
// packets have bit 31 set.
func FromVM(id uint32) bool { return id&0x80000000 != 0 }
