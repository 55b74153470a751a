package scache

import "github.com/jdwpscache/scache/jdwp"

// The session's start. Every debugger's first command after the JDWP
// handshake is VirtualMachine.IDSizes (both JDIs, jdb, ddmlib's clients):
// nothing else can be read without the sizes. A Speculator told that the
// handshake is through (OnHandshake) asks for them at once, before the
// debugger does, and the VM's version with them (it names the JDWP agent,
// whose numbering of the session's event requests lets the attach's Sets
// be answered ahead: request_ids.go). The sizes' reply, like the
// debugger's own, teaches the Speculator the sizes and starts FamilyAttach
// (the capabilities), and it answers the debugger's IDSizes when it comes:
// from the cache, or held until the reply arrives. The split proxy's near half
// asks next to the VM and pushes the reply, so the debugger's first round
// trip over the slow link is the handshake's alone.

// OnHandshake tells the Speculator that the session's JDWP handshake is
// through. It returns what to send: the commands speculated ahead of the
// debugger's first (the id sizes and the version, with FamilyAttach on), to be written to
// the VM before anything else. It does nothing once a packet has been
// presented, and in Classic. See Response for how long the result is
// valid.
func (s *Speculator) OnHandshake() Response {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.scratch.up.reset()
	if !s.enabled || s.over || s.stats.PacketsUp+s.stats.PacketsDown > 0 || !s.table.on(FamilyAttach) {
		return *r
	}
	s.enqueue(&jdwp.VMIDSizesCommand{}, true)
	s.enqueue(&jdwp.VMVersionCommand{}, true) // no ids in it: it need not wait for the sizes
	s.pump(r, &s.scratch.up)
	return *r
}
