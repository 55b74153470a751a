package journal

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"sort"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
	"github.com/jdwpscache/scache/scache"
)

// A Session is one JDWP connection found in a capture.
type Session struct {
	Debugger netip.AddrPort // the side that sent the handshake first
	VM       netip.AddrPort
	Records  []Record // upstream: debugger to VM
}

// ErrNoJDWP is returned for a capture with no JDWP session in it.
var ErrNoJDWP = errors.New("journal: no JDWP session in the capture")

// ReadCaptureFile reads a pcap or pcapng file; see ReadCapture.
func ReadCaptureFile(path string) ([]Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadCapture(f)
}

// IsCapture reports whether the first bytes of a file are those of a pcap or pcapng capture.
func IsCapture(head []byte) bool {
	if len(head) < 4 {
		return false
	}
	switch binary.LittleEndian.Uint32(head) {
	case 0x0A0D0D0A, 0xa1b2c3d4, 0xd4c3b2a1, 0xa1b23c4d, 0x4d3cb2a1:
		return true
	}
	return false
}

// packetSource is what pcapgo's two readers have in common.
type packetSource interface {
	ReadPacketData() ([]byte, gopacket.CaptureInfo, error)
}

// ReadCapture reads a pcap or pcapng capture of JDWP over TCP (as tcpdump or
// tshark write them; Ethernet, loopback, Linux cooked and raw IP link types),
// reassembles every TCP connection in both directions, finds the
// JDWP-Handshake to tell the debugger from the VM, and splits each direction
// into packets. Sessions come in the order their handshakes were captured.
func ReadCapture(r io.Reader) ([]Session, error) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(4)
	if !IsCapture(head) {
		return nil, errors.New("journal: not a pcap or pcapng capture")
	}
	var (
		src      packetSource
		linkType func(gopacket.CaptureInfo) layers.LinkType
	)
	if binary.LittleEndian.Uint32(head) == 0x0A0D0D0A {
		ng, err := pcapgo.NewNgReader(br, pcapgo.DefaultNgReaderOptions)
		if err != nil {
			return nil, fmt.Errorf("journal: pcapng: %w", err)
		}
		src = ng
		linkType = func(ci gopacket.CaptureInfo) layers.LinkType {
			if i, err := ng.Interface(ci.InterfaceIndex); err == nil {
				return i.LinkType
			}
			return ng.LinkType()
		}
	} else {
		p, err := pcapgo.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("journal: pcap: %w", err)
		}
		src = p
		linkType = func(gopacket.CaptureInfo) layers.LinkType { return p.LinkType() }
	}

	conns := map[connKey]*tcpConn{}
	for order := 0; ; order++ {
		data, ci, err := src.ReadPacketData()
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				break // a capture cut short: use what was read
			}
			return nil, fmt.Errorf("journal: reading capture: %w", err)
		}
		pkt := gopacket.NewPacket(data, linkType(ci), gopacket.DecodeOptions{Lazy: true, NoCopy: true})
		var srcIP, dstIP netip.Addr
		if ip4, ok := pkt.Layer(layers.LayerTypeIPv4).(*layers.IPv4); ok {
			srcIP, _ = netip.AddrFromSlice(ip4.SrcIP.To4())
			dstIP, _ = netip.AddrFromSlice(ip4.DstIP.To4())
		} else if ip6, ok := pkt.Layer(layers.LayerTypeIPv6).(*layers.IPv6); ok {
			srcIP, _ = netip.AddrFromSlice(ip6.SrcIP)
			dstIP, _ = netip.AddrFromSlice(ip6.DstIP)
		} else {
			continue
		}
		tcp, ok := pkt.Layer(layers.LayerTypeTCP).(*layers.TCP)
		if !ok {
			continue
		}
		from := netip.AddrPortFrom(srcIP, uint16(tcp.SrcPort))
		to := netip.AddrPortFrom(dstIP, uint16(tcp.DstPort))
		key, forward := newConnKey(from, to)
		c := conns[key]
		if c == nil {
			c = &tcpConn{a: key.a, b: key.b}
			conns[key] = c
		}
		dir := &c.ab
		if !forward {
			dir = &c.ba
		}
		if tcp.SYN && tcp.RST {
			continue
		}
		dir.segment(tcp.Seq, tcp.SYN, tcp.Payload, ci.Timestamp, order)
	}

	var sessions []sessionAt
	for _, c := range conns {
		if s, ok := c.session(); ok {
			sessions = append(sessions, s)
		}
	}
	if len(sessions) == 0 {
		return nil, ErrNoJDWP
	}
	sort.Slice(sessions, func(i, j int) bool { return sessions[i].order < sessions[j].order })
	out := make([]Session, len(sessions))
	for i, s := range sessions {
		out[i] = s.Session
	}
	return out, nil
}

// connKey names a TCP connection independently of direction.
type connKey struct{ a, b netip.AddrPort }

func newConnKey(from, to netip.AddrPort) (connKey, bool) {
	if from.Compare(to) < 0 {
		return connKey{from, to}, true
	}
	return connKey{to, from}, false
}

type tcpConn struct {
	a, b   netip.AddrPort
	ab, ba tcpStream
}

type sessionAt struct {
	Session
	order int
}

// session builds the records of a JDWP connection: the direction whose
// handshake came first is the debugger's.
func (c *tcpConn) session() (sessionAt, bool) {
	ab, ba := &c.ab.jdwp, &c.ba.jdwp
	if !ab.handshake || !ba.handshake {
		return sessionAt{}, false
	}
	up, down := ab, ba
	dbg, vm := c.a, c.b
	if ba.handOrder < ab.handOrder {
		up, down, dbg, vm = ba, ab, c.b, c.a
	}
	type ordered struct {
		timedPacket
		dir scache.Direction
	}
	all := make([]ordered, 0, len(up.packets)+len(down.packets))
	for _, p := range up.packets {
		all = append(all, ordered{p, scache.Upstream})
	}
	for _, p := range down.packets {
		all = append(all, ordered{p, scache.Downstream})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].order < all[j].order })
	s := sessionAt{Session: Session{Debugger: dbg, VM: vm}, order: up.handOrder}
	for _, p := range all {
		s.Records = append(s.Records, Record{Time: p.at, Direction: p.dir, Packet: p.packet})
	}
	return s, true
}
