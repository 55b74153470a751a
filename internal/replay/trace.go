// Package replay replays captured JDWP sessions through the Speculator in a
// discrete-event simulation of a slow link, checks that the debugger would
// have received the recorded replies, and estimates how long it would have
// waited in each mode. Replies are held to the recording byte for byte,
// except those about state that moves while threads run, which may carry any
// state recorded in the same stop, never going back (movingStates).
package replay

import (
	"bufio"
	"bytes"
	"embed"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/jdwpscache/scache/internal/journal"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
)

// A Trace is the organic traffic of one JDWP session: the debugger's
// commands and the VM's replies and events, in recorded order.
type Trace struct {
	Name    string
	Records []journal.Record
}

//go:embed traces/*.sctrace
var embedded embed.FS

// EmbeddedName is the name of the trace replayed when no file is given.
const EmbeddedName = "jdi-hotspot17.sctrace"

// Embedded returns the traces shipped in the binary: real JDI sessions
// against HotSpot 17, recorded as traces/README.md describes.
func Embedded() ([]Trace, error) {
	entries, err := embedded.ReadDir("traces")
	if err != nil {
		return nil, err
	}
	var out []Trace
	for _, e := range entries {
		b, err := embedded.ReadFile("traces/" + e.Name())
		if err != nil {
			return nil, err
		}
		ts, err := Parse(e.Name(), bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		out = append(out, ts...)
	}
	return out, nil
}

// LoadFile reads a trace file of our format or a pcap/pcapng capture (one
// Trace per JDWP session in it).
func LoadFile(path string) ([]Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(filepath.Base(path), f)
}

// Parse reads a trace file or a capture. A truncated last record of a trace
// file is reported as an error: the caller may still use the traces returned.
func Parse(name string, r io.Reader) ([]Trace, error) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(8)
	if journal.IsCapture(head) {
		sessions, err := journal.ReadCapture(br)
		if err != nil {
			return nil, err
		}
		var out []Trace
		for i, s := range sessions {
			n := name
			if len(sessions) > 1 {
				n = fmt.Sprintf("%s#%d", name, i+1)
			}
			out = append(out, organic(n, s.Records))
		}
		return out, nil
	}
	recs, err := journal.ReadAll(br)
	if recs == nil && err != nil {
		return nil, err
	}
	t := organic(name, recs)
	if len(t.Records) == 0 {
		return nil, fmt.Errorf("%w: no JDWP packets", journal.ErrNoJDWP)
	}
	return []Trace{t}, err
}

// organic keeps what the debugger and the VM said themselves: synthetic
// commands and their replies, recorded when the proxy speculated, are dropped,
// as are packets that do not parse.
func organic(name string, recs []journal.Record) Trace {
	t := Trace{Name: name}
	for _, r := range recs {
		h, err := jdwp.ParseHeader(r.Packet)
		if err != nil || r.Synthetic || scache.IsSyntheticID(h.ID) {
			continue
		}
		r.Hit, r.Held = false, false
		t.Records = append(t.Records, r)
	}
	return t
}
