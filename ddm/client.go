package ddm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/jdwpscache/scache/jdwp"
)

// FirstToolID is the first JDWP id a Client uses: the range of ddmlib-style
// tools, apart from debuggers (from 0) and the Speculator (from 0xA0000000).
const FirstToolID uint32 = 0x40000000

// DefaultTimeout bounds a request: current VMs send no reply at all to a
// chunk they have no handler for.
const DefaultTimeout = 5 * time.Second

// ErrNotDDMAware is returned when the VM answered HELO with a JDWP error (or
// not at all): it does not speak DDM, and no further DDM is sent to it.
var ErrNotDDMAware = errors.New("ddm: the VM is not DDM-aware")

// A Handler receives a chunk from the VM: unsolicited (isReply false, id
// chosen by the VM) or a reply to a request (isReply true, the request's id).
type Handler func(c Chunk, isReply bool, id uint32)

// A Client is the tool side of DDM (the document's "server") on a JDWP
// connection: it says HELO, sends requests and pairs them with replies by
// id, and routes the chunks the VM sends to handlers registered per type.
type Client struct {
	conn    *jdwp.Conn
	timeout time.Duration

	mu       sync.Mutex
	handlers map[Type]Handler
	notAware bool
	hello    *Hello
	features []string

	done chan struct{}
}

// Dial connects to a VM's JDWP port and attaches to it (AttachAny: the
// port may be any VM's). It returns ErrNotDDMAware (and no Client) for a
// VM that does not speak DDM.
func Dial(ctx context.Context, addr string) (*Client, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("ddm: dialing %s: %w", addr, err)
	}
	return AttachAny(ctx, nc)
}

// Attach performs the JDWP handshake on a connection known to reach an
// Android VM (adb's jdwp:<pid>), says HELO and asks for the VM's features
// (FEAT), as ddmlib does. It closes nc and returns ErrNotDDMAware (and no
// Client) for a VM that does not speak DDM, and closes nc on any other
// error too. On a connection that may reach any VM, use AttachAny.
func Attach(ctx context.Context, nc net.Conn) (*Client, error) {
	return attach(ctx, nc, false)
}

// AttachAny is Attach on a connection that may reach any VM: it asks the
// VM its name first (CheckVM), and says HELO only to a VM that may speak
// DDM. HotSpot is told nothing of DDM (it may crash on it).
func AttachAny(ctx context.Context, nc net.Conn) (*Client, error) {
	return attach(ctx, nc, true)
}

func attach(ctx context.Context, nc net.Conn, check bool) (*Client, error) {
	if err := jdwp.DebuggerHandshake(nc, 0); err != nil {
		nc.Close()
		return nil, err
	}
	c := NewClient(jdwp.NewConnFrom(nc, FirstToolID))
	if check {
		if err := c.CheckVM(ctx); err != nil {
			c.Close()
			return nil, err
		}
	}
	if _, err := c.Hello(ctx); err != nil {
		c.Close()
		return nil, err
	}
	if chunks, err := c.Request(ctx, &Empty{Type: TypeFEAT}); err == nil {
		for _, ch := range chunks {
			var f Features
			if ch.Type == TypeFEAT && Decode(ch, &f) == nil {
				c.mu.Lock()
				c.features = f.Names
				c.mu.Unlock()
			}
		}
	}
	return c, nil
}

// Features returns the features the VM listed in its FEAT reply, as Dial asked.
func (c *Client) Features() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.features
}

// NewClient returns a Client on a JDWP connection whose ids start in the
// tool range (jdwp.NewConnFrom(conn, FirstToolID)). It reads the VM's
// commands from the connection's Events.
func NewClient(conn *jdwp.Conn) *Client {
	c := &Client{conn: conn, timeout: DefaultTimeout, handlers: map[Type]Handler{}, done: make(chan struct{})}
	go c.loop()
	return c
}

// SetTimeout sets how long a request waits for its reply (DefaultTimeout).
func (c *Client) SetTimeout(d time.Duration) { c.timeout = d }

// Handle registers h for the chunks of a type (nil removes it).
func (c *Client) Handle(t Type, h Handler) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h == nil {
		delete(c.handlers, t)
	} else {
		c.handlers[t] = h
	}
}

// Done is closed when the connection has ended.
func (c *Client) Done() <-chan struct{} { return c.done }

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// Hello says HELO and returns the VM's answer. A JDWP error reply, or no
// reply within the timeout, means the VM is not DDM-aware (ErrNotDDMAware).
func (c *Client) Hello(ctx context.Context) (*Hello, error) {
	chunks, err := c.request(ctx, Encode(&HelloRequest{Version: 1}))
	if err != nil {
		var re *jdwp.ReplyError
		if errors.As(err, &re) || errors.Is(err, context.DeadlineExceeded) {
			return nil, c.notDDMAware(err)
		}
		return nil, err
	}
	for _, ch := range chunks {
		if ch.Type == TypeHELO {
			var h Hello
			if err := Decode(ch, &h); err != nil {
				return nil, err
			}
			c.mu.Lock()
			c.hello = &h
			c.mu.Unlock()
			return &h, nil
		}
	}
	return nil, fmt.Errorf("ddm: the HELO reply holds no HELO chunk")
}

// notDDMAware marks the VM as one no further DDM is sent to, and returns
// ErrNotDDMAware wrapped around why.
func (c *Client) notDDMAware(why error) error {
	c.mu.Lock()
	c.notAware = true
	c.mu.Unlock()
	return fmt.Errorf("%w: %w", ErrNotDDMAware, why)
}

// Request sends a request and returns the chunks of its reply (none for an
// empty success reply). A FAIL chunk is returned as a *Fail error.
func (c *Client) Request(ctx context.Context, m Message) ([]Chunk, error) {
	return c.request(ctx, Encode(m))
}

func (c *Client) request(ctx context.Context, chunk Chunk) ([]Chunk, error) {
	c.mu.Lock()
	notAware := c.notAware
	c.mu.Unlock()
	if notAware {
		return nil, ErrNotDDMAware // no further DDM, HELO included
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	reply, err := c.conn.Send(ctx, Cmd, AppendChunk(nil, chunk))
	if err != nil {
		return nil, err
	}
	h, err := jdwp.ParseHeader(reply)
	if err != nil {
		return nil, err
	}
	if h.ErrorCode != jdwp.ErrNone {
		return nil, &jdwp.ReplyError{ID: h.ID, Cmd: Cmd, Code: h.ErrorCode}
	}
	chunks, err := c.chunks(jdwp.Data(reply))
	if err != nil {
		return nil, err
	}
	for _, ch := range chunks {
		c.dispatch(ch, true, h.ID)
		if ch.Type == TypeFAIL {
			var f Fail
			if Decode(ch, &f) == nil {
				return chunks, &f
			}
		}
	}
	return chunks, nil
}

// chunks parses and inflates the chunks of a packet's data.
func (c *Client) chunks(data []byte) ([]Chunk, error) {
	chunks, err := ParseChunks(data)
	if err != nil {
		return nil, err
	}
	for i, ch := range chunks {
		if chunks[i], err = Decompress(ch); err != nil {
			return nil, err
		}
	}
	return chunks, nil
}

func (c *Client) dispatch(ch Chunk, isReply bool, id uint32) {
	c.mu.Lock()
	h := c.handlers[ch.Type]
	c.mu.Unlock()
	if h != nil {
		h(ch, isReply, id)
	}
}

// loop routes the DDM packets the VM sends on its own; other VM commands
// (JDWP events) are dropped: a DDM client sets no event requests.
func (c *Client) loop() {
	defer close(c.done)
	for p := range c.conn.Events() {
		if !IsDDM(p) {
			continue
		}
		chunks, err := c.chunks(jdwp.Data(p))
		if err != nil {
			continue
		}
		for _, ch := range chunks {
			c.dispatch(ch, false, jdwp.PacketID(p))
		}
	}
}
