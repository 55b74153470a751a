// Package scache is a speculative cache for JDWP: it makes Java debugging over
// slow links (adb over USB or Wi-Fi) fast.
//
// A [Speculator] sees every packet between a debugger and a VM. Upstream means
// towards the VM, downstream towards the debugger. For each packet it returns a
// [Response]: the edict (what the transport must send now, each direction, in
// order) and the journal (a coherent view of the conversation for tracers).
//
// When the VM answers ThreadReference.Frames, the Speculator sends the VM the
// class and method metadata commands the debugger is about to send (synthetic
// commands, with ids from [FirstSyntheticID]), absorbs their replies into a
// byte-bounded LRU cache, and answers the debugger's own commands from it,
// re-tagged with the debugger's packet id. A debugger command whose synthetic
// twin is still in flight is held (belayed) and answered when the reply comes.
//
// The Speculator never serves a stale reply: class metadata entries live until
// the class is unloaded or redefined, and everything is cleared on VM death,
// Dispose and Close. A packet it cannot parse switches it off: from then on
// every packet passes through untouched.
//
// [Relay] wires a Speculator between two real connections.
package scache
