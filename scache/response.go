package scache

import (
	"fmt"
	"time"

	"github.com/jdwpscache/scache/jdwp"
)

// Traffic is a list of packets for each direction, each in the order it must be sent.
type Traffic struct {
	Upstream   [][]byte // towards the VM
	Downstream [][]byte // towards the debugger
}

// An Outcome says what became of the packet presented to the Speculator.
type Outcome uint8

const (
	// Forwarded: the packet is in the edict, unchanged, for its direction.
	Forwarded Outcome = iota
	// Answered: a debugger command answered from the cache; the answer is in
	// Edict.Downstream and the command goes no further.
	Answered
	// Held: a debugger command held (belayed) until a reply in flight
	// answers it, in a later Response.
	Held
	// Absorbed: the VM's reply to a synthetic command, or to a command
	// answered ahead, kept from the debugger.
	Absorbed
	// AnsweredAhead: a debugger command whose reply is known (a step
	// request's EventRequest.Set, answered with the id the VM will give it;
	// EventRequest.Clear of a step or breakpoint request): forwarded
	// unchanged in Edict.Upstream and answered at once in Edict.Downstream;
	// the VM's reply will be Absorbed.
	AnsweredAhead
)

// String returns the outcome's name.
func (o Outcome) String() string {
	switch o {
	case Forwarded:
		return "forwarded"
	case Answered:
		return "answered"
	case Held:
		return "held"
	case Absorbed:
		return "absorbed"
	case AnsweredAhead:
		return "answered ahead"
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// Response is what a Speculator decides about one packet.
//
// Outcome says what became of the packet presented. Edict is what the
// transport must send now, each direction in order: besides the packet
// itself when forwarded, it may hold synthetic commands, held commands
// released, and answers to held commands. Journal is the coherent view for a
// tracer: on a cache hit it holds the debugger's command upstream and the
// re-tagged reply downstream, although only the reply is sent; synthetic
// commands and their absorbed replies appear in it too (see JournalEntries).
//
// The slices of a Response, and the packets they hold, are valid until the
// next call in the same direction (OnUpstream or OnDownstream): the Speculator
// reuses them, so that forwarding a packet allocates nothing. A caller that
// keeps a packet copies it.
type Response struct {
	Outcome Outcome
	Edict   Traffic
	Journal Traffic

	// speculated holds the synthetic commands of Edict.Upstream, and (in
	// a far half) used the keys whose cached or belayed replies answered
	// the debugger: what the halves of a split proxy tell each other
	// (split.go).
	speculated [][]byte
	used       []Key
}

// JournalEntries calls fn with each packet of the journal of a Response to a
// packet presented in direction dir, marked as a tracer shows it: the
// debugger's command and the answer of a cache hit marked Hit, a held
// command marked Held, synthetic commands and their replies Synthetic. The
// entry's packet is valid only during the call.
func (r *Response) JournalEntries(dir Direction, at time.Time, fn func(JournalEntry)) {
	for i, p := range r.Journal.Upstream {
		e := JournalEntry{Time: at, Direction: Upstream, Packet: p, Synthetic: IsSyntheticID(jdwp.PacketID(p))}
		if dir == Upstream && i == 0 {
			e.Hit, e.Held = r.Outcome == Answered || r.Outcome == AnsweredAhead, r.Outcome == Held
		}
		fn(e)
	}
	for i, p := range r.Journal.Downstream {
		// The reply absorbed (first) is marked Synthetic even with the
		// debugger's id (to a command answered ahead): the debugger never sees it.
		absorbed := i == 0 && dir == Downstream && r.Outcome == Absorbed
		fn(JournalEntry{Time: at, Direction: Downstream, Packet: p,
			Synthetic: IsSyntheticID(jdwp.PacketID(p)) || absorbed, Hit: dir == Upstream})
	}
}

// Stats counts what a Speculator did.
type Stats struct {
	PacketsUp       int64 // packets presented to OnUpstream
	PacketsDown     int64 // packets presented to OnDownstream
	Synthetic       int64 // synthetic commands sent to the VM
	SyntheticUsed   int64 // synthetic commands whose reply answered a debugger command
	Hits            int64 // debugger commands answered from the cache
	Belayed         int64 // debugger commands held and answered from a reply in flight
	Misses          int64 // keyable debugger commands that went to the VM
	Replaced        int64 // of those, the ones whose speculated twin was queued, not yet sent: dropped for them
	Wasted          int64 // synthetic replies evicted, invalidated or dropped without being used
	Held            int64 // debugger commands held right now
	InFlight        int64 // synthetic commands awaiting a reply right now
	CacheEntries    int64 // replies cached now (after Close: at Close)
	CacheBytes      int64 // bytes cached now (after Close: at Close)
	CachePeakBytes  int64 // the most bytes cached at once
	BytesSpeculated int64 // bytes of synthetic replies absorbed
	// AnsweredAhead counts debugger commands answered ahead of the VM's
	// reply (step requests' Sets, Clears); AheadContradicted those the VM
	// then answered with an error, or with another request id (renamed for
	// the debugger from then on).
	AnsweredAhead, AheadContradicted int64
	// With WithAudit: Audited counts the answers checked against the VM's
	// own reply to a copy of the command, AuditMismatches those that
	// differed.
	Audited, AuditMismatches int64
	// FramesPredicted counts stops whose top frame id was predicted at the
	// event; FramesMispredicted those the Frames reply proved wrong.
	FramesPredicted, FramesMispredicted int64
	// StopsTakenUp counts parked stops taken up again: the debugger read
	// an earlier stop than the last event's (takeup.go).
	StopsTakenUp int64
	// Split mode only (see Near and Far). TunnelBytes: bytes this half sent
	// on the tunnel. The near half's PushedBytes: bytes of synthetic
	// commands and replies it pushed to the far half; PushedUsed and
	// PushedUsedBytes: those replies that answered the debugger there. The
	// far half's PushedDropped: replies to commands it did not adopt.
	// TunnelWireBytes (a transport's): what the frames of TunnelBytes took
	// on the wire, compressed where the halves agreed to.
	TunnelBytes, PushedBytes, PushedUsed, PushedUsedBytes, PushedDropped int64
	TunnelWireBytes                                                      int64
	// TunnelResumes (a transport's): how many times the session's link
	// came back after it was lost; TunnelSentAgainBytes: what this half
	// sent again then, which the other half had not received.
	TunnelResumes        int
	TunnelSentAgainBytes int64
	// With a clock (WithClock): the round trip of the link to the VM,
	// measured on commands sent alone (the VM's service taken out), and the
	// VM's service time per command, as moving averages (cost.go); zero
	// before a sample.
	RoundTrip, ServiceTime time.Duration
	// Bandwidth is, with a clock, the link's estimated rate from the VM in
	// bytes per second, from its big replies (cost_bytes.go); zero before
	// two of them. Speculation weighs a reply's bytes by it.
	Bandwidth float64
	// WaitBehindSpeculation is, with a clock, the longest a debugger's
	// command waited at the VM behind speculated commands sent before it
	// (the VM serves one at a time, in order), estimated from the arrival
	// of the last of their replies (cost_behind.go). An IDE gives up on a
	// command after 3 s; speculation must never come near.
	WaitBehindSpeculation time.Duration
	Enabled               bool
}

// Direction says which way a packet travels.
type Direction uint8

const (
	// Upstream is towards the debugged VM.
	Upstream Direction = iota
	// Downstream is towards the debugger.
	Downstream
)

// String returns "upstream" or "downstream".
func (d Direction) String() string {
	if d == Upstream {
		return "upstream"
	}
	return "downstream"
}

// A JournalEntry is one packet of the journal: the coherent view of the
// conversation (see Response). Packet is valid only during the callback.
type JournalEntry struct {
	Time      time.Time
	Direction Direction
	Packet    []byte
	Synthetic bool // a synthetic command, the reply to one, or a reply absorbed (kept from the debugger)
	// Hit marks a debugger command answered from the cache, and that answer.
	Hit bool
	// Held marks a debugger command held (belayed) until a reply in flight answers it.
	Held bool
}
