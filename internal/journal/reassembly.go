package journal

import (
	"bytes"
	"encoding/binary"
	"time"

	"github.com/jdwpscache/scache/jdwp"
)

// tcpStream reassembles one direction of a TCP connection: segments may be
// split, coalesced, retransmitted or out of order; bytes come out once, in
// sequence order, each run stamped with the time of the segment that
// completed it.
type tcpStream struct {
	started bool
	next    uint32            // the next sequence number expected
	held    map[uint32][]byte // out-of-order segments by sequence number
	heldAt  map[uint32]time.Time
	jdwp    jdwpSplitter
}

// maxHeldSegments bounds the out-of-order segments kept for one direction.
const maxHeldSegments = 4096

// segment takes one segment; syn says whether it carries SYN (which uses one sequence number).
func (s *tcpStream) segment(seq uint32, syn bool, payload []byte, at time.Time, order int) {
	if syn {
		s.started, s.next = true, seq+1
		seq++
	}
	if len(payload) == 0 {
		return
	}
	if !s.started {
		// Capture began mid-connection: take the first data seen as the start.
		s.started, s.next = true, seq
	}
	if s.held == nil {
		s.held, s.heldAt = map[uint32][]byte{}, map[uint32]time.Time{}
	}
	if d := int32(seq - s.next); d > 0 {
		if len(s.held) < maxHeldSegments {
			if old, ok := s.held[seq]; !ok || len(old) < len(payload) {
				s.held[seq], s.heldAt[seq] = append([]byte(nil), payload...), at
			}
		}
		return
	} else if -int(d) >= len(payload) {
		return // a retransmission of bytes already delivered
	} else {
		payload = payload[-d:]
	}
	s.deliver(payload, at, order)
	for {
		progressed := false
		for seq, p := range s.held {
			d := int32(seq - s.next)
			if d > 0 {
				continue
			}
			delete(s.held, seq)
			t := s.heldAt[seq]
			delete(s.heldAt, seq)
			if -int(d) < len(p) {
				if t.Before(at) {
					t = at
				}
				s.deliver(p[-d:], t, order)
			}
			progressed = true
		}
		if !progressed {
			return
		}
	}
}

func (s *tcpStream) deliver(b []byte, at time.Time, order int) {
	s.next += uint32(len(b))
	s.jdwp.write(b, at, order)
}

// timedPacket is a JDWP packet and when its last byte was captured.
type timedPacket struct {
	at     time.Time
	order  int
	packet []byte
}

// jdwpSplitter turns one direction's bytes into the handshake and packets.
type jdwpSplitter struct {
	buf         []byte
	handshake   bool // the 14 handshake bytes were seen
	handshakeAt time.Time
	handOrder   int
	notJDWP     bool
	packets     []timedPacket
}

func (j *jdwpSplitter) write(b []byte, at time.Time, order int) {
	if j.notJDWP {
		return
	}
	j.buf = append(j.buf, b...)
	if !j.handshake {
		n := min(len(j.buf), len(jdwp.HandshakeBytes))
		if !bytes.Equal(j.buf[:n], jdwp.HandshakeBytes[:n]) {
			j.notJDWP, j.buf = true, nil
			return
		}
		if n < len(jdwp.HandshakeBytes) {
			return
		}
		j.handshake, j.handshakeAt, j.handOrder = true, at, order
		j.buf = j.buf[len(jdwp.HandshakeBytes):]
	}
	for len(j.buf) >= jdwp.HeaderSize {
		n := binary.BigEndian.Uint32(j.buf)
		if n < jdwp.HeaderSize || n > jdwp.DefaultMaxPacketSize {
			j.notJDWP, j.buf = true, nil
			return
		}
		if uint32(len(j.buf)) < n {
			return
		}
		j.packets = append(j.packets, timedPacket{at: at, order: order, packet: append([]byte(nil), j.buf[:n]...)})
		j.buf = j.buf[n:]
	}
}
