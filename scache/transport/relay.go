package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/internal/option"
	"github.com/jdwpscache/scache/scache/internal/tunnel"
)

// A Relay wires a Speculator between a debugger-side and a VM-side connection.
//
// Run passes the JDWP handshake through, then reads whole packets on each
// side in its own goroutine, presents each to the Speculator and writes the
// edicts to the right sides in order. A slow debugger or VM slows the relay
// down: nothing is queued, so memory stays bounded. Make one with NewRelay.
type Relay struct {
	spec             *scache.Speculator
	journal          func(scache.JournalEntry)
	maxPacketSize    int
	handshakeTimeout time.Duration
	// splitHalf and split: a half of a split proxy (split_relay.go);
	// silence: how long it waits without a frame from the other half.
	splitHalf Half
	split     splitHalf
	silence   time.Duration
	features  tunnel.Features // what this half offers (far) or accepts (near)
	// tunnelW: the last session's tunnel writer, which counts the bytes it wrote.
	tunnelW atomic.Pointer[queueWriter]
	// resume: how a Proxy's split session resumes (nil: it does not);
	// link: the last session's resumable tunnel, with Resume agreed on.
	resume *resumeConfig
	link   atomic.Pointer[resumableLink]
	// endMu guards endReason: why the other half ended the last session
	// (its 'E' frame), or why this half did.
	endMu     sync.Mutex
	endReason string

	journalMu sync.Mutex

	// started, if set, is called once the session's handshake is through
	// (a Proxy's session is then really in progress).
	started func()
}

// handshakeThrough calls the started hook, if any.
func (r *Relay) handshakeThrough() {
	if r.started != nil {
		r.started()
	}
}

// NewRelay returns a Relay for one session. Its options: those of a
// Speculator (for the Speculator it makes) or WithSpeculator (one made by
// scache.New), scache.WithJournal, WithMaxPacketSize, WithHandshakeTimeout,
// WithSplit.
func NewRelay(opts ...scache.Option) (*Relay, error) {
	st, err := collect(option.Relay, opts)
	if err != nil {
		return nil, err
	}
	spec := st.speculator()
	switch {
	case spec != nil && st.half() != Whole:
		return nil, errors.New("scache: WithSpeculator and WithSplit conflict: a half makes its own Speculator")
	case spec != nil && st.SpeculatorOptions():
		return nil, errors.New("scache: WithSpeculator and Speculator options conflict: give the options to scache.New")
	case spec != nil:
		return st.relay(spec), nil
	}
	return st.newRelay()
}

// newRelay returns a Relay with the settings' options around a new
// Speculator or, in split mode, a new half.
func (st *settings) newRelay() (*Relay, error) {
	r := st.relay(nil)
	var err error
	switch st.half() {
	case NearHalf:
		var n *scache.Near
		n, err = scache.NewNear(st.within(option.Half)...)
		if err == nil {
			r.spec, r.split = n.Speculator(), &nearHalf{n}
		}
	case FarHalf:
		var f *scache.Far
		f, err = scache.NewFar(st.within(option.Half)...)
		if err == nil {
			r.spec, r.split = f.Speculator(), &farHalf{f}
		}
	default:
		r.spec, err = st.newSpeculator()
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// relay returns a Relay with the settings' relay options around spec.
func (st *settings) relay(spec *scache.Speculator) *Relay {
	silence := st.SilenceTimeout
	if silence <= 0 {
		silence = scache.TunnelSilenceTimeout
	}
	return &Relay{spec: spec, journal: st.journal(), maxPacketSize: st.MaxPacketSize, handshakeTimeout: st.HandshakeTimeout,
		splitHalf: st.half(), silence: silence, features: st.features()}
}

// Speculator returns the Relay's Speculator (a half's, in split mode). Run
// closes it when the session ends.
func (r *Relay) Speculator() *scache.Speculator { return r.spec }

// Stats returns the counters of the Relay's Speculator, and in split mode
// the half's tunnel counters.
func (r *Relay) Stats() scache.Stats {
	if r.split != nil {
		st := r.split.stats()
		if w := r.tunnelW.Load(); w != nil {
			st.TunnelWireBytes = w.wrote.Load()
		}
		if l := r.link.Load(); l != nil {
			st.TunnelResumes, st.TunnelSentAgainBytes = l.counts()
		}
		return st
	}
	return r.spec.Stats()
}

// Half returns which half of a split proxy the Relay is, or Whole.
func (r *Relay) Half() Half { return r.splitHalf }

// EndReason says, for a half of a split proxy whose session has ended, why:
// the other half's reason from its end frame ("the VM closed the
// connection", "the far half is shutting down", …), or this half's own.
// Empty for one proxy, or while the session runs.
func (r *Relay) EndReason() string {
	r.endMu.Lock()
	defer r.endMu.Unlock()
	return r.endReason
}

// Run relays between debugger and vm until either side closes, a read or
// write fails, or ctx is cancelled. It closes both connections and returns the
// first real error: a clean close of either side at a packet boundary is not
// an error, but debugger commands still held at the end are
// (scache.ErrHeldCommands). No goroutine outlives Run.
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
	r.handshakeThrough()

	var (
		upW   = &sideWriter{w: vm}
		downW = &sideWriter{w: debugger}
		errMu sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	// What the Speculator asks before the debugger's first command (the
	// id sizes) goes to the VM before it, from the goroutine that forwards
	// the debugger's commands, while the VM's side is already read.
	start := r.spec.OnHandshake()
	if r.journal != nil {
		r.record(start, scache.Upstream)
	}
	fail := func(err error) {
		errMu.Lock()
		if first == nil && !jdwp.IsCleanClose(err) {
			first = err
		}
		errMu.Unlock()
		closeBoth()
	}
	vmDone := make(chan struct{})
	wg.Add(2)
	go func() {
		defer wg.Done()
		if err := upW.write(start.Edict.Upstream); err != nil {
			fail(fmt.Errorf("scache: writing to the VM: %w", err))
			return
		}
		err := r.pump(debugger, "debugger", upW, downW, scache.Upstream)
		if writeAtTheEnd(err) {
			awaitVMPump(ctx, vmDone)
			if r.spec.Ended() {
				err = nil
			}
		}
		fail(err)
	}()
	go func() {
		defer wg.Done()
		defer close(vmDone)
		err := r.pump(vm, "VM", upW, downW, scache.Downstream)
		if resetAtTheEnd(r.spec, err) {
			err = nil
		}
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
func (r *Relay) pump(from io.Reader, name string, upW, downW *sideWriter, dir scache.Direction) error {
	f := jdwp.NewFramer(nil, from)
	if r.maxPacketSize > 0 {
		f.SetMaxPacketSize(r.maxPacketSize)
	}
	var writeErr error
	err := f.ReadEach(func(p []byte) error {
		var resp scache.Response
		if dir == scache.Upstream {
			resp = r.spec.OnUpstream(p)
		} else {
			resp = r.spec.OnDownstream(p)
		}
		if r.journal != nil {
			r.record(resp, dir)
		}
		if err := upW.write(resp.Edict.Upstream); err != nil {
			writeErr = vmWriteError{err}
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

// resetAtTheEnd reports whether err, reading from a side, is a reset of a
// session that was ending (Speculator.Ended): the VM sent VMDeath, or the
// debugger Exit or Dispose, and the side closed with packets unread in
// its socket, or was written to once closed. Nothing the session needs
// is lost: it ends as if the side had closed cleanly.
func resetAtTheEnd(spec *scache.Speculator, err error) bool {
	return err != nil && spec != nil && errors.Is(err, syscall.ECONNRESET) && spec.Ended()
}

// vmWriteError is a write to the VM that failed.
type vmWriteError struct{ err error }

func (e vmWriteError) Error() string { return "scache: writing to the VM: " + e.err.Error() }
func (e vmWriteError) Unwrap() error { return e.err }

// writeAtTheEnd reports whether err is a write to the VM that failed
// because the VM's connection had ended (connEnded): a VM that exits
// closes it, and its VMDeath may still be unread, behind the packets the
// Relay is writing to the debugger. Whether the session had ended is
// known once the VM's side is read to its end.
func writeAtTheEnd(err error) bool {
	var w vmWriteError
	return errors.As(err, &w) && connEnded(err)
}

// connEnded reports whether err, writing to a connection, says that the
// connection had ended: reset by the peer, or closed for writing.
func connEnded(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// vmEndWait bounds how long the debugger's side waits, after a write to
// the VM failed, for the VM's side to be read to its end: a connection
// that fails writes ends reads at once, after what it holds.
const vmEndWait = 5 * time.Second

// awaitVMPump waits until the VM's side has been read to its end (done
// closed), ctx ends, or vmEndWait passes.
func awaitVMPump(ctx context.Context, done <-chan struct{}) {
	t := time.NewTimer(vmEndWait)
	defer t.Stop()
	select {
	case <-done:
	case <-ctx.Done():
	case <-t.C:
	}
}

func (r *Relay) record(resp scache.Response, dir scache.Direction) {
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
