package journal_test

import (
	"bytes"
	"net"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
	"github.com/jdwpscache/scache/internal/journal"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// captureBuilder writes TCP segments of loopback connections as a capture.
type captureBuilder struct {
	t      require.TestingT
	frames [][]byte
	times  []time.Time
	clock  time.Time
}

type endpoint struct {
	port uint16
	seq  uint32
}

func (c *captureBuilder) segment(from, to *endpoint, flags string, payload []byte, seq uint32) {
	eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{0, 0, 0, 0, 0, 0}, DstMAC: net.HardwareAddr{0, 0, 0, 0, 0, 0}, EthernetType: layers.EthernetTypeIPv4}
	ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: net.IP{127, 0, 0, 1}, DstIP: net.IP{127, 0, 0, 1}}
	tcp := &layers.TCP{SrcPort: layers.TCPPort(from.port), DstPort: layers.TCPPort(to.port), Seq: seq, Window: 65535,
		SYN: flags == "S", ACK: flags != "S", PSH: len(payload) > 0}
	require.NoError(c.t, tcp.SetNetworkLayerForChecksum(ip))
	buf := gopacket.NewSerializeBuffer()
	require.NoError(c.t, gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true},
		eth, ip, tcp, gopacket.Payload(payload)))
	c.clock = c.clock.Add(time.Millisecond)
	c.frames = append(c.frames, append([]byte(nil), buf.Bytes()...))
	c.times = append(c.times, c.clock)
}

// send writes bytes from one endpoint to the other as the given segment sizes.
func (c *captureBuilder) send(from, to *endpoint, data []byte, sizes []int, dup, swap bool) {
	type seg struct {
		seq uint32
		p   []byte
	}
	var segs []seg
	for len(data) > 0 {
		n := len(data)
		if len(sizes) > 0 {
			n = min(max(sizes[0], 1), len(data))
			sizes = sizes[1:]
		}
		segs = append(segs, seg{from.seq, data[:n]})
		from.seq += uint32(n)
		data = data[n:]
	}
	if swap && len(segs) > 1 {
		segs[0], segs[1] = segs[1], segs[0]
	}
	for i, s := range segs {
		c.segment(from, to, "A", s.p, s.seq)
		if dup && i == 0 {
			c.segment(from, to, "A", s.p, s.seq) // a retransmission
		}
	}
}

func (c *captureBuilder) pcap() []byte {
	var buf bytes.Buffer
	w := pcapgo.NewWriter(&buf)
	require.NoError(c.t, w.WriteFileHeader(65536, layers.LinkTypeEthernet))
	for i, f := range c.frames {
		require.NoError(c.t, w.WritePacket(gopacket.CaptureInfo{Timestamp: c.times[i], CaptureLength: len(f), Length: len(f)}, f))
	}
	return buf.Bytes()
}

func (c *captureBuilder) pcapng() []byte {
	var buf bytes.Buffer
	w, err := pcapgo.NewNgWriter(&buf, layers.LinkTypeEthernet)
	require.NoError(c.t, err)
	for i, f := range c.frames {
		require.NoError(c.t, w.WritePacket(gopacket.CaptureInfo{Timestamp: c.times[i], CaptureLength: len(f), Length: len(f)}, f))
	}
	require.NoError(c.t, w.Flush())
	return buf.Bytes()
}

type exchange struct {
	dir    scache.Direction
	packet []byte
}

func drawConversation(t *rapid.T) []exchange {
	var ex []exchange
	for i := rapid.IntRange(1, 12).Draw(t, "packets"); i > 0; i-- {
		dir := scache.Direction(rapid.IntRange(0, 1).Draw(t, "dir"))
		data := rapid.SliceOfN(rapid.Byte(), 0, 60).Draw(t, "data")
		id := uint32(rapid.IntRange(1, 100).Draw(t, "id"))
		var p []byte
		if dir == scache.Upstream {
			p = jdwp.AppendCommand(nil, id, jdwp.CmdReferenceTypeSourceFile, data)
		} else {
			p = jdwp.AppendReply(nil, id, jdwp.ErrNone, data)
		}
		ex = append(ex, exchange{dir, p})
	}
	return ex
}

// writeSession captures one JDWP connection: handshake, then the exchanges,
// each cut into random segments, some retransmitted or swapped.
func writeSession(t *rapid.T, c *captureBuilder, dbgPort, vmPort uint16, ex []exchange) {
	dbg := &endpoint{port: dbgPort, seq: rapid.Uint32().Draw(t, "dbgISN")}
	vm := &endpoint{port: vmPort, seq: rapid.Uint32().Draw(t, "vmISN")}
	c.segment(dbg, vm, "S", nil, dbg.seq)
	dbg.seq++
	c.segment(vm, dbg, "S", nil, vm.seq)
	vm.seq++
	sizes := func() []int { return rapid.SliceOfN(rapid.IntRange(1, 20), 0, 6).Draw(t, "sizes") }
	c.send(dbg, vm, jdwp.HandshakeBytes, sizes(), false, false)
	c.send(vm, dbg, jdwp.HandshakeBytes, sizes(), false, false)
	for _, e := range ex {
		from, to := dbg, vm
		if e.dir == scache.Downstream {
			from, to = vm, dbg
		}
		c.send(from, to, e.packet, sizes(), rapid.Bool().Draw(t, "dup"), rapid.Bool().Draw(t, "swap"))
	}
}

func TestCaptureImportReassemblesEverySegmentation(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ex := drawConversation(t)
		c := &captureBuilder{t: t, clock: time.Unix(1000, 0)}
		writeSession(t, c, 40000, 5005, ex)
		for _, format := range []string{"pcap", "pcapng"} {
			data := c.pcap()
			if format == "pcapng" {
				data = c.pcapng()
			}
			sessions, err := journal.ReadCapture(bytes.NewReader(data))
			require.NoError(t, err, format)
			require.Len(t, sessions, 1)
			s := sessions[0]
			require.Equal(t, uint16(40000), s.Debugger.Port())
			require.Equal(t, uint16(5005), s.VM.Port())
			require.Len(t, s.Records, len(ex))
			for i, e := range ex {
				require.Equal(t, e.dir, s.Records[i].Direction, "%s record %d", format, i)
				require.Equal(t, e.packet, s.Records[i].Packet, "%s record %d", format, i)
			}
		}
	})
}

func TestCaptureWithSeveralSessions(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := &captureBuilder{t: t, clock: time.Unix(1000, 0)}
		first, second := drawConversation(t), drawConversation(t)
		writeSession(t, c, 40001, 5005, first)
		writeSession(t, c, 40002, 5006, second)
		sessions, err := journal.ReadCapture(bytes.NewReader(c.pcap()))
		require.NoError(t, err)
		require.Len(t, sessions, 2)
		require.Len(t, sessions[0].Records, len(first))
		require.Len(t, sessions[1].Records, len(second))
		require.Equal(t, uint16(5006), sessions[1].VM.Port())
	})
}

func TestCaptureWithoutJDWP(t *testing.T) {
	c := &captureBuilder{t: t, clock: time.Unix(1000, 0)}
	a, b := &endpoint{port: 50000, seq: 1}, &endpoint{port: 80, seq: 7}
	c.send(a, b, []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), nil, false, false)
	c.send(b, a, []byte("HTTP/1.1 200 OK\r\n\r\n"), nil, false, false)
	_, err := journal.ReadCapture(bytes.NewReader(c.pcap()))
	require.ErrorIs(t, err, journal.ErrNoJDWP)
	_, err = journal.ReadCapture(bytes.NewReader([]byte("not a capture at all")))
	require.Error(t, err)
}
