// Package share lets several debuggers and tools use one VM connection at
// once. An app's VM accepts one JDWP connection; a Session owns it and
// accepts any number of clients, each through its own JDWP handshake.
//
// Each client's command ids are rewritten to ids unique on the VM connection
// and its replies rewritten back, so clients counting from 1 never collide;
// the Speculator's synthetic ids keep their own range, and one Speculator
// serves every client (a reply cached for one answers all).
//
// Events go to the client that created their event request (learned from
// EventRequest.Set replies); a composite carrying events of several clients
// is split; VM-wide events (request id 0: VMStart, VMDeath) go to every
// debugger. DDM packets the VM sends go to every client that has spoken DDM.
//
// Leaving: a client's VirtualMachine.Dispose is not forwarded (it would clear
// every client's event requests); the session clears that client's own
// requests, resumes the suspensions it owns, and answers the Dispose itself.
// A client that just disconnects is treated the same way.
//
// Suspension is shared state of the VM. A client owns the suspensions of its
// VirtualMachine.Suspend and ThreadReference.Suspend commands and of the
// events delivered to it with suspend policy ALL or EVENT_THREAD, and its
// Resume commands release them; but a resume by any client lets the VM run
// for everyone, and an event that suspends all threads for one client
// suspends them for the others too, who receive no event about it. Clients
// that want to inspect threads while another debugs should expect
// THREAD_NOT_SUSPENDED and changing states, as with any running VM.
package share
