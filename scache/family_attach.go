package scache

import "github.com/jdwpscache/scache/jdwp"

// FamilyAttach: once the debugger has the id sizes, the facts every
// debugger asks once a session (the VM's version and capabilities), valid
// for the session.

// speculateAttach asks, once a session's id sizes are known, for the facts a
// debugger asks once a session.
func speculateAttach(s *Speculator, _ *inFlight, _ *replyData) error {
	s.enqueue(&jdwp.VMVersionCommand{}, false)
	s.enqueue(&jdwp.VMCapabilitiesNewCommand{}, false)
	return nil
}
