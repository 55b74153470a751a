package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sync"
	"time"
)

// A pipeConn is a net.Conn over a reader and a writer: the near half's
// stdin and stdout (-stdio), or a command's stdout and stdin (-via).
// Deadlines are not supported: the channel's own (ssh's, say) apply.
type pipeConn struct {
	r       io.ReadCloser
	w       io.WriteCloser
	name    string
	closeFn func() error
	once    sync.Once
	err     error
}

func (c *pipeConn) Read(b []byte) (int, error)  { return c.r.Read(b) }
func (c *pipeConn) Write(b []byte) (int, error) { return c.w.Write(b) }

// CloseWrite ends what the other side reads, and keeps reading.
func (c *pipeConn) CloseWrite() error { return c.w.Close() }

func (c *pipeConn) Close() error {
	c.once.Do(func() {
		c.w.Close()
		c.r.Close()
		if c.closeFn != nil {
			c.err = c.closeFn()
		}
	})
	return c.err
}
func (c *pipeConn) LocalAddr() net.Addr                { return pipeAddr(c.name) }
func (c *pipeConn) RemoteAddr() net.Addr               { return pipeAddr(c.name) }
func (c *pipeConn) SetDeadline(t time.Time) error      { return errors.ErrUnsupported }
func (c *pipeConn) SetReadDeadline(t time.Time) error  { return errors.ErrUnsupported }
func (c *pipeConn) SetWriteDeadline(t time.Time) error { return errors.ErrUnsupported }

// pipeAddr names a pipeConn's other end.
type pipeAddr string

func (a pipeAddr) Network() string { return "pipe" }
func (a pipeAddr) String() string  { return string(a) }

// stdioListener yields one connection, the process's stdin and stdout,
// then reports itself closed once that connection is: -stdio serves
// exactly one tunnel.
type stdioListener struct {
	conn   *pipeConn
	served bool
	closed chan struct{}
	once   sync.Once
}

func newStdioListener() *stdioListener {
	l := &stdioListener{closed: make(chan struct{})}
	l.conn = &pipeConn{r: os.Stdin, w: os.Stdout, name: "stdio", closeFn: func() error {
		l.Close()
		return nil
	}}
	return l
}

func (l *stdioListener) Accept() (net.Conn, error) {
	if !l.served {
		l.served = true
		return l.conn, nil
	}
	<-l.closed
	return nil, net.ErrClosed
}

func (l *stdioListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *stdioListener) Addr() net.Addr { return pipeAddr("stdio") }

// viaDialer returns a dial function that starts `sh -c command` for each
// session and speaks the tunnel over its standard input and output; its
// standard error goes to ours (ssh's messages, say).
func viaDialer(command string) func(ctx context.Context) (net.Conn, error) {
	return func(ctx context.Context) (net.Conn, error) {
		cmd := exec.Command("sh", "-c", command)
		cmd.Stderr = os.Stderr
		// Pipes of our own: Wait must not close our ends before we have
		// read all the command wrote.
		childIn, in, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		out, childOut, err := os.Pipe()
		if err != nil {
			childIn.Close()
			in.Close()
			return nil, err
		}
		cmd.Stdin, cmd.Stdout = childIn, childOut
		err = cmd.Start()
		childIn.Close()
		childOut.Close()
		if err != nil {
			in.Close()
			out.Close()
			return nil, fmt.Errorf("-via: starting %q: %w", command, err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		return &pipeConn{r: out, w: in, name: "via " + command, closeFn: func() error {
			select { // the near half ends when its stdin does; else it is stopped
			case err := <-done:
				return err
			case <-time.After(5 * time.Second):
				_ = cmd.Process.Kill()
				return <-done
			}
		}}, nil
	}
}
