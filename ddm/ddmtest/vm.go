// Package ddmtest is a DDM-aware fake VM speaking JDWP over a real TCP
// connection on loopback, for tests of DDM tools and for users who emulate
// devices: it answers HELO and FEAT, sends THCR for its threads after THEN,
// THST at the requested interval, HPIF, heap segments at each HPGC, APNM and
// WAIT, and FAIL for the chunks it does not understand. It answers
// VirtualMachine.Version as ART does (its VM name is "Dalvik"), and the
// other JDWP commands with NOT_IMPLEMENTED.
package ddmtest

import (
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"github.com/jdwpscache/scache/ddm"
	"github.com/jdwpscache/scache/jdwp"
)

// A Thread of the fake VM.
type Thread struct {
	ID     uint32
	Name   string
	Status uint8
	Daemon bool
}

// Config describes the fake VM.
type Config struct {
	PID     uint32
	VMIdent string
	AppName string
	Package string
	// WaitingForDebugger makes the VM send WAIT after its HELO reply.
	WaitingForDebugger bool
	// NamedAfterHello, if set, is the name the VM takes right after its
	// HELO reply (an APNM), as a pre-initialized process that becomes an
	// app: AppName is then the name the HELO gave ("<pre-initialized>").
	NamedAfterHello string
	Threads         []Thread
}

// A VM is a running fake VM. It serves one connection at a time.
type VM struct {
	Addr string // 127.0.0.1:port

	cfg Config
	ln  net.Listener
	wg  sync.WaitGroup

	mu       sync.Mutex
	conn     net.Conn
	threads  []Thread
	notify   bool
	ticker   *time.Ticker
	stopTHST chan struct{}
	nextID   uint32
	closed   bool
}

// Start starts a fake VM listening on 127.0.0.1.
func Start(cfg Config) (*VM, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	vm := &VM{Addr: ln.Addr().String(), cfg: cfg, ln: ln, threads: append([]Thread(nil), cfg.Threads...), nextID: 0x80000000}
	vm.wg.Add(1)
	go vm.accept()
	return vm, nil
}

// Close stops the VM and waits for its goroutines.
func (vm *VM) Close() error {
	err := vm.ln.Close()
	vm.mu.Lock()
	vm.closed = true
	if vm.conn != nil {
		vm.conn.Close()
	}
	vm.stopStatusLocked()
	vm.mu.Unlock()
	vm.wg.Wait()
	return err
}

// StartThread adds a thread and, with notifications on, sends THCR.
func (vm *VM) StartThread(t Thread) {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	vm.threads = append(vm.threads, t)
	if vm.notify {
		vm.sendLocked(ddm.Encode(&ddm.ThreadCreated{ID: t.ID, Name: t.Name}))
	}
}

// EndThread removes a thread and, with notifications on, sends THDE.
func (vm *VM) EndThread(id uint32) {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	for i, t := range vm.threads {
		if t.ID == id {
			vm.threads = append(vm.threads[:i], vm.threads[i+1:]...)
			break
		}
	}
	if vm.notify {
		vm.sendLocked(ddm.Encode(&ddm.ThreadDied{ID: id}))
	}
}

// RenameThread changes a thread's name and, with notifications on, sends
// THNM, as ART does when a thread renames itself.
func (vm *VM) RenameThread(id uint32, name string) {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	for i := range vm.threads {
		if vm.threads[i].ID == id {
			vm.threads[i].Name = name
		}
	}
	if vm.notify {
		vm.sendLocked(ddm.Encode(&ddm.ThreadRenamed{ID: id, Name: name}))
	}
}

// SetAppName changes the application's name and sends APNM, as a VM does
// when a pre-initialized process becomes an app.
func (vm *VM) SetAppName(name string) {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	vm.cfg.AppName = name
	vm.sendLocked(ddm.Encode(&ddm.AppName{Name: name}))
}

// SetStatus changes a thread's status (seen in the next THST).
func (vm *VM) SetStatus(id uint32, status uint8) {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	for i := range vm.threads {
		if vm.threads[i].ID == id {
			vm.threads[i].Status = status
		}
	}
}

// SendStatus sends a THST now, as the periodic updates do.
func (vm *VM) SendStatus() {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	vm.sendLocked(vm.statusLocked())
}

func (vm *VM) accept() {
	defer vm.wg.Done()
	for {
		c, err := vm.ln.Accept()
		if err != nil {
			return
		}
		vm.mu.Lock()
		if vm.closed {
			vm.mu.Unlock()
			c.Close()
			return
		}
		vm.conn = c
		vm.mu.Unlock()
		vm.serve(c)
		vm.mu.Lock()
		vm.conn, vm.notify = nil, false
		vm.stopStatusLocked()
		vm.mu.Unlock()
	}
}

func (vm *VM) serve(c net.Conn) {
	defer c.Close()
	if jdwp.VMHandshake(c, 0) != nil {
		return
	}
	f := jdwp.NewFramer(nil, c)
	for {
		p, err := f.ReadPacket()
		if err != nil {
			return
		}
		h, _ := jdwp.ParseHeader(p)
		if h.IsReply() {
			continue
		}
		vm.mu.Lock()
		switch h.Cmd() {
		case jdwp.CmdVirtualMachineVersion:
			vm.writeLocked(jdwp.AppendReplyPacket(nil, h.ID, &artVersion, jdwp.DefaultIDSizes))
		case ddm.Cmd:
			vm.handleLocked(h.ID, jdwp.Data(p))
		default:
			vm.writeLocked(jdwp.AppendReply(nil, h.ID, jdwp.ErrNotImplemented, nil))
		}
		vm.mu.Unlock()
	}
}

// artVersion is the Version reply of an ART VM (Android 14), whose JDWP
// agent is OpenJDK's: the VM name is java.vm.name.
var artVersion = jdwp.VMVersionReply{
	Description: "Java Debug Wire Protocol (Reference Implementation) version 1.8\nJVM Debug Interface version 1.2\nJVM version 2.1.0 (Dalvik, )",
	JDWPMajor:   1, JDWPMinor: 8, VMVersion: "2.1.0", VMName: "Dalvik",
}

// handleLocked answers a DDM packet.
func (vm *VM) handleLocked(id uint32, data []byte) {
	chunks, err := ddm.ParseChunks(data)
	if err != nil {
		vm.writeLocked(ddm.AppendReplyPacket(nil, id, ddm.Encode(&ddm.Fail{Code: 1, Message: err.Error()})))
		return
	}
	var reply []ddm.Chunk
	var after []ddm.Chunk // sent once the reply is out
	for _, ch := range chunks {
		switch ch.Type {
		case ddm.TypeHELO:
			reply = append(reply, ddm.Encode(&ddm.Hello{Version: 1, PID: vm.cfg.PID, VMIdent: vm.cfg.VMIdent,
				AppName: vm.cfg.AppName, Fields: 5, ABI: "64-bit (x86_64)", JVMFlags: "CheckJNI=false",
				PackageName: vm.cfg.Package}))
			if vm.cfg.WaitingForDebugger {
				after = append(after, ddm.Encode(&ddm.Wait{Reason: 0}))
			}
			if vm.cfg.NamedAfterHello != "" {
				vm.cfg.AppName = vm.cfg.NamedAfterHello
				after = append(after, ddm.Encode(&ddm.AppName{Name: vm.cfg.NamedAfterHello}))
			}
		case ddm.TypeFEAT:
			reply = append(reply, ddm.Encode(&ddm.Features{Names: []string{"method-trace-profiling", "hprof-heap-dump"}}))
		case ddm.TypeTHEN:
			var m ddm.ThreadNotify
			if ddm.Decode(ch, &m) != nil {
				reply = append(reply, fail("bad THEN"))
				continue
			}
			vm.notify = m.Enable
			if m.Enable {
				for _, t := range vm.threads {
					after = append(after, ddm.Encode(&ddm.ThreadCreated{ID: t.ID, Name: t.Name}))
				}
			}
		case ddm.TypeTHST:
			var m ddm.ThreadStatusInterval
			if len(ch.Data) == 0 {
				reply = append(reply, vm.statusLocked()) // a status request
				continue
			}
			if ddm.Decode(ch, &m) != nil {
				reply = append(reply, fail("bad THST"))
				continue
			}
			vm.startStatusLocked(time.Duration(m.Millis) * time.Millisecond)
		case ddm.TypeHPIF:
			var m ddm.HeapInfoRequest
			if ddm.Decode(ch, &m) == nil && m.When == ddm.WhenImmediately {
				after = append(after, vm.heapInfo(m.When))
			}
		case ddm.TypeHPGC:
			after = append(after, vm.heapSegments()...)
		case ddm.TypeHPSG, ddm.TypeNHSG:
		default:
			reply = append(reply, fail("unsupported chunk "+ch.Type.String()))
		}
	}
	vm.writeLocked(ddm.AppendReplyPacket(nil, id, reply...))
	for _, ch := range after {
		vm.sendLocked(ch)
	}
}

func fail(msg string) ddm.Chunk { return ddm.Encode(&ddm.Fail{Code: 1, Message: msg}) }

func (vm *VM) statusLocked() ddm.Chunk {
	var s ddm.ThreadStatus
	for _, t := range vm.threads {
		s.Threads = append(s.Threads, ddm.ThreadInfo{ID: t.ID, Status: t.Status, TID: 1000 + t.ID, Daemon: t.Daemon})
	}
	return ddm.Encode(&s)
}

func (vm *VM) heapInfo(when uint8) ddm.Chunk {
	return ddm.Encode(&ddm.HeapInfo{Heaps: []ddm.HeapStats{{HeapID: 1, TimestampMs: uint64(time.Now().UnixMilli()),
		Reason: when, MaxBytes: 256 << 20, SizeBytes: 0x2000, AllocatedBytes: 0x1000, Objects: 42}}})
}

// heapSegments describes a heap of 0x2000 bytes at 0x10000 in 8-byte units,
// half in use, in two pieces.
func (vm *VM) heapSegments() []ddm.Chunk {
	first := ddm.HeapSegment{Type: ddm.TypeHPSG, HeapID: 1, UnitSize: 8, Address: 0x10000}
	first.SetRuns([]ddm.Run{{Solidity: ddm.SolidityHard, Kind: ddm.KindObject, Units: 0x200}, {Units: 0x100}})
	second := ddm.HeapSegment{Type: ddm.TypeHPSG, HeapID: 1, UnitSize: 8, Address: 0x10000, Offset: 0x300}
	second.SetRuns([]ddm.Run{{Units: 0x100}})
	return []ddm.Chunk{ddm.Encode(&ddm.HeapMark{Type: ddm.TypeHPST, HeapID: 1}), ddm.Encode(&first),
		ddm.Encode(&second), ddm.Encode(&ddm.HeapMark{Type: ddm.TypeHPEN, HeapID: 1})}
}

// startStatusLocked sends THST every interval until stopped (0 stops).
func (vm *VM) startStatusLocked(interval time.Duration) {
	vm.stopStatusLocked()
	if interval <= 0 {
		return
	}
	stop := make(chan struct{})
	vm.stopTHST = stop
	t := time.NewTicker(interval)
	vm.wg.Add(1)
	go func() {
		defer vm.wg.Done()
		defer t.Stop()
		for {
			select {
			case <-t.C:
				vm.SendStatus()
			case <-stop:
				return
			}
		}
	}()
}

func (vm *VM) stopStatusLocked() {
	if vm.stopTHST != nil {
		close(vm.stopTHST)
		vm.stopTHST = nil
	}
}

// sendLocked sends a VM-initiated DDM packet (ids with bit 31 set).
func (vm *VM) sendLocked(ch ddm.Chunk) {
	vm.nextID++
	vm.writeLocked(ddm.AppendCommandPacket(nil, vm.nextID, ch))
}

func (vm *VM) writeLocked(p []byte) {
	if vm.conn == nil {
		return
	}
	if _, err := vm.conn.Write(p); err != nil && !errors.Is(err, net.ErrClosed) && err != io.EOF {
		vm.conn.Close()
	}
}
