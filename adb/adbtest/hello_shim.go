package adbtest

import (
	"net"
	"sync"

	"github.com/jdwpscache/scache/ddm"
	"github.com/jdwpscache/scache/jdwp"
)

// helloShim returns a connection that stands for process p's VM as an
// Android VM's JDWP connection does: it answers the JDWP handshake and DDM
// itself (HELO with the process's name and pid, any other DDM chunk with a
// FAIL), and reaches the VM at p.Addr only when the first packet of
// another command set arrives (as ART loads its JDWP agent only then).
// So a tool that only asks the name (ddmlib, adb.Client.AppName) never
// attaches a debugger to the VM. The shim ends when either side closes.
func (d *Device) helloShim(p Process) net.Conn {
	host, shim := net.Pipe()
	var wmu sync.Mutex // whole packets to the host
	toHost := jdwp.NewFramer(shim, nil)
	write := func(b []byte) error {
		wmu.Lock()
		defer wmu.Unlock()
		return toHost.WritePacket(b)
	}
	var vm net.Conn
	var vmMu sync.Mutex
	closeAll := func() {
		shim.Close()
		vmMu.Lock()
		if vm != nil {
			vm.Close()
		}
		vmMu.Unlock()
	}
	d.goDo(func() {
		defer closeAll()
		if jdwp.VMHandshake(shim, 0) != nil {
			return
		}
		fromHost := jdwp.NewFramer(nil, shim)
		var toVM *jdwp.Framer
		for {
			pkt, err := fromHost.ReadPacket()
			if err != nil {
				return
			}
			h, err := jdwp.ParseHeader(pkt)
			if err != nil {
				return
			}
			if !h.IsReply() && h.Cmd().Set == ddm.CommandSet {
				if err := write(ddmReply(h.ID, jdwp.Data(pkt), p)); err != nil {
					return
				}
				continue
			}
			if toVM == nil { // the first JDWP packet: attach to the VM now
				c, err := net.Dial("tcp", p.Addr)
				if err != nil || jdwp.DebuggerHandshake(c, 0) != nil {
					if c != nil {
						c.Close()
					}
					return
				}
				vmMu.Lock()
				vm = c
				vmMu.Unlock()
				toVM = jdwp.NewFramer(c, nil)
				d.goDo(func() {
					defer closeAll()
					fromVM := jdwp.NewFramer(nil, c)
					for {
						pkt, err := fromVM.ReadPacket()
						if err != nil || write(pkt) != nil {
							return
						}
					}
				})
			}
			if err := toVM.WritePacket(pkt); err != nil {
				return
			}
		}
	})
	return host
}

// ddmReply answers one DDM command: HELO with the process's identity, any
// other chunk with a FAIL.
func ddmReply(id uint32, data []byte, p Process) []byte {
	chunks, err := ddm.ParseChunks(data)
	if err != nil || len(chunks) == 0 {
		return ddm.AppendReplyPacket(nil, id, ddm.Encode(&ddm.Fail{Code: 1, Message: "malformed DDM"}))
	}
	if chunks[0].Type == ddm.TypeHELO {
		return ddm.AppendReplyPacket(nil, id, ddm.Encode(&ddm.Hello{Version: 1, PID: uint32(p.PID), VMIdent: "adbtest shim",
			AppName: p.Name, Fields: 2, ABI: "64-bit (" + p.Architecture + ")"}))
	}
	return ddm.AppendReplyPacket(nil, id, ddm.Encode(&ddm.Fail{Code: 1, Message: "the shim answers HELO only"}))
}
