package scache_test

import (
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
)

// shadowHistory keeps, for TestTransparency under Sequential, the states
// the shadow VM went through, so that a reply about state that moves
// (scache.MovingState) the Speculator made from what it asked before the
// threads ran on can be held to the sequential promise: the VM's answer in
// a state no earlier than the latest the debugger saw (an event, or a reply
// that pins a state: scache.PinsState) nor than its own last write before
// the command, and no later than the command.
type shadowHistory struct {
	on         bool
	states     []*scachetest.ModelVM
	dirty      bool           // the shadow may have changed since the last state kept
	sent       map[uint32]int // the state each debugger command was answered in, by id
	afterWrite map[uint32]int // the state after the debugger's last write before it, by id
	lastWrite  int
	eventState []int // the state each event left, in order
}

// now returns the index of the shadow's current state, kept if new.
func (h *shadowHistory) now(shadow *scachetest.ModelVM) int {
	if h.dirty || len(h.states) == 0 {
		h.states = append(h.states, shadow.Clone())
		h.dirty = false
	}
	return len(h.states) - 1
}

// command notes a debugger command p, about to be answered by the shadow.
func (h *shadowHistory) command(p []byte, shadow *scachetest.ModelVM) {
	if !h.on {
		return
	}
	if h.sent == nil {
		h.sent, h.afterWrite = map[uint32]int{}, map[uint32]int{}
	}
	id := jdwp.PacketID(p)
	h.sent[id], h.afterWrite[id] = h.now(shadow), h.lastWrite
}

// answered notes that the shadow answered the debugger command p.
func (h *shadowHistory) answered(p []byte, shadow *scachetest.ModelVM) {
	if !h.on {
		return
	}
	cmd := jdwp.Header{}
	_ = cmd.Parse(p)
	if !scache.Keyable(cmd.Cmd()) {
		h.dirty = true
	}
	if scache.EndsEpoch(cmd.Cmd()) || scache.ChangesValues(cmd.Cmd()) {
		h.lastWrite = h.now(shadow)
	}
}

// event notes that the shadow sent an event, having changed.
func (h *shadowHistory) event(shadow *scachetest.ModelVM) {
	if h.on {
		h.dirty = true
		h.eventState = append(h.eventState, h.now(shadow))
	}
}

// sequentialCheck checks, in the order the debugger received them, the
// replies that differ from the shadow's answer when the command was sent:
// each must be a reply about moving state that the sequential promise
// allows. floor is the latest state the debugger saw.
type sequentialCheck struct {
	h      *shadowHistory
	floor  int
	events int
}

// sawEvent raises the floor to the next event's state.
func (c *sequentialCheck) sawEvent() {
	if c.events < len(c.h.eventState) {
		c.floor = max(c.floor, c.h.eventState[c.events])
	}
	c.events++
}

// earliest returns the first state, from the floor to the one the
// debugger's command packet was answered in, in which the shadow answers
// it p: the state the reply p places the debugger in. A reply true in
// several states (the stopped thread's frames or this, a Clear's, asked
// after a running thread moved on) places it in the first: the sequential
// promise holds if some order of states fits every reply, and placing
// each as early as it can be leaves the most room for the ones after it.
// (The debugger's writes bound what follows them on their own:
// afterWrite.)
func (c *sequentialCheck) earliest(packet, p []byte) int {
	sent := c.h.sent[jdwp.PacketID(p)]
	for i := c.floor; i < sent; i++ {
		if string(c.h.states[i].Clone().Handle(packet)) == string(p) {
			return i
		}
	}
	return max(c.floor, sent)
}

// sawReply checks the reply p to the debugger's command cmd, which the
// shadow answered want, and reports whether it is the one to expect.
func (c *sequentialCheck) sawReply(cmd jdwp.Command, packet, p, want []byte) bool {
	id := jdwp.PacketID(p)
	if string(p) == string(want) {
		if scache.PinsState(cmd) {
			c.floor = c.earliest(packet, p)
		}
		return true
	}
	if !c.h.on || !scache.MovingState(cmd) {
		return false
	}
	for i := max(c.floor, c.h.afterWrite[id]); i <= c.h.sent[id]; i++ {
		if string(c.h.states[i].Handle(packet)) == string(p) {
			c.floor = i
			return true
		}
	}
	return false
}
