package scache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/jdwpscache/scache/jdwp"
)

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

// A Relay wires a Speculator between a debugger-side and a VM-side connection.
//
// Run passes the JDWP handshake through, then reads whole packets on each
// side in its own goroutine, presents each to the Speculator and writes the
// edicts to the right sides in order. A slow debugger or VM slows the relay
// down: nothing is queued, so memory stays bounded. Make one with NewRelay.
type Relay struct {
	spec             *Speculator
	journal          func(JournalEntry)
	maxPacketSize    int
	handshakeTimeout time.Duration
	// splitHalf and split: a half of a split proxy (split_relay.go).
	splitHalf Half
	split     splitHalf

	journalMu sync.Mutex
}

// NewRelay returns a Relay for one session. Its options: those of a
// Speculator (for the Speculator it makes) or WithSpeculator (one made by
// New), WithJournal, WithMaxPacketSize, WithHandshakeTimeout.
func NewRelay(opts ...Option) (*Relay, error) {
	st, err := collect(forRelay, opts)
	if err != nil {
		return nil, err
	}
	spec := st.speculator
	if spec != nil && st.split != Whole {
		return nil, errors.New("scache: WithSpeculator and WithSplit conflict: a half makes its own Speculator")
	}
	if spec == nil {
		if st.split != Whole {
			return st.relay(nil), nil
		}
		spec = newSpeculator(st.config())
	} else if st.speculatorOptions() {
		return nil, errors.New("scache: WithSpeculator and Speculator options conflict: give the options to New")
	}
	return st.relay(spec), nil
}

// relay returns a Relay with the settings' relay options, around spec or,
// for a half of a split proxy (spec nil), a new half.
func (st *settings) relay(spec *Speculator) *Relay {
	r := &Relay{spec: spec, journal: st.journal, maxPacketSize: st.maxPacketSize, handshakeTimeout: st.handshakeTimeout,
		splitHalf: st.split}
	switch st.split {
	case NearHalf:
		n := newNear(st.config())
		n.journal = st.journal
		r.spec, r.split = n.spec, &nearHalf{n}
	case FarHalf:
		f := newFar(st.config())
		f.journal = st.journal
		r.spec, r.split = f.spec, &farHalf{f}
	}
	return r
}

// Speculator returns the Relay's Speculator (a half's, in split mode). Run
// closes it when the session ends.
func (r *Relay) Speculator() *Speculator { return r.spec }

// Stats returns the counters of the Relay's Speculator, and in split mode
// the half's tunnel counters.
func (r *Relay) Stats() Stats {
	if r.split != nil {
		return r.split.stats()
	}
	return r.spec.Stats()
}

// Half returns which half of a split proxy the Relay is, or Whole.
func (r *Relay) Half() Half { return r.splitHalf }

// Run relays between debugger and vm until either side closes, a read or
// write fails, or ctx is cancelled. It closes both connections and returns the
// first real error: a clean close of either side at a packet boundary is not
// an error, but debugger commands still held at the end are
// (ErrHeldCommands). No goroutine outlives Run.
//
// A half of a split proxy (WithSplit) takes the sides as they face it: the
// near half's debugger side is the tunnel from the far half, the far half's
// VM side the tunnel to the near half. Either half ends the session when
// its debugger or VM closes, after the other half has written what it read
// before; a tunnel that ends otherwise is ErrTunnelLost.
func (r *Relay) Run(ctx context.Context, debugger, vm io.ReadWriteCloser) error {
	if r.split != nil {
		return r.runSplit(ctx, debugger, vm)
	}
	var closeOnce sync.Once
	closeBoth := func() {
		closeOnce.Do(func() {
			debugger.Close()
			vm.Close()
		})
	}
	stop := context.AfterFunc(ctx, closeBoth)
	defer stop()

	if err := r.handshake(debugger, vm); err != nil {
		closeBoth()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}

	var (
		upW   = &sideWriter{w: vm}
		downW = &sideWriter{w: debugger}
		errMu sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	fail := func(err error) {
		errMu.Lock()
		if first == nil && !jdwp.IsCleanClose(err) {
			first = err
		}
		errMu.Unlock()
		closeBoth()
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		fail(r.pump(debugger, "debugger", upW, downW, Upstream))
	}()
	go func() {
		defer wg.Done()
		err := r.pump(vm, "VM", upW, downW, Downstream)
		if err == nil && ctx.Err() == nil {
			// The VM closed (after Exit, say). Everything read from it has
			// been written to the debugger: let the debugger read it all
			// before its connection ends. The debugger's pump sees it close.
			jdwp.CloseAfterDrain(debugger)
			return
		}
		fail(err)
	}()
	wg.Wait()

	held := r.spec.Close()
	if ctx.Err() != nil && first == nil {
		first = ctx.Err()
	}
	if first == nil {
		first = held
	}
	return first
}

func (r *Relay) handshake(debugger, vm io.ReadWriter) error {
	defer r.handshakeDeadline(debugger, vm)()
	if err := jdwp.ReadHandshake(debugger, "debugger"); err != nil {
		return err
	}
	// One write: Android's adbconnection drops a client whose 14 bytes are not
	// readable at once.
	if _, err := vm.Write(jdwp.HandshakeBytes); err != nil {
		return fmt.Errorf("scache: sending handshake to the VM: %w", err)
	}
	if err := jdwp.ReadHandshake(vm, "VM"); err != nil {
		return err
	}
	if _, err := debugger.Write(jdwp.HandshakeBytes); err != nil {
		return fmt.Errorf("scache: answering the debugger's handshake: %w", err)
	}
	return nil
}

// handshakeDeadline sets the handshake's deadline on both connections (those
// that have deadlines) and returns the function that clears it.
func (r *Relay) handshakeDeadline(a, b any) (clear func()) {
	timeout := r.handshakeTimeout
	if timeout <= 0 {
		timeout = jdwp.HandshakeTimeout
	}
	deadline := time.Now().Add(timeout)
	setDeadline(a, deadline)
	setDeadline(b, deadline)
	return func() {
		setDeadline(a, time.Time{})
		setDeadline(b, time.Time{})
	}
}

func setDeadline(rw any, t time.Time) {
	if c, ok := rw.(interface{ SetDeadline(time.Time) error }); ok {
		_ = c.SetDeadline(t)
	}
}

// pump reads packets from one side and writes the edicts until the side
// ends (nil when cleanly: jdwp.IsCleanClose) or an error.
func (r *Relay) pump(from io.Reader, name string, upW, downW *sideWriter, dir Direction) error {
	f := jdwp.NewFramer(nil, from)
	if r.maxPacketSize > 0 {
		f.SetMaxPacketSize(r.maxPacketSize)
	}
	var writeErr error
	err := f.ReadEach(func(p []byte) error {
		var resp Response
		if dir == Upstream {
			resp = r.spec.OnUpstream(p)
		} else {
			resp = r.spec.OnDownstream(p)
		}
		if r.journal != nil {
			r.record(resp, dir)
		}
		if err := upW.write(resp.Edict.Upstream); err != nil {
			writeErr = fmt.Errorf("scache: writing to the VM: %w", err)
		} else if err := downW.write(resp.Edict.Downstream); err != nil {
			writeErr = fmt.Errorf("scache: writing to the debugger: %w", err)
		}
		return writeErr
	})
	if err != nil && err != writeErr {
		err = fmt.Errorf("scache: reading from the %s: %w", name, err)
	}
	return err
}

func (r *Relay) record(resp Response, dir Direction) {
	now := time.Now()
	r.journalMu.Lock()
	defer r.journalMu.Unlock()
	resp.JournalEntries(dir, now, r.journal)
}

// sideWriter serializes the writes to one side: both directions' goroutines
// write to it. Several packets go out in one vectored write.
type sideWriter struct {
	mu   sync.Mutex
	w    io.Writer
	bufs net.Buffers
}

func (s *sideWriter) write(packets [][]byte) error {
	if len(packets) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(packets) == 1 {
		_, err := s.w.Write(packets[0])
		return err
	}
	s.bufs = append(s.bufs[:0], packets...)
	bufs := s.bufs // WriteTo consumes its receiver
	_, err := bufs.WriteTo(s.w)
	return err
}
