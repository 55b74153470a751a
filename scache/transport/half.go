package transport

import (
	"fmt"
	"time"

	"github.com/jdwpscache/scache/scache"
)

// Half says which half of a split proxy (see scache.Near and scache.Far) a
// Relay or Proxy is.
type Half uint8

const (
	// Whole: not split; the one proxy between debugger and VM.
	Whole Half = iota
	// NearHalf runs next to the VM: it accepts the far half's tunnel and
	// dials the VM.
	NearHalf
	// FarHalf runs next to the debugger: it accepts debuggers and dials
	// the near half.
	FarHalf
)

// String returns "near", "far" or "whole".
func (h Half) String() string {
	switch h {
	case NearHalf:
		return "near"
	case FarHalf:
		return "far"
	}
	return "whole"
}

// ParseHalf returns the Half named "near" or "far".
func ParseHalf(name string) (Half, error) {
	switch name {
	case "near":
		return NearHalf, nil
	case "far":
		return FarHalf, nil
	}
	return Whole, fmt.Errorf("scache: %q is not a half of a split proxy: near or far", name)
}

// A splitHalf is a Near or a Far as the relay runs it: fromDown takes what
// arrives from the debugger's side, fromUp what arrives from the VM's.
type splitHalf interface {
	// started is what the half sends once the session's handshake is
	// through, before anything it reads; helloRoundTrip is how long the
	// near half took to answer a far half's hello (0 at a near half).
	started(helloRoundTrip time.Duration) scache.Traffic
	fromDown(b []byte) (scache.Traffic, error)
	fromUp(b []byte) (scache.Traffic, error)
	stats() scache.Stats
}

type nearHalf struct {
	*scache.Near
}

func (h *nearHalf) started(time.Duration) scache.Traffic      { return h.OnHandshake() }
func (h *nearHalf) fromDown(b []byte) (scache.Traffic, error) { return h.FromFar(b) }
func (h *nearHalf) fromUp(b []byte) (scache.Traffic, error)   { return h.FromVM(b), nil }
func (h *nearHalf) stats() scache.Stats                       { return h.Stats() }

type farHalf struct {
	*scache.Far
}

func (h *farHalf) started(hello time.Duration) scache.Traffic { return h.OnTunnelOpen(hello) }
func (h *farHalf) fromDown(b []byte) (scache.Traffic, error)  { return h.FromDebugger(b), nil }
func (h *farHalf) fromUp(b []byte) (scache.Traffic, error)    { return h.FromNear(b) }
func (h *farHalf) stats() scache.Stats                        { return h.Stats() }
