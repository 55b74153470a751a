package latency

import (
	"encoding/binary"
	"time"
)

// WithService makes the link's far end a slow VM: each JDWP command goes on
// to the target one service time after it arrived or after the command
// before it went on, whichever is later, as an Android device's runtime
// serves its commands one at a time. HotSpot behind it then answers at
// once, so its replies come one service time apart when commands queue.
// The JDWP handshake and replies (to the VM's commands) go on without a
// service time; bytes that do not parse as JDWP go on as they come.
func WithService(service time.Duration) Option {
	return func(l *Link) { l.service = service }
}

// jdwpHandshake is the length of the JDWP handshake ("JDWP-Handshake").
const jdwpHandshake = 14

// maxServedPacket bounds a packet's length field: beyond it the stream is
// not JDWP, and is passed on unserved.
const maxServedPacket = 64 << 20

// servingQueue splits the stream towards the VM into JDWP packets and
// dates each: a command its service slot.
type servingQueue struct {
	service   time.Duration
	handshake int       // handshake bytes seen
	pending   []byte    // the start of a packet not whole yet
	lastDue   time.Time // when the last unit goes on
	raw       bool      // the stream stopped parsing: passed on as it comes
}

// split returns the whole units of data (the handshake, packets, or raw
// bytes) that arrived at arrival, each with when it goes on.
func (q *servingQueue) split(arrival time.Time, data []byte) []chunk {
	var out []chunk
	emit := func(b []byte, command bool) {
		due := arrival
		if q.lastDue.After(due) {
			due = q.lastDue
		}
		if command {
			due = due.Add(q.service)
		}
		q.lastDue = due
		out = append(out, chunk{due: due, data: append([]byte(nil), b...)})
	}
	if q.handshake < jdwpHandshake {
		n := min(jdwpHandshake-q.handshake, len(data))
		emit(data[:n], false)
		q.handshake += n
		data = data[n:]
	}
	if q.raw {
		if len(data) > 0 {
			emit(data, false)
		}
		return out
	}
	q.pending = append(q.pending, data...)
	for len(q.pending) >= 11 {
		n := binary.BigEndian.Uint32(q.pending)
		if n < 11 || n > maxServedPacket {
			q.raw = true
			emit(q.pending, false)
			q.pending = nil
			return out
		}
		if len(q.pending) < int(n) {
			break
		}
		const flagReply = 0x80
		emit(q.pending[:n], q.pending[8]&flagReply == 0)
		q.pending = q.pending[n:]
	}
	q.pending = append([]byte(nil), q.pending...)
	return out
}
