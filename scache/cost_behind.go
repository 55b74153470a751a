package scache

import "time"

// The wait behind speculation. The VM serves one command at a time, in the
// order it reads them: a debugger's command sent while speculated commands
// are outstanding at the VM waits until the last of them is served. That
// wait is what speculation costs the debugger, and it must stay small: an
// IDE gives up on a command after 3 s (Eclipse's JDI, VS Code's). With a
// clock, behindSpeculation measures it from the replies: for a debugger's
// command sent at t while synthetic commands were in flight ahead of it,
// the last of them is served at the VM at its reply's arrival r less half
// the link's round trip L, and the debugger's command reached the VM at
// t + L/2, so it waited r - t - L there (0 if that is negative). The
// longest such wait of the session is Stats.WaitBehindSpeculation.
// costModel owns it (cost.go): sending and arriving are told by the
// Speculator as packets go to and come from the VM.

// maxBehindTracked bounds the debugger's commands followed at once.
const maxBehindTracked = 256

// behindSpeculation measures the wait of the debugger's commands behind
// speculated ones at the VM.
type behindSpeculation struct {
	sent    uint64         // synthetic commands sent, ever: the sequence of the next is sent+1
	pending []behindSample // the debugger's commands with speculation ahead of them, in the order sent
	longest time.Duration
}

// behindSample is a debugger's command sent at at, behind the synthetic
// command of sequence ahead (and the ones before it).
type behindSample struct {
	at    time.Time
	ahead uint64
}

// synthetic numbers a synthetic command going to the VM.
func (b *behindSpeculation) synthetic() uint64 {
	b.sent++
	return b.sent
}

// debugger notes a debugger's command going to the VM at at, while
// inFlight synthetic commands are outstanding.
func (b *behindSpeculation) debugger(at time.Time, inFlight int) {
	if at.IsZero() || inFlight == 0 || len(b.pending) >= maxBehindTracked {
		return
	}
	b.pending = append(b.pending, behindSample{at: at, ahead: b.sent})
}

// answered takes the reply of the synthetic command of sequence seq,
// arrived at at: the debugger's commands it was the last ahead of (or
// after) waited until then. With the link's round trip (service excluded)
// known, their wait is measured; before, they are only let go.
func (b *behindSpeculation) answered(seq uint64, at time.Time, link time.Duration, linkKnown bool) {
	n := 0
	for ; n < len(b.pending) && b.pending[n].ahead <= seq; n++ {
		if wait := at.Sub(b.pending[n].at) - link; linkKnown && wait > b.longest {
			b.longest = wait
		}
	}
	b.pending = b.pending[n:]
}
