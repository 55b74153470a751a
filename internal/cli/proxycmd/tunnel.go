package proxycmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
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
	// readEnded, if set, says why reading ended: a -via command's end.
	readEnded func(err error) error
	once      sync.Once
	err       error
}

func (c *pipeConn) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	if err != nil && c.readEnded != nil {
		err = c.readEnded(err)
	}
	return n, err
}
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

// outliveTheChannel keeps a -stdio near half alive when the command's
// channel dies (ssh's connection drops): a hangup is ignored, and a write
// to standard output or error that finds no reader fails instead of
// killing the process (Go's default for SIGPIPE on them). Its session
// then waits for the far half's next run of the command (-resume-within).
func outliveTheChannel() {
	signal.Ignore(syscall.SIGHUP)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE) // never read: Notify alone turns SIGPIPE into EPIPE
}

// viaDialer returns a dial function that starts `sh -c command` for each
// session and speaks the tunnel over its standard input and output; its
// standard error goes to stderr line by line (ssh's messages, say), a line
// repeated from run to run once (quietRepeats: the far half runs the
// command again and again while the link is down). When the command's
// output ends, the read error names the command, how it ended and its last
// line on standard error, so the far half says why the tunnel was lost.
func viaDialer(command string, stderr io.Writer) func(ctx context.Context) (net.Conn, error) {
	quiet := &quietRepeats{w: stderr}
	return func(ctx context.Context) (net.Conn, error) {
		cmd := exec.Command("sh", "-c", command)
		last := &lastLine{lines: quiet}
		cmd.Stderr = last
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
		p := &viaProcess{command: command, cmd: cmd, stderr: last, done: make(chan struct{})}
		go p.wait()
		return &pipeConn{r: out, w: in, name: "via " + command, readEnded: p.ended, closeFn: p.stop}, nil
	}
}

// A viaProcess is a -via command running for one session.
type viaProcess struct {
	command string
	cmd     *exec.Cmd
	stderr  *lastLine
	done    chan struct{} // closed once it has exited; then err is set
	err     error
}

func (p *viaProcess) wait() {
	p.err = p.cmd.Wait()
	p.stderr.flush()
	close(p.done)
}

// viaExitWait bounds how long, once the command's output ended, its exit
// is waited for to name it.
const viaExitWait = time.Second

// ended turns the end of the command's output into an error that says
// how the command ended, once it has (within viaExitWait).
func (p *viaProcess) ended(err error) error {
	select {
	case <-p.done:
	case <-time.After(viaExitWait):
		return err // still running: it only closed its output
	}
	how := "exit status 0"
	if p.err != nil {
		how = p.err.Error() // "exit status 255", "signal: killed"
	}
	msg := fmt.Sprintf("the -via command %q ended (%s)", p.command, how)
	if line := p.stderr.last(); line != "" {
		msg += fmt.Sprintf("; its last line on standard error: %q", line)
	}
	return fmt.Errorf("%s: %w", msg, err)
}

// stop ends the command with the session: the near half ends when its
// stdin does; else it is stopped.
func (p *viaProcess) stop() error {
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	return p.err
}

// A lastLine passes the lines written to it on to lines, and keeps the
// last non-empty one (at most 200 bytes of it).
type lastLine struct {
	lines *quietRepeats

	mu      sync.Mutex
	partial []byte
	line    string
}

// maxLine bounds a line kept or passed on; the rest of it is dropped.
const maxLine = 200

func (l *lastLine) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range b {
		if c == '\n' {
			l.endLine()
		} else if len(l.partial) < maxLine {
			l.partial = append(l.partial, c)
		}
	}
	return len(b), nil
}

// endLine passes the partial line on and keeps it if it is not empty.
func (l *lastLine) endLine() {
	if t := strings.TrimSpace(string(l.partial)); t != "" {
		l.line = t
	}
	l.lines.line(string(l.partial))
	l.partial = l.partial[:0]
}

// flush passes on a last line that did not end, once the command exited.
func (l *lastLine) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.partial) > 0 {
		l.endLine()
	}
}

func (l *lastLine) last() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t := strings.TrimSpace(string(l.partial)); t != "" {
		return t
	}
	return l.line
}

// quietRepeats passes lines on to w, except a line equal to the last one
// it passed: that is counted, and said once another line comes. A -via
// command run again every half second while the link is down says why it
// fails once, not at every run.
type quietRepeats struct {
	w io.Writer

	mu      sync.Mutex
	last    string
	repeats int
}

// line passes one line (without its newline) on, unless it repeats.
func (q *quietRepeats) line(s string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if s == q.last && s != "" {
		q.repeats++
		return
	}
	if q.repeats > 0 {
		fmt.Fprintf(q.w, "(the line above came %d more times)\n", q.repeats)
	}
	q.last, q.repeats = s, 0
	fmt.Fprintln(q.w, s)
}
