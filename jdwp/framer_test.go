package jdwp_test

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

func framesReplyPacket() []byte {
	m := &jdwp.ThreadFramesReply{}
	for i := 0; i < 10; i++ {
		m.Frames = append(m.Frames, jdwp.Frame{Frame: jdwp.FrameID(i), Location: jdwp.Location{TypeTag: 1, Class: 0x100, Method: 0x200, Index: uint64(i)}})
	}
	return jdwp.AppendReplyPacket(nil, 9, m, jdwp.DefaultIDSizes)
}

func TestFramerReadsPacketsInOrder(t *testing.T) {
	a := jdwp.AppendCommand(nil, 1, jdwp.CmdVirtualMachineVersion, nil)
	b := framesReplyPacket()
	f := jdwp.NewFramer(nil, bytes.NewReader(append(append([]byte{}, a...), b...)))
	p, err := f.ReadPacket()
	require.NoError(t, err)
	require.Equal(t, a, p)
	p, err = f.ReadPacket()
	require.NoError(t, err)
	require.Equal(t, b, p)
	_, err = f.ReadPacket()
	require.Equal(t, io.EOF, err)
}

func TestFramerEOFInsidePacket(t *testing.T) {
	b := framesReplyPacket()
	for _, cut := range []int{1, 5, 10, 11, 12, len(b) - 1} {
		f := jdwp.NewFramer(nil, bytes.NewReader(b[:cut]))
		_, err := f.ReadPacket()
		require.ErrorIs(t, err, io.ErrUnexpectedEOF, "cut at %d", cut)
	}
}

func TestFramerRejectsBadLengths(t *testing.T) {
	f := jdwp.NewFramer(nil, bytes.NewReader([]byte{0, 0, 0, 3, 0, 0, 0, 1, 0, 1, 1}))
	_, err := f.ReadPacket()
	require.ErrorIs(t, err, jdwp.ErrLengthTooSmall)

	// A 2 GiB length field fails before anything is allocated.
	f = jdwp.NewFramer(nil, bytes.NewReader([]byte{0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 1, 0, 1, 1}))
	_, err = f.ReadPacket()
	require.ErrorIs(t, err, jdwp.ErrPacketTooLarge)

	f = jdwp.NewFramer(nil, bytes.NewReader(framesReplyPacket()))
	f.SetMaxPacketSize(100)
	_, err = f.ReadPacket()
	require.ErrorIs(t, err, jdwp.ErrPacketTooLarge)
}

func TestFramerWritePacket(t *testing.T) {
	var buf bytes.Buffer
	f := jdwp.NewFramer(&buf, nil)
	p := framesReplyPacket()
	require.NoError(t, f.WritePacket(p))
	require.Equal(t, p, buf.Bytes())
	require.ErrorIs(t, f.WritePacket(p[:20]), jdwp.ErrLengthMismatch)
}

// repeatReader yields the same bytes forever.
type repeatReader struct {
	data []byte
	off  int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.data[r.off:])
		n += c
		r.off = (r.off + c) % len(r.data)
	}
	return n, nil
}

func TestFramerReadDoesNotAllocate(t *testing.T) {
	f := jdwp.NewFramer(nil, &repeatReader{data: framesReplyPacket()})
	_, err := f.ReadPacket()
	require.NoError(t, err)
	var h jdwp.Header
	allocs := testing.AllocsPerRun(1000, func() {
		p, err := f.ReadPacket()
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Parse(p); err != nil {
			t.Fatal(err)
		}
	})
	require.Zero(t, allocs)
}

func BenchmarkParseHeader(b *testing.B) {
	p := framesReplyPacket()
	var h jdwp.Header
	b.ReportAllocs()
	b.SetBytes(int64(len(p)))
	for i := 0; i < b.N; i++ {
		if err := h.Parse(p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFramerRead(b *testing.B) {
	p := framesReplyPacket()
	f := jdwp.NewFramer(nil, &repeatReader{data: p})
	b.ReportAllocs()
	b.SetBytes(int64(len(p)))
	for i := 0; i < b.N; i++ {
		if _, err := f.ReadPacket(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeFramesReply(b *testing.B) {
	p := framesReplyPacket()
	var r jdwp.Reader
	var m jdwp.ThreadFramesReply
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r.Reset(jdwp.Data(p), jdwp.DefaultIDSizes)
		if err := m.Decode(&r); err != nil {
			b.Fatal(err)
		}
	}
}

// Errors say what arrived: how much of a truncated packet, what a too-small
// length field says, and whether HTTP came as a request or a response.
func TestErrorTextsSayWhatArrived(t *testing.T) {
	packet := jdwp.AppendCommand(nil, 1, jdwp.CmdVirtualMachineVersion, []byte("0123456789"))
	_, err := jdwp.NewFramer(nil, bytes.NewReader(packet[:15])).ReadPacket()
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	require.Contains(t, err.Error(), "15 of its 21 bytes arrived")
	_, err = jdwp.NewFramer(nil, bytes.NewReader(packet[:4])).ReadPacket()
	require.Contains(t, err.Error(), "4 of its 11 bytes arrived")

	small := append([]byte(nil), packet...)
	small[3] = 5
	_, err = jdwp.NewFramer(nil, bytes.NewReader(small)).ReadPacket()
	require.ErrorIs(t, err, jdwp.ErrLengthTooSmall)
	require.Contains(t, err.Error(), "the length field says 5")
	require.NotContains(t, err.Error(), "11 bytes)")

	err = jdwp.ReadHandshake(strings.NewReader("HTTP/1.1 400 Bad Request\r\n"), "VM")
	require.ErrorIs(t, err, jdwp.ErrBadHandshake)
	require.Contains(t, err.Error(), "an HTTP response")
	require.NotContains(t, err.Error(), "browser")
	err = jdwp.ReadHandshake(strings.NewReader("GET / HTTP/1.1\r\nHost: x\r\n"), "debugger")
	require.Contains(t, err.Error(), "an HTTP request")
}

// ReadEach: nil at a clean end, the read error inside a packet, fn's error
// as it is; every packet in order before that.
func TestReadEachEndsByOneRule(t *testing.T) {
	var stream []byte
	for id := uint32(1); id <= 3; id++ {
		stream = jdwp.AppendCommand(stream, id, jdwp.CmdVirtualMachineVersion, nil)
	}
	var ids []uint32
	collect := func(p []byte) error { ids = append(ids, jdwp.PacketID(p)); return nil }
	require.NoError(t, jdwp.NewFramer(nil, bytes.NewReader(stream)).ReadEach(collect))
	require.Equal(t, []uint32{1, 2, 3}, ids)

	ids = nil
	err := jdwp.NewFramer(nil, bytes.NewReader(stream[:len(stream)-3])).ReadEach(collect)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	require.Equal(t, []uint32{1, 2}, ids)

	stop := errors.New("enough")
	err = jdwp.NewFramer(nil, bytes.NewReader(stream)).ReadEach(func([]byte) error { return stop })
	require.Equal(t, stop, err)

	a, b := net.Pipe()
	a.Close()
	require.NoError(t, jdwp.NewFramer(nil, a).ReadEach(collect), "closed by this side")
	b.Close()
	require.True(t, jdwp.IsCleanClose(io.EOF))
	require.False(t, jdwp.IsCleanClose(io.ErrUnexpectedEOF))
}
