package adbtest

import (
	"io"
	"net"
	"sync"

	"github.com/jdwpscache/scache/ddm"
	"github.com/jdwpscache/scache/jdwp"
)

// helloShim returns a connection to vm through a shim that answers DDM
// for the VM, as an Android VM would: HELO with the process's name and pid,
// any other DDM chunk with a FAIL. Every other packet passes through. The
// shim ends when either side closes.
func (d *Device) helloShim(vm net.Conn, p Process) net.Conn {
	host, shim := net.Pipe()
	var wmu sync.Mutex // packets to the host, whole
	toHost := jdwp.NewFramer(shim, nil)
	write := func(b []byte) error {
		wmu.Lock()
		defer wmu.Unlock()
		return toHost.WritePacket(b)
	}
	closeBoth := func() {
		shim.Close()
		vm.Close()
	}
	// Host to VM: the handshake, then packets; DDM is answered here.
	d.goDo(func() {
		defer closeBoth()
		hs := make([]byte, len(jdwp.HandshakeBytes))
		if _, err := io.ReadFull(shim, hs); err != nil {
			return
		}
		if _, err := vm.Write(hs); err != nil {
			return
		}
		fromHost := jdwp.NewFramer(vm, shim)
		for {
			pkt, err := fromHost.ReadPacket()
			if err != nil {
				return
			}
			h, err := jdwp.ParseHeader(pkt)
			if err != nil {
				return
			}
			if h.IsReply() || h.Cmd().Set != ddm.CommandSet {
				if err := fromHost.WritePacket(pkt); err != nil {
					return
				}
				continue
			}
			if err := write(ddmReply(h.ID, jdwp.Data(pkt), p)); err != nil {
				return
			}
		}
	})
	// VM to host: the handshake, then packets.
	d.goDo(func() {
		defer closeBoth()
		hs := make([]byte, len(jdwp.HandshakeBytes))
		if _, err := io.ReadFull(vm, hs); err != nil {
			return
		}
		wmu.Lock()
		_, err := shim.Write(hs)
		wmu.Unlock()
		if err != nil {
			return
		}
		fromVM := jdwp.NewFramer(nil, vm)
		for {
			pkt, err := fromVM.ReadPacket()
			if err != nil || write(pkt) != nil {
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
