package journal

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/jdwpscache/scache/scache"
)

// The trace file format:
//
//	header: "SCTRACE\x00" (8 bytes), version u16 (1), reserved u16 (0)
//	record: length u32 (of the rest of the record), time i64 (Unix ns),
//	        direction u8 (0 upstream, 1 downstream), flags u8 (1 synthetic,
//	        2 hit, 4 held), then the packet
//
// All integers are big-endian. Records are only appended, each in one write,
// so a crash leaves at worst a truncated last record, which readers report
// and skip.
const (
	fileMagic     = "SCTRACE\x00"
	fileVersion   = 1
	headerSize    = 12
	recordHeader  = 4 + 8 + 1 + 1
	maxRecordSize = 64 << 20
)

const (
	flagSynthetic = 1 << iota
	flagHit
	flagHeld
)

// Errors of trace files.
var (
	ErrNotATrace      = errors.New("journal: not a trace file (bad magic)")
	ErrVersion        = errors.New("journal: unsupported trace version")
	ErrTruncated      = errors.New("journal: truncated last record")
	ErrRecordTooLarge = errors.New("journal: record larger than the maximum")
)

// A Writer appends records to a trace file. It is safe for concurrent use.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
	c   io.Closer
}

// NewWriter writes the file header to w and returns a Writer.
func NewWriter(w io.Writer) (*Writer, error) {
	h := make([]byte, headerSize)
	copy(h, fileMagic)
	binary.BigEndian.PutUint16(h[8:], fileVersion)
	if _, err := w.Write(h); err != nil {
		return nil, err
	}
	return &Writer{w: w}, nil
}

// Create creates (or truncates) a trace file.
func Create(path string) (*Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w, err := NewWriter(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	w.c = f
	return w, nil
}

// Append writes one record in a single write.
func (w *Writer) Append(r Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	b := w.buf[:0]
	b = binary.BigEndian.AppendUint32(b, uint32(recordHeader-4+len(r.Packet)))
	b = binary.BigEndian.AppendUint64(b, uint64(r.Time.UnixNano()))
	b = append(b, byte(r.Direction), flags(r))
	b = append(b, r.Packet...)
	w.buf = b
	_, err := w.w.Write(b)
	return err
}

// Write appends a relay journal entry, ignoring errors; it fits
// scache.WithJournal. Use Append to see errors.
func (w *Writer) Write(e scache.JournalEntry) {
	_ = w.Append(Record{Time: e.Time, Direction: e.Direction, Packet: e.Packet, Synthetic: e.Synthetic, Hit: e.Hit, Held: e.Held})
}

// Close closes the file of a Writer made by Create.
func (w *Writer) Close() error {
	if w.c != nil {
		return w.c.Close()
	}
	return nil
}

func flags(r Record) byte {
	var f byte
	if r.Synthetic {
		f |= flagSynthetic
	}
	if r.Hit {
		f |= flagHit
	}
	if r.Held {
		f |= flagHeld
	}
	return f
}

// A Reader reads the records of a trace file.
type Reader struct {
	r *bufio.Reader
}

// NewReader checks the header of a trace and returns a Reader.
func NewReader(r io.Reader) (*Reader, error) {
	br := bufio.NewReader(r)
	h := make([]byte, headerSize)
	if _, err := io.ReadFull(br, h); err != nil || string(h[:8]) != fileMagic {
		return nil, ErrNotATrace
	}
	if v := binary.BigEndian.Uint16(h[8:]); v != fileVersion {
		return nil, fmt.Errorf("%w %d", ErrVersion, v)
	}
	return &Reader{r: br}, nil
}

// Next returns the next record: io.EOF after the last one, ErrTruncated if
// the file ends inside a record (nothing can follow it), ErrRecordTooLarge for
// a length no record has.
func (rd *Reader) Next() (Record, error) {
	var h [recordHeader]byte
	n, err := io.ReadFull(rd.r, h[:])
	if err == io.EOF {
		return Record{}, io.EOF
	}
	if err != nil {
		return Record{}, fmt.Errorf("%w (%d header bytes)", ErrTruncated, n)
	}
	size := binary.BigEndian.Uint32(h[0:4])
	if size < recordHeader-4 || size > maxRecordSize {
		return Record{}, fmt.Errorf("%w: %d bytes", ErrRecordTooLarge, size)
	}
	packet := make([]byte, int(size)-(recordHeader-4))
	if _, err := io.ReadFull(rd.r, packet); err != nil {
		return Record{}, fmt.Errorf("%w (%d of %d packet bytes)", ErrTruncated, 0, len(packet))
	}
	f := h[13]
	return Record{
		Time:      time.Unix(0, int64(binary.BigEndian.Uint64(h[4:12]))),
		Direction: scache.Direction(h[12]),
		Packet:    packet,
		Synthetic: f&flagSynthetic != 0,
		Hit:       f&flagHit != 0,
		Held:      f&flagHeld != 0,
	}, nil
}

// ReadAll reads every record. A truncated last record is skipped and reported
// as an error wrapping ErrTruncated, beside the records read before it.
func ReadAll(r io.Reader) ([]Record, error) {
	rd, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	var recs []Record
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return recs, err
		}
		recs = append(recs, rec)
	}
}
