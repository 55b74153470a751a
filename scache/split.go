package scache

import (
	"sync/atomic"
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache/internal/option"
	"github.com/jdwpscache/scache/scache/internal/tunnel"
)

// Split mode: a Speculator next to the VM (the near half) and one next to
// the debugger (the far half), with a slow link between them. The near half
// speculates at the VM's latency and streams to the far half, through the
// tunnel (package internal/tunnel), the VM's packets, the synthetic commands it sends and
// their replies. The far half runs the same state machine as a follower
// (follower.go): it adopts each announced command as its own, so what it
// caches, belays and invalidates follows the same rules, applied to the same
// packets in the same order. A stop's answers cross the link right behind
// its event; the debugger's commands about it find them at the far half.
//
// Near and Far are the halves without I/O, as the Speculator is: each takes
// one packet or frame and returns what to send where (ExampleFar). Package
// transport's Relay made with WithSplit runs one over two connections; its
// Proxy made with WithSplit serves a half's sessions. A transport of one's
// own times the tunnel's hello at the far half and gives it to
// Far.OnTunnelOpen first.
//
// The tunnel's wire format (its handshake and frames) is package
// internal/tunnel's.

// ErrTunnel marks errors about the tunnel between the halves of a split
// proxy: a peer that is not the other half, another version, a malformed
// frame.
var ErrTunnel = tunnel.ErrTunnel

// TunnelVersion is the version of the tunnel's handshake and framing.
const TunnelVersion = tunnel.Version

// TunnelSilenceTimeout is how long a half of a split proxy waits without a
// frame from the other half before it ends the session; each half sends a
// heartbeat every TunnelHeartbeatInterval.
const (
	TunnelSilenceTimeout    = tunnel.SilenceTimeout
	TunnelHeartbeatInterval = tunnel.HeartbeatInterval
)

// A Near is the half of a split proxy next to the VM. Its calls must be
// made one at a time, in the order the packets and frames arrive: the order
// of its outputs is what keeps the halves consistent. Each call's Traffic
// holds, upstream, JDWP packets for the VM and, downstream, tunnel frames
// for the far half; both are the caller's to keep.
type Near struct {
	spec    *Speculator
	journal func(JournalEntry) // the VM's side of the conversation
	read    uint64             // 'P' frames read from the far half
	push    pushStats
}

// pushStats counts what a near half pushed and how much of it was used.
type pushStats struct {
	tunnelBytes, pushedBytes, pushedUsed, pushedUsedBytes atomic.Int64
}

// NewNear returns a near half with its own Speculator, made with opts
// (Speculator options and WithJournal).
func NewNear(opts ...Option) (*Near, error) {
	st, err := option.Collect(option.Half, opts)
	if err != nil {
		return nil, err
	}
	n := newNear(configOf(st))
	n.journal = journalOf(st)
	return n, nil
}

func newNear(cfg config) *Near {
	cfg.answerAhead = false // the far half answers ahead if at all, next to the debugger
	cfg.near = true
	n := &Near{spec: newSpeculator(cfg)}
	// Its own round trip to the VM is about zero: its pushes save the
	// debugger the far link's, which the far half tells it ('R').
	n.spec.cost.near = true
	return n
}

// Speculator returns the near half's Speculator.
func (n *Near) Speculator() *Speculator { return n.spec }

// FromFar takes one tunnel frame from the far half. An error is about the
// tunnel (a malformed frame, one the far half never sends): the session
// cannot go on.
func (n *Near) FromFar(b []byte) (Traffic, error) {
	f, err := tunnel.ParseFrame(b)
	if err != nil {
		return Traffic{}, err
	}
	switch f.Type {
	case tunnel.Packet:
		n.read++
		resp := n.spec.OnUpstream(f.Payload)
		n.record(&resp, Upstream)
		return n.out(&resp), nil
	case tunnel.Used:
		if size, first := n.spec.usedRemotely(Key(f.Payload)); first {
			n.push.pushedUsed.Add(1)
			n.push.pushedUsedBytes.Add(int64(size))
		}
		return Traffic{}, nil
	case tunnel.RoundTrip:
		n.spec.SetFarLink(tunnel.RoundTripOf(f.Payload))
		return Traffic{}, nil
	}
	return Traffic{}, tunnel.Errorf("the near half got a %q frame from the far half", f.Type)
}

// FromVM takes one JDWP packet from the VM.
func (n *Near) FromVM(packet []byte) Traffic {
	resp := n.spec.OnDownstream(packet)
	n.record(&resp, Downstream)
	return n.out(&resp)
}

// OnHandshake tells the near half that the session's JDWP handshake with
// the VM is through: its Speculator's OnHandshake, as packets for the VM and
// announcements for the far half. Call it before any packet or frame.
func (n *Near) OnHandshake() Traffic {
	resp := n.spec.OnHandshake()
	n.record(&resp, Upstream)
	return n.out(&resp)
}

func (n *Near) record(resp *Response, dir Direction) { record(n.journal, resp, dir) }

// record gives journal, if set, the entries of a Response.
func record(journal func(JournalEntry), resp *Response, dir Direction) {
	if journal != nil {
		resp.JournalEntries(dir, time.Now(), journal)
	}
}

// out turns a Response into packets for the VM and frames for the far
// half, in the order the far half must apply them: the reply absorbed, what
// goes to the debugger, then the commands speculated after them.
func (n *Near) out(resp *Response) Traffic {
	var t Traffic
	push := func(f []byte, pushed bool) {
		t.Downstream = append(t.Downstream, f)
		n.push.tunnelBytes.Add(int64(len(f)))
		if pushed {
			n.push.pushedBytes.Add(int64(len(f)))
		}
	}
	if resp.Outcome == Absorbed {
		push(tunnel.NewFrame(tunnel.Synthetic, resp.Journal.Downstream[0]), true)
	}
	for _, p := range resp.Edict.Downstream {
		push(tunnel.NewFrame(tunnel.Packet, p), false)
	}
	for _, p := range resp.speculated {
		push(tunnel.AnnounceFrame(n.read, p), true)
	}
	for _, p := range resp.Edict.Upstream {
		t.Upstream = append(t.Upstream, clone(p))
	}
	return t
}

// Stats returns the near half's counters: its Speculator's, with what it
// pushed to the far half and how much of that answered the debugger.
func (n *Near) Stats() Stats {
	st := n.spec.Stats()
	st.TunnelBytes = n.push.tunnelBytes.Load()
	st.PushedBytes = n.push.pushedBytes.Load()
	st.PushedUsed = n.push.pushedUsed.Load()
	st.PushedUsedBytes = n.push.pushedUsedBytes.Load()
	return st
}

// A Far is the half of a split proxy next to the debugger: a follower
// Speculator that answers the debugger from what the near half pushes. Its
// calls must be made one at a time, in the order the packets and frames
// arrive. Each call's Traffic holds, upstream, tunnel frames for the near
// half and, downstream, JDWP packets for the debugger; both are the
// caller's to keep.
type Far struct {
	spec    *Speculator
	journal func(JournalEntry) // the debugger's side of the conversation
	sent    uint64             // 'P' frames sent to the near half
	// changed is the number of the last 'P' frame sent that may change
	// what a cached reply says (see follower.go).
	changed     uint64
	roundTrip   time.Duration // the round trip to the VM last told the near half ('R')
	rate        float64       // the link's rate last told the near half ('R')
	tunnelBytes atomic.Int64
	dropped     atomic.Int64 // synthetic replies to commands not adopted
}

// NewFar returns a far half whose Speculator follows the near half's, made
// with opts (Speculator options: give both halves the same; and
// WithJournal).
func NewFar(opts ...Option) (*Far, error) {
	st, err := option.Collect(option.Half, opts)
	if err != nil {
		return nil, err
	}
	f := newFar(configOf(st))
	f.journal = journalOf(st)
	return f, nil
}

func newFar(cfg config) *Far {
	cfg.follower = true
	return &Far{spec: newSpeculator(cfg)}
}

// OnTunnelOpen takes how long the near half took to answer the far
// half's hello: the link's round trip and the near half's handshake with
// the VM, a little more than the round trip to the VM that the near
// half's speculation saves the debugger. The far half measures that one
// from the debugger's commands sent alone, which a client that pipelines
// its reads (an IDE's async mode) may leave unknown for many stops, and a
// near half that knows no round trip weighs nothing: on a slow VM its
// first stop's speculation would go out whole (up to WithMaxInFlight's
// 64), ahead of the debugger's commands. So the far half tells it this
// one at once ('R'), and its own measurement once that differs by an
// eighth. Call it before anything else; a second call, or one with 0,
// returns nothing.
func (f *Far) OnTunnelOpen(helloRoundTrip time.Duration) Traffic {
	if helloRoundTrip <= 0 || f.roundTrip != 0 {
		return Traffic{}
	}
	frame := f.tellRoundTrip(helloRoundTrip, 0)
	f.tunnelBytes.Add(int64(len(frame)))
	return Traffic{Upstream: [][]byte{frame}}
}

// tellRoundTrip notes the round trip and the rate told the near half, and
// returns the 'R' frame that tells them (at least a microsecond, the
// frame's unit: 0 there means unknown).
func (f *Far) tellRoundTrip(roundTrip time.Duration, rate float64) []byte {
	f.roundTrip, f.rate = max(roundTrip, time.Microsecond), rate
	return tunnel.RoundTripFrame(f.roundTrip, f.rate)
}

// Speculator returns the far half's Speculator.
func (f *Far) Speculator() *Speculator { return f.spec }

// FromDebugger takes one JDWP packet from the debugger.
func (f *Far) FromDebugger(packet []byte) Traffic {
	resp := f.spec.OnUpstream(packet)
	f.record(&resp, Upstream)
	return f.out(&resp)
}

func (f *Far) record(resp *Response, dir Direction) { record(f.journal, resp, dir) }

// FromNear takes one tunnel frame from the near half. An error is about
// the tunnel: the session cannot go on.
func (f *Far) FromNear(b []byte) (Traffic, error) {
	fr, err := tunnel.ParseFrame(b)
	if err != nil {
		return Traffic{}, err
	}
	switch fr.Type {
	case tunnel.Packet:
		resp := f.spec.OnDownstream(fr.Payload)
		f.record(&resp, Downstream)
		return f.out(&resp), nil
	case tunnel.Announce:
		resp := f.spec.adopt(fr.Payload, f.changed > fr.Seq)
		return f.out(&resp), nil
	case tunnel.Synthetic:
		if !f.spec.absorbs(jdwp.PacketID(fr.Payload)) {
			f.dropped.Add(1)
			return Traffic{}, nil
		}
		resp := f.spec.OnDownstream(fr.Payload)
		f.record(&resp, Downstream)
		return f.out(&resp), nil
	}
	return Traffic{}, tunnel.Errorf("the far half got a %q frame from the near half", fr.Type)
}

// out turns a Response into frames for the near half (the debugger's
// commands forwarded, then the keys of the replies that answered the
// debugger here) and packets for the debugger.
func (f *Far) out(resp *Response) Traffic {
	var t Traffic
	for _, p := range resp.Edict.Upstream {
		f.sent++
		if !readsOnly(p) {
			f.changed = f.sent
		}
		t.Upstream = append(t.Upstream, tunnel.NewFrame(tunnel.Packet, p))
	}
	for _, k := range resp.used {
		t.Upstream = append(t.Upstream, tunnel.NewFrame(tunnel.Used, []byte(k)))
	}
	if rt, rate, ok := f.spec.measuredLink(); ok && (f.roundTrip == 0 || movedAnEighth(float64(rt), float64(f.roundTrip)) || movedAnEighth(rate, f.rate)) {
		// Told once known, and again when either moved by an eighth.
		t.Upstream = append(t.Upstream, f.tellRoundTrip(rt, rate))
	}
	for _, b := range t.Upstream {
		f.tunnelBytes.Add(int64(len(b)))
	}
	for _, p := range resp.Edict.Downstream {
		t.Downstream = append(t.Downstream, clone(p))
	}
	return t
}

// Stats returns the far half's counters: its Speculator's (hits and
// belayed commands are the debugger's commands it answered), with the bytes
// it sent on the tunnel.
func (f *Far) Stats() Stats {
	st := f.spec.Stats()
	st.TunnelBytes = f.tunnelBytes.Load()
	st.PushedDropped = f.dropped.Load()
	return st
}

func clone(p []byte) []byte { return append([]byte(nil), p...) }

// movedAnEighth reports whether x is more than an eighth away from was.
func movedAnEighth(x, was float64) bool { return x > was+was/8 || x < was-was/8 }
