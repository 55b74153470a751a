package journal

import (
	"encoding/binary"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
)

// A PcapngWriter writes a journal as a pcapng capture that Wireshark (and
// tshark, and ReadCapture) reads: the session as one TCP connection over
// IPv4 from the debugger (127.0.0.1, port PcapngDebuggerPort) to the VM
// (127.0.0.2, port PcapngVMPort), opened with the JDWP handshake both ways,
// each JDWP packet in segments of its own, timestamps in nanoseconds.
// Synthetic commands and their replies, answers from the cache and held
// commands are marked with packet comments ("scache: synthetic", …). Open it
// in Wireshark with Decode As… TCP port 8700 → JDWP (tshark: -d
// tcp.port==8700,jdwp).
type PcapngWriter struct {
	mu      sync.Mutex
	w       io.Writer
	c       io.Closer
	seq     [2]uint32 // next sequence number from the debugger, from the VM
	started bool
	buf     gopacket.SerializeBuffer
}

// The ports of the connection a PcapngWriter writes.
const (
	PcapngDebuggerPort = 50000
	PcapngVMPort       = 8700
)

var (
	pcapngDebuggerIP = net.IPv4(127, 0, 0, 1)
	pcapngVMIP       = net.IPv4(127, 0, 0, 2)
)

// maxSegment bounds a segment's payload: an IPv4 packet holds at most 64 KiB.
const maxSegment = 60000

// CreatePcapng creates (or truncates) a pcapng journal file.
func CreatePcapng(path string) (*PcapngWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w, err := NewPcapngWriter(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	w.c = f
	return w, nil
}

// NewPcapngWriter writes the section and interface headers to w and returns
// a writer of journal records.
func NewPcapngWriter(w io.Writer) (*PcapngWriter, error) {
	pw := &PcapngWriter{w: w, seq: [2]uint32{1000, 5000}, buf: gopacket.NewSerializeBuffer()}
	// Section header: byte-order magic, version 1.0, section length unknown.
	shb := binary.LittleEndian.AppendUint32(nil, 0x1A2B3C4D)
	shb = binary.LittleEndian.AppendUint16(shb, 1)
	shb = binary.LittleEndian.AppendUint16(shb, 0)
	shb = binary.LittleEndian.AppendUint64(shb, ^uint64(0))
	// Interface: Ethernet, no snapshot limit, timestamps in nanoseconds (if_tsresol 9).
	idb := binary.LittleEndian.AppendUint16(nil, uint16(layers.LinkTypeEthernet))
	idb = binary.LittleEndian.AppendUint16(idb, 0)
	idb = binary.LittleEndian.AppendUint32(idb, 0)
	idb = appendOption(idb, 9, []byte{9})
	idb = appendOption(idb, 0, nil)
	for _, b := range []struct {
		kind uint32
		body []byte
	}{{0x0A0D0D0A, shb}, {1, idb}} {
		if _, err := w.Write(block(b.kind, b.body)); err != nil {
			return nil, err
		}
	}
	return pw, nil
}

// block frames a pcapng block: type, total length, body (padded), total length.
func block(kind uint32, body []byte) []byte {
	for len(body)%4 != 0 {
		body = append(body, 0)
	}
	n := uint32(12 + len(body))
	b := binary.LittleEndian.AppendUint32(nil, kind)
	b = binary.LittleEndian.AppendUint32(b, n)
	b = append(b, body...)
	return binary.LittleEndian.AppendUint32(b, n)
}

// appendOption appends a pcapng option (code, length, value padded to 4).
func appendOption(b []byte, code uint16, value []byte) []byte {
	b = binary.LittleEndian.AppendUint16(b, code)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(value)))
	b = append(b, value...)
	for len(value)%4 != 0 {
		b = append(b, 0)
		value = append(value, 0)
	}
	return b
}

// Append writes one record; the first one is preceded by the connection's
// opening (SYN, SYN-ACK, ACK) and the JDWP handshake both ways.
func (w *PcapngWriter) Append(r Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.started {
		w.started = true
		at := r.Time.Add(-time.Microsecond)
		for _, s := range []struct {
			up        bool
			syn, ack  bool
			payload   []byte
			advanceBy uint32
		}{
			{up: true, syn: true, advanceBy: 1},
			{up: false, syn: true, ack: true, advanceBy: 1},
			{up: true, ack: true},
			{up: true, ack: true, payload: jdwp.HandshakeBytes},
			{up: false, ack: true, payload: jdwp.HandshakeBytes},
		} {
			if err := w.segment(at, s.up, s.syn, s.ack, s.payload, ""); err != nil {
				return err
			}
			w.seq[dirIndex(s.up)] += s.advanceBy
		}
	}
	comment := ""
	switch {
	case r.Hit && r.Direction == scache.Upstream:
		comment = "scache: answered from the cache"
	case r.Hit:
		comment = "scache: an answer from the cache"
	case r.Held:
		comment = "scache: held until a reply in flight answers it"
	case r.Synthetic:
		comment = "scache: synthetic"
	}
	p := r.Packet
	for first := true; first || len(p) > 0; first = false {
		n := min(len(p), maxSegment)
		if err := w.segment(r.Time, r.Direction == scache.Upstream, false, true, p[:n], comment); err != nil {
			return err
		}
		p = p[n:]
	}
	return nil
}

func dirIndex(up bool) int {
	if up {
		return 0
	}
	return 1
}

// segment writes one TCP segment as an enhanced packet block and advances
// the direction's sequence number by its payload.
func (w *PcapngWriter) segment(at time.Time, up, syn, ack bool, payload []byte, comment string) error {
	srcIP, dstIP, srcPort, dstPort := pcapngDebuggerIP, pcapngVMIP, PcapngDebuggerPort, PcapngVMPort
	if !up {
		srcIP, dstIP, srcPort, dstPort = dstIP, srcIP, dstPort, srcPort
	}
	d := dirIndex(up)
	eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, byte(1 + d)}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, byte(2 - d)},
		EthernetType: layers.EthernetTypeIPv4}
	ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: srcIP, DstIP: dstIP}
	tcp := &layers.TCP{SrcPort: layers.TCPPort(srcPort), DstPort: layers.TCPPort(dstPort), Seq: w.seq[d],
		Ack: w.seq[1-d], SYN: syn, ACK: ack, PSH: len(payload) > 0, Window: 65535}
	if syn && !ack {
		tcp.Ack = 0
	}
	if err := tcp.SetNetworkLayerForChecksum(ip); err != nil {
		return err
	}
	if err := gopacket.SerializeLayers(w.buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true},
		eth, ip, tcp, gopacket.Payload(payload)); err != nil {
		return err
	}
	frame := w.buf.Bytes()
	w.seq[d] += uint32(len(payload))
	ns := uint64(at.UnixNano())
	epb := binary.LittleEndian.AppendUint32(nil, 0) // interface 0
	epb = binary.LittleEndian.AppendUint32(epb, uint32(ns>>32))
	epb = binary.LittleEndian.AppendUint32(epb, uint32(ns))
	epb = binary.LittleEndian.AppendUint32(epb, uint32(len(frame)))
	epb = binary.LittleEndian.AppendUint32(epb, uint32(len(frame)))
	epb = append(epb, frame...)
	for len(epb)%4 != 0 {
		epb = append(epb, 0)
	}
	if comment != "" {
		epb = appendOption(epb, 1, []byte(comment))
		epb = appendOption(epb, 0, nil)
	}
	_, err := w.w.Write(block(6, epb))
	return err
}

// Write appends a relay journal entry, ignoring errors; it fits
// scache.WithJournal. Use Append to see errors.
func (w *PcapngWriter) Write(e scache.JournalEntry) { _ = w.Append(FromEntry(e)) }

// Close closes the file of a PcapngWriter made by CreatePcapng.
func (w *PcapngWriter) Close() error {
	if w.c != nil {
		return w.c.Close()
	}
	return nil
}

// A Sink receives a proxy's journal entries and is closed when it stops:
// a *Writer (the trace format) or a *PcapngWriter.
type Sink interface {
	Write(scache.JournalEntry)
	Close() error
}

// CreateSink creates a journal file in the format its name says: pcapng
// for a name ending in .pcapng, the trace format (.sctrace) otherwise.
func CreateSink(path string) (Sink, error) {
	if strings.HasSuffix(strings.ToLower(path), ".pcapng") {
		return CreatePcapng(path)
	}
	return Create(path)
}
