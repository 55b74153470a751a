package adb

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// DefaultPort is the adb server's port unless ANDROID_ADB_SERVER_PORT says otherwise.
const DefaultPort = 5037

// MaxRequest is the longest request the client sends: current servers accept up to 1 MiB.
const MaxRequest = 1 << 20

// A Client talks to an adb server.
type Client struct {
	// Addr is the server's address; empty means 127.0.0.1 and
	// ANDROID_ADB_SERVER_PORT or DefaultPort.
	Addr string
}

func (c *Client) addr() string {
	if c.Addr != "" {
		return c.Addr
	}
	port := DefaultPort
	if p, err := strconv.Atoi(os.Getenv("ANDROID_ADB_SERVER_PORT")); err == nil && p > 0 && p < 65536 {
		port = p
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
}

// conn is one smart-socket connection to the server.
type conn struct {
	nc   net.Conn
	r    *bufio.Reader
	stop func() bool // detaches the connection from the context of its dial
}

// dial connects to the server, with ctx's deadline on the connection until released.
func (c *Client) dial(ctx context.Context) (*conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", c.addr())
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("%w: %s: %v", ErrServerNotAvailable, c.addr(), err)
		}
		return nil, fmt.Errorf("adb: dialing the server at %s: %w", c.addr(), err)
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = nc.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	return &conn{nc: nc, r: bufio.NewReader(nc), stop: stop}, nil
}

func (cn *conn) Close() error {
	cn.stop()
	return cn.nc.Close()
}

// detach returns the connection for a caller to keep beyond the context of
// its dial, with no deadline.
func (cn *conn) detach() net.Conn {
	cn.stop()
	_ = cn.nc.SetDeadline(timeZero)
	return &bufferedConn{Conn: cn.nc, r: cn.r}
}

// send writes a request: its length in 4 hex digits, then the text.
func (cn *conn) send(req string) error {
	if len(req) > MaxRequest {
		return fmt.Errorf("%w: request of %d bytes", ErrProtocol, len(req))
	}
	_, err := cn.nc.Write([]byte(fmt.Sprintf("%04x%s", len(req), req)))
	return err
}

// status reads OKAY, or FAIL and its message as a *ServerError.
func (cn *conn) status(req string) error {
	var s [4]byte
	if _, err := io.ReadFull(cn.r, s[:]); err != nil {
		return fmt.Errorf("adb: %s: reading the status: %w", req, err)
	}
	switch string(s[:]) {
	case "OKAY":
		return nil
	case "FAIL":
		msg, err := cn.readHex()
		if err != nil {
			return fmt.Errorf("adb: %s: reading the failure: %w", req, err)
		}
		return serverError(req, string(msg))
	}
	return fmt.Errorf("%w: %s: status %q", ErrProtocol, req, s[:])
}

// readHex reads a 4-hex-digit length and that many bytes.
func (cn *conn) readHex() ([]byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(cn.r, h[:]); err != nil {
		return nil, err
	}
	n, err := strconv.ParseUint(string(h[:]), 16, 16)
	if err != nil {
		return nil, fmt.Errorf("%w: length %q", ErrProtocol, h[:])
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(cn.r, b); err != nil {
		return nil, err
	}
	return b, nil
}

// request sends a host request and reads its status.
func (c *Client) request(ctx context.Context, req string) (*conn, error) {
	cn, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	if err := cn.send(req); err != nil {
		cn.Close()
		return nil, fmt.Errorf("adb: %s: %w", req, err)
	}
	if err := cn.status(req); err != nil {
		cn.Close()
		return nil, err
	}
	return cn, nil
}

// query sends a host request whose answer is one hex-length string.
func (c *Client) query(ctx context.Context, req string) (string, error) {
	cn, err := c.request(ctx, req)
	if err != nil {
		return "", err
	}
	defer cn.Close()
	b, err := cn.readHex()
	if err != nil {
		return "", fmt.Errorf("adb: %s: %w", req, err)
	}
	return string(b), nil
}

// ServerVersion returns the server's protocol version (41 for adb 1.0.41).
// Corresponds to the command: adb version.
func (c *Client) ServerVersion(ctx context.Context) (int, error) {
	s, err := c.query(ctx, "host:version")
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(s, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("%w: version %q", ErrProtocol, s)
	}
	return int(v), nil
}

// A Device is one entry of the device list.
type Device struct {
	Serial      string
	State       string // device, offline, unauthorized, …
	Product     string // with -l
	Model       string
	DeviceName  string
	TransportID int64
}

// Devices lists the devices, with details (adb devices -l) if long.
func (c *Client) Devices(ctx context.Context, long bool) ([]Device, error) {
	req := "host:devices"
	if long {
		req = "host:devices-l"
	}
	s, err := c.query(ctx, req)
	if err != nil {
		return nil, err
	}
	return ParseDevices(s), nil
}

// ParseDevices parses the text of a device list, short or long.
func ParseDevices(s string) []Device {
	var out []Device
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		d := Device{Serial: f[0], State: f[1]}
		for _, kv := range f[2:] {
			k, v, _ := strings.Cut(kv, ":")
			switch k {
			case "product":
				d.Product = v
			case "model":
				d.Model = v
			case "device":
				d.DeviceName = v
			case "transport_id":
				d.TransportID, _ = strconv.ParseInt(v, 10, 64)
			}
		}
		out = append(out, d)
	}
	return out
}

// TrackDevices streams the device list each time it changes, until ctx
// ends or the server closes the connection; the channel is closed then.
func (c *Client) TrackDevices(ctx context.Context) (<-chan []Device, error) {
	cn, err := c.request(ctx, "host:track-devices-l")
	if err != nil {
		return nil, err
	}
	return stream(ctx, cn, func(b []byte) []Device { return ParseDevices(string(b)) })
}

// stream reads hex-length updates from cn until ctx ends or the server
// closes, and closes the channel then.
func stream[T any](ctx context.Context, cn *conn, parse func([]byte) T) (<-chan T, error) {
	_ = cn.nc.SetDeadline(timeZero) // updates come when they come; ctx ends the stream
	ch := make(chan T)
	go func() {
		defer close(ch)
		defer cn.Close()
		for {
			b, err := cn.readHex()
			if err != nil {
				return
			}
			select {
			case ch <- parse(b):
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch, nil
}

// A Selector chooses a device: by serial, by transport id, or any.
type Selector struct {
	Serial      string
	TransportID int64
}

// transport switches a connection to a device: host:tport:… answers with the
// device's 8-byte little-endian transport id.
func (c *Client) transport(ctx context.Context, sel Selector) (*conn, int64, error) {
	req := "host:tport:any"
	switch {
	case sel.Serial != "":
		req = "host:tport:serial:" + sel.Serial
	case sel.TransportID != 0:
		req = "host:tport:transport-id:" + strconv.FormatInt(sel.TransportID, 10)
	}
	cn, err := c.request(ctx, req)
	if err != nil {
		return nil, 0, err
	}
	var id [8]byte
	if _, err := io.ReadFull(cn.r, id[:]); err != nil {
		cn.Close()
		return nil, 0, fmt.Errorf("adb: %s: reading the transport id: %w", req, err)
	}
	return cn, int64(binary.LittleEndian.Uint64(id[:])), nil
}

// Transport returns a connection switched to the device (host:tport), and
// the device's transport id. The connection then carries one device service.
func (c *Client) Transport(ctx context.Context, sel Selector) (net.Conn, int64, error) {
	cn, id, err := c.transport(ctx, sel)
	if err != nil {
		return nil, 0, err
	}
	return cn.detach(), id, nil
}

// service opens a device service on a transport connection.
func (c *Client) service(ctx context.Context, sel Selector, svc string) (*conn, error) {
	cn, _, err := c.transport(ctx, sel)
	if err != nil {
		return nil, err
	}
	if err := cn.send(svc); err != nil {
		cn.Close()
		return nil, fmt.Errorf("adb: %s: %w", svc, err)
	}
	if err := cn.status(svc); err != nil {
		cn.Close()
		return nil, err
	}
	return cn, nil
}

// JDWP opens jdwp:<pid> on a device: a stream to the process's JDWP agent,
// ready for the JDWP handshake. Its deadline is cleared.
func (c *Client) JDWP(ctx context.Context, sel Selector, pid int) (net.Conn, error) {
	cn, err := c.service(ctx, sel, "jdwp:"+strconv.Itoa(pid))
	if err != nil {
		return nil, err
	}
	return cn.detach(), nil
}

// TrackJDWP streams the device's debuggable pids each time they change,
// until ctx ends or the device closes the stream.
func (c *Client) TrackJDWP(ctx context.Context, sel Selector) (<-chan []int, error) {
	cn, err := c.service(ctx, sel, "track-jdwp")
	if err != nil {
		return nil, err
	}
	return stream(ctx, cn, func(b []byte) []int {
		var pids []int
		for _, f := range strings.Fields(string(b)) {
			if p, err := strconv.Atoi(f); err == nil {
				pids = append(pids, p)
			}
		}
		return pids
	})
}

// Shell runs a command on the device (shell:CMD) and returns its output.
func (c *Client) Shell(ctx context.Context, sel Selector, cmd string) (string, error) {
	cn, err := c.service(ctx, sel, "shell:"+cmd)
	if err != nil {
		return "", err
	}
	defer cn.Close()
	b, err := io.ReadAll(cn.r)
	return string(b), err
}

// A Forward is a port forward from the host to a device.
type Forward struct {
	Serial, Local, Remote string // "tcp:8700", "jdwp:1234"
}

// CreateForward forwards local (on the host, "tcp:0" for any port) to remote
// on the device and returns the local port the server chose, when it says.
func (c *Client) CreateForward(ctx context.Context, sel Selector, local, remote string) (string, error) {
	cn, _, err := c.transport(ctx, sel)
	if err != nil {
		return "", err
	}
	defer cn.Close()
	req := "host:forward:" + local + ";" + remote
	if err := cn.send(req); err != nil {
		return "", err
	}
	if err := cn.status(req); err != nil {
		return "", err
	}
	if err := cn.status(req); err != nil {
		return "", err
	}
	if port, err := cn.readHex(); err == nil {
		return string(port), nil
	}
	return strings.TrimPrefix(local, "tcp:"), nil
}

// ListForwards lists every forward of the server.
func (c *Client) ListForwards(ctx context.Context) ([]Forward, error) {
	s, err := c.query(ctx, "host:list-forward")
	if err != nil {
		return nil, err
	}
	var out []Forward
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) == 3 {
			out = append(out, Forward{Serial: f[0], Local: f[1], Remote: f[2]})
		}
	}
	return out, nil
}

// RemoveForward removes the forward of a local address on a device.
func (c *Client) RemoveForward(ctx context.Context, sel Selector, local string) error {
	cn, _, err := c.transport(ctx, sel)
	if err != nil {
		return err
	}
	defer cn.Close()
	req := "host:killforward:" + local
	if err := cn.send(req); err != nil {
		return err
	}
	if err := cn.status(req); err != nil {
		return err
	}
	return cn.status(req)
}

// bufferedConn is a net.Conn whose first bytes may already sit in a bufio.Reader.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufferedConn) Read(p []byte) (int, error) { return b.r.Read(p) }

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

var timeZero time.Time
