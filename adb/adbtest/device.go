// Package adbtest is an emulated Android device that a real adb server can
// connect to (adb connect 127.0.0.1:PORT). It speaks the device side of the
// adb wire protocol: it answers CNXN without authentication, opens streams
// with flow control (one WRTE in flight per stream until OKAY), and serves
// jdwp:<pid> by bridging to a JVM's JDWP TCP port configured per pid,
// jdwp and track-jdwp with those pids, track-app (with Config.Features
// holding adb.FeatureTrackApp; names too with adb.FeatureAppInfo), and
// shell:echo and shell:getprop. A process may carry a name that its VM
// gives in a DDM HELO: a real JVM, which speaks no DDM, gets a shim in front
// that answers HELO for it (Process.AnswerHELO). Everything else is refused. (adb's devices -l, get-state, features,
// wait-for-device and forward are answered by the adb server itself.)
package adbtest

import (
	"bufio"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/jdwpscache/scache/adb"
	"github.com/jdwpscache/scache/adb/wire"
)

// Config describes the emulated device.
type Config struct {
	Product, Model, Device string
	// Features are advertised in the device's banner: adb.FeatureTrackApp
	// and adb.FeatureAppInfo make it a device of Android 15; none, one of
	// Android 11 or before.
	Features []string
}

// A Process is a debuggable process of the device.
type Process struct {
	PID          int
	Addr         string // its VM's JDWP address, which jdwp:<pid> reaches
	Name         string // its process name (track-app with app_info, and HELO with AnswerHELO)
	Architecture string
	// AnswerHELO puts a shim between jdwp:<pid> and the VM that answers
	// the JDWP handshake and DDM's HELO with Name (any other DDM chunk
	// with a FAIL), and attaches to the VM only at the first other packet,
	// as an Android VM does: for a real JVM, which speaks no DDM and would
	// take a name query for a debugger's attach. A ddmtest VM answers for
	// itself.
	AnswerHELO bool
}

// A Device is a running emulated device listening on 127.0.0.1.
type Device struct {
	Addr string // what to pass to adb connect

	banner wire.Banner
	ln     net.Listener
	wg     sync.WaitGroup

	mu       sync.Mutex
	procs    map[int]Process
	trackers map[*stream]bool // track-jdwp streams
	apps     map[*stream]bool // track-app streams
	conns    map[*conn]bool
}

// Start starts an emulated device.
func Start(cfg Config) (*Device, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	d := &Device{Addr: ln.Addr().String(), ln: ln, procs: map[int]Process{}, trackers: map[*stream]bool{}, apps: map[*stream]bool{},
		conns: map[*conn]bool{},
		banner: wire.Banner{System: "device", Features: cfg.Features, Properties: map[string]string{
			"ro.product.name": cfg.Product, "ro.product.model": cfg.Model, "ro.product.device": cfg.Device}}}
	d.wg.Add(1)
	go d.accept()
	return d, nil
}

// AddProcess makes a debuggable process without a name: jdwp:<pid>
// reaches the JDWP agent at addr.
func (d *Device) AddProcess(pid int, addr string) {
	d.AddApp(Process{PID: pid, Addr: addr})
}

// AddApp starts a debuggable process, and tells the trackers.
func (d *Device) AddApp(p Process) {
	d.mu.Lock()
	d.procs[p.PID] = p
	d.mu.Unlock()
	d.notifyTrackers()
}

// RemoveProcess ends a process.
func (d *Device) RemoveProcess(pid int) {
	d.mu.Lock()
	delete(d.procs, pid)
	d.mu.Unlock()
	d.notifyTrackers()
}

// goDo runs f in a goroutine that Close waits for.
func (d *Device) goDo(f func()) {
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		f()
	}()
}

// Close disconnects the adb server and stops the device.
func (d *Device) Close() error {
	err := d.ln.Close()
	d.mu.Lock()
	for c := range d.conns {
		c.nc.Close()
	}
	d.mu.Unlock()
	d.wg.Wait()
	return err
}

func (d *Device) accept() {
	defer d.wg.Done()
	for {
		nc, err := d.ln.Accept()
		if err != nil {
			return
		}
		c := &conn{d: d, nc: nc, r: bufio.NewReader(nc), streams: map[uint32]*stream{}, maxData: wire.MaxPayload}
		d.mu.Lock()
		d.conns[c] = true
		d.mu.Unlock()
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			c.serve()
			d.mu.Lock()
			delete(d.conns, c)
			d.mu.Unlock()
		}()
	}
}

// pidList is the track-jdwp payload: a 4-hex-digit length, then one pid a line.
func (d *Device) pidList() []byte {
	list := d.pids()
	return []byte(fmt.Sprintf("%04x%s", len(list), list))
}

// pids returns the debuggable pids, one a line, as the jdwp service sends them.
func (d *Device) pids() string {
	d.mu.Lock()
	pids := make([]int, 0, len(d.procs))
	for p := range d.procs {
		pids = append(pids, p)
	}
	d.mu.Unlock()
	sort.Ints(pids)
	var sb strings.Builder
	for _, p := range pids {
		sb.WriteString(strconv.Itoa(p) + "\n")
	}
	return sb.String()
}

// notifyTrackers sends the current lists to every track-jdwp and
// track-app stream.
func (d *Device) notifyTrackers() {
	d.broadcast(d.trackers, d.pidList)
	d.broadcast(d.apps, d.appList)
}

// broadcast writes payload to each stream of set, each from a goroutine of
// its own. The payload is made while the stream's writes are held, so the
// last update a stream gets is of the latest state, whatever order the
// goroutines run in.
func (d *Device) broadcast(set map[*stream]bool, payload func() []byte) {
	d.mu.Lock()
	var ss []*stream
	for s := range set {
		ss = append(ss, s)
	}
	d.mu.Unlock()
	for _, s := range ss {
		s := s
		d.goDo(func() { s.writeWith(payload) })
	}
}

// appList is the track-app payload: a 4-hex-digit length, then the
// AppProcesses protocol buffer (names only with app_info).
func (d *Device) appList() []byte {
	d.mu.Lock()
	apps := make([]adb.App, 0, len(d.procs))
	for _, p := range d.procs {
		apps = append(apps, adb.App{PID: p.PID, Name: p.Name, Debuggable: true, Architecture: p.Architecture})
	}
	d.mu.Unlock()
	sort.Slice(apps, func(i, j int) bool { return apps[i].PID < apps[j].PID })
	b := adb.AppendAppProcesses(nil, apps, d.banner.HasFeature(adb.FeatureAppInfo))
	return append([]byte(fmt.Sprintf("%04x", len(b))), b...)
}

// conn is one connection from an adb server.
type conn struct {
	d       *Device
	nc      net.Conn
	r       *bufio.Reader
	wmu     sync.Mutex
	version uint32
	maxData uint32

	mu      sync.Mutex
	streams map[uint32]*stream
	nextID  uint32
}

func (c *conn) send(m wire.Message) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.nc.Write(wire.Append(nil, m, c.version < wire.VersionSkipChecksum))
	return err
}

func (c *conn) serve() {
	defer c.nc.Close()
	defer c.closeAll()
	// The handshake: the host's CNXN, answered at once (no AUTH).
	m, err := wire.Read(c.r, wire.MaxPayload, false)
	if err != nil || m.Command != wire.CNXN {
		return
	}
	c.version, c.maxData = wire.Negotiate(wire.Message{Arg0: wire.Version, Arg1: wire.MaxPayload}, m)
	if c.send(wire.Message{Command: wire.CNXN, Arg0: c.version, Arg1: wire.MaxPayload, Data: c.d.banner.Bytes()}) != nil {
		return
	}
	for {
		m, err := wire.Read(c.r, wire.MaxPayload, c.version < wire.VersionSkipChecksum)
		if err != nil {
			return
		}
		switch m.Command {
		case wire.OPEN:
			c.open(m.Arg0, strings.TrimRight(string(m.Data), "\x00"))
		case wire.OKAY:
			if s := c.stream(m.Arg1); s != nil {
				s.acked()
			}
		case wire.WRTE:
			if s := c.stream(m.Arg1); s != nil {
				s.received(m.Data)
				_ = c.send(wire.Message{Command: wire.OKAY, Arg0: s.local, Arg1: s.remote})
			}
		case wire.CLSE:
			if s := c.stream(m.Arg1); s != nil {
				s.close(false)
			}
		}
	}
}

func (c *conn) stream(local uint32) *stream {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.streams[local]
}

func (c *conn) closeAll() {
	c.mu.Lock()
	var all []*stream
	for _, s := range c.streams {
		all = append(all, s)
	}
	c.mu.Unlock()
	for _, s := range all {
		s.close(false)
	}
}

// open starts a service for the host's stream remote, or refuses it with CLSE.
func (c *conn) open(remote uint32, service string) {
	c.mu.Lock()
	c.nextID++
	s := &stream{c: c, local: c.nextID, remote: remote, acks: make(chan struct{}, 1), in: make(chan []byte, 1), done: make(chan struct{})}
	c.streams[s.local] = s
	c.mu.Unlock()

	refuse := func() {
		_ = c.send(wire.Message{Command: wire.CLSE, Arg0: 0, Arg1: remote})
		c.mu.Lock()
		delete(c.streams, s.local)
		c.mu.Unlock()
	}
	accept := func() bool {
		return c.send(wire.Message{Command: wire.OKAY, Arg0: s.local, Arg1: remote}) == nil
	}
	switch {
	case strings.HasPrefix(service, "shell:"):
		cmd := strings.TrimPrefix(service, "shell:")
		out, ok := shell(cmd, c.d.banner)
		if !ok || !accept() {
			refuse()
			return
		}
		c.d.goDo(func() {
			s.write([]byte(out))
			s.close(true)
		})
	case strings.HasPrefix(service, "jdwp:"):
		pid, err := strconv.Atoi(strings.TrimPrefix(service, "jdwp:"))
		c.d.mu.Lock()
		p, ok := c.d.procs[pid]
		c.d.mu.Unlock()
		if err != nil || !ok {
			refuse()
			return
		}
		var vm net.Conn
		if p.AnswerHELO {
			vm = c.d.helloShim(p)
		} else if vm, err = net.Dial("tcp", p.Addr); err != nil {
			refuse()
			return
		}
		if !accept() {
			vm.Close()
			refuse()
			return
		}
		c.d.goDo(func() { s.bridge(vm) })
	case service == "jdwp":
		// `adb jdwp`: the pids once, with no length prefix, then the end.
		if !accept() {
			refuse()
			return
		}
		c.d.goDo(func() {
			s.write([]byte(c.d.pids()))
			s.close(true)
		})
	case service == "track-app" && c.d.banner.HasFeature(adb.FeatureTrackApp):
		if !accept() {
			refuse()
			return
		}
		c.d.mu.Lock()
		c.d.apps[s] = true
		c.d.mu.Unlock()
		c.d.goDo(func() { s.writeWith(c.d.appList) })
	case service == "track-jdwp":
		if !accept() {
			refuse()
			return
		}
		c.d.mu.Lock()
		c.d.trackers[s] = true
		c.d.mu.Unlock()
		c.d.goDo(func() { s.writeWith(c.d.pidList) })
	default:
		refuse()
	}
}

// shell runs the few commands the emulated device knows.
func shell(cmd string, b wire.Banner) (string, bool) {
	fields := strings.Fields(cmd)
	switch {
	case len(fields) > 0 && fields[0] == "echo":
		return strings.Join(fields[1:], " ") + "\n", true
	case len(fields) == 2 && fields[0] == "getprop":
		return b.Properties[fields[1]] + "\n", true
	}
	return "", false
}

// stream is one open stream.
type stream struct {
	c             *conn
	local, remote uint32
	acks          chan struct{}
	in            chan []byte
	done          chan struct{}
	wmu           sync.Mutex
	once          sync.Once
}

func (s *stream) acked() {
	select {
	case s.acks <- struct{}{}:
	default:
	}
}

func (s *stream) received(data []byte) {
	select {
	case s.in <- data:
	case <-s.done:
	}
}

// write sends data in WRTE messages of at most maxData bytes, each after the
// host acknowledged the last.
func (s *stream) write(data []byte) bool {
	return s.writeWith(func() []byte { return data })
}

// writeWith writes what payload returns, made once the stream's earlier
// writes are done.
func (s *stream) writeWith(payload func() []byte) bool {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	data := payload()
	for len(data) > 0 {
		n := min(len(data), int(s.c.maxData))
		if s.c.send(wire.Message{Command: wire.WRTE, Arg0: s.local, Arg1: s.remote, Data: data[:n]}) != nil {
			return false
		}
		select {
		case <-s.acks:
		case <-s.done:
			return false
		}
		data = data[n:]
	}
	return true
}

// close ends the stream; tell says whether to send CLSE to the host.
func (s *stream) close(tell bool) {
	s.once.Do(func() {
		close(s.done)
		if tell {
			_ = s.c.send(wire.Message{Command: wire.CLSE, Arg0: s.local, Arg1: s.remote})
		}
		s.c.mu.Lock()
		delete(s.c.streams, s.local)
		s.c.mu.Unlock()
		s.c.d.mu.Lock()
		delete(s.c.d.trackers, s)
		delete(s.c.d.apps, s)
		s.c.d.mu.Unlock()
	})
}

// bridge copies between the stream and a VM's JDWP connection.
func (s *stream) bridge(vm net.Conn) {
	defer vm.Close()
	s.c.d.goDo(func() {
		for {
			select {
			case data := <-s.in:
				if _, err := vm.Write(data); err != nil {
					s.close(true)
					return
				}
			case <-s.done:
				vm.Close()
				return
			}
		}
	})
	buf := make([]byte, 64<<10)
	for {
		n, err := vm.Read(buf)
		if n > 0 && !s.write(append([]byte(nil), buf[:n]...)) {
			return
		}
		if err != nil { // the VM closed the connection (or the stream was closed)
			s.close(true)
			return
		}
	}
}
