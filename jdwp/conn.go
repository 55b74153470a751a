package jdwp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
)

// A Conn is a small debugger-side JDWP client over one connection: it sends
// commands, pairs replies with them by id, and delivers the VM's commands
// (events, DDM packets) on a channel. It is what the integration tests and
// the examples use to talk to a real VM; the Speculator itself does not need it.
//
// One goroutine reads the connection and routes each packet; when it stops
// (the VM closed the connection, a malformed packet, Close), every pending
// Call fails with the error Err returns.
type Conn struct {
	conn   io.ReadWriteCloser
	framer *Framer

	writeMu sync.Mutex
	wbuf    []byte

	mu      sync.Mutex
	nextID  uint32
	pending map[uint32]chan reply
	sizes   IDSizes
	err     error

	events    chan []byte
	quit      chan struct{} // closed by Close
	closeOnce sync.Once
	done      chan struct{} // closed when the reader has stopped
}

type reply struct {
	packet []byte
}

// ErrConnClosed is the error of calls on a Conn whose connection has ended cleanly.
var ErrConnClosed = errors.New("jdwp: connection closed")

// Dial connects to a JDWP agent at addr (host:port), performs the debugger
// handshake, and returns a Conn. The context bounds the dial and the handshake.
func Dial(ctx context.Context, addr string) (*Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("jdwp: dialing %s: %w", addr, err)
	}
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	err = DebuggerHandshake(nc, 0)
	if !stop() {
		err = ctx.Err()
	}
	if err != nil {
		nc.Close()
		return nil, err
	}
	return NewConn(nc), nil
}

// NewConn returns a Conn over a connection whose handshake is already done.
// Command ids start at 1.
func NewConn(c io.ReadWriteCloser) *Conn { return NewConnFrom(c, 1) }

// NewConnFrom is NewConn with command ids starting at first: tools that share
// a connection use their own ranges (ddmlib 0x40000000).
func NewConnFrom(c io.ReadWriteCloser, first uint32) *Conn {
	cn := &Conn{
		conn:    c,
		framer:  NewFramer(c, c),
		nextID:  first,
		pending: make(map[uint32]chan reply),
		sizes:   DefaultIDSizes,
		events:  make(chan []byte, 64),
		quit:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	go cn.readLoop()
	return cn
}

// SetIDSizes sets the id sizes used to encode commands and decode replies,
// normally from a VirtualMachine.IDSizes reply.
func (c *Conn) SetIDSizes(s IDSizes) {
	c.mu.Lock()
	c.sizes = s
	c.mu.Unlock()
}

// IDSizes returns the id sizes in use.
func (c *Conn) IDSizes() IDSizes {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sizes
}

// Events delivers the packets the VM sends as commands (Event.Composite, DDM),
// each owned by the receiver. It is closed when the connection ends. A
// receiver that stops reading holds up the connection (backpressure) until Close.
func (c *Conn) Events() <-chan []byte { return c.events }

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why the connection ended: ErrConnClosed for a clean end.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close closes the connection and waits for the reader to stop. Events not
// yet received are dropped.
func (c *Conn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		close(c.quit)
		err = c.conn.Close()
	})
	<-c.done
	return err
}

// Send sends a command with raw data and returns the whole reply packet.
func (c *Conn) Send(ctx context.Context, cmd Command, data []byte) ([]byte, error) {
	ch := make(chan reply, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, err
	}
	id := c.nextID
	c.nextID++
	c.pending[id] = ch
	c.mu.Unlock()

	c.writeMu.Lock()
	c.wbuf = AppendCommand(c.wbuf[:0], id, cmd, data)
	_, err := c.conn.Write(c.wbuf)
	c.writeMu.Unlock()
	if err != nil {
		c.forget(id)
		return nil, fmt.Errorf("jdwp: sending %s: %w", cmd, err)
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return nil, c.Err()
		}
		return r.packet, nil
	case <-ctx.Done():
		c.forget(id)
		return nil, ctx.Err()
	}
}

// Call sends the command m and decodes a successful reply into out (which may
// be nil to ignore the data). An error reply is returned as a *ReplyError.
func (c *Conn) Call(ctx context.Context, m CommandMessage, out Message) error {
	sizes := c.IDSizes()
	p, err := c.Send(ctx, m.Command(), Marshal(m, sizes))
	if err != nil {
		return err
	}
	h, err := ParseHeader(p)
	if err != nil {
		return err
	}
	if h.ErrorCode != ErrNone {
		return &ReplyError{ID: h.ID, Cmd: m.Command(), Code: h.ErrorCode}
	}
	if out == nil {
		return nil
	}
	if err := Unmarshal(Data(p), sizes, out); err != nil {
		return fmt.Errorf("jdwp: decoding reply to %s: %w", m.Command(), err)
	}
	return nil
}

func (c *Conn) forget(id uint32) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

func (c *Conn) readLoop() {
	var err error
	defer func() {
		c.mu.Lock()
		if err == nil || err == errQuit {
			err = ErrConnClosed
		}
		c.err = err
		for id, ch := range c.pending {
			close(ch)
			delete(c.pending, id)
		}
		c.mu.Unlock()
		close(c.events)
		c.conn.Close()
		close(c.done)
	}()
	err = c.framer.ReadEach(func(p []byte) error {
		p = append([]byte(nil), p...) // delivered: kept by the receiver
		if p[8]&FlagReply == 0 {
			select {
			case c.events <- p:
				return nil
			case <-c.quit:
				return errQuit
			}
		}
		id := PacketID(p)
		c.mu.Lock()
		ch, ok := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ok {
			ch <- reply{packet: p}
		}
		return nil
	})
}

// errQuit ends the read loop when Close is called while an event waits.
var errQuit = errors.New("jdwp: connection closed")
