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
// # Suspension and races
//
// Replies about threads, frames and objects are cached only within one
// suspension epoch, while the Speculator knows the threads they are about to
// be suspended. What is suspended follows the order in which the VM
// processes commands, not the order in which packets reach the Speculator:
// the VM reads commands in order but writes events from other threads, so a
// stop event or a reply can cross a command on the wire. While a debugger
// command that may let threads run (a resume, an invoke, PopFrames,
// ForceEarlyReturn, Stop, Interrupt, RedefineClasses) is sent and not
// answered, nothing that arrives establishes a trusted suspension, and the
// Speculator neither speculates about state nor caches it until a later
// event or Suspend reply arrives with no such command unanswered. Two races
// show why:
//
//  1. A stop event generated before a resume that was already forwarded.
//     Thread B hits a breakpoint with suspend policy ALL while the debugger,
//     still looking at thread A, sends VirtualMachine.Resume. The event
//     reaches the Speculator, but the VM processes the resume after it
//     generated the event: B runs again. Frames(B) asked now would be
//     answered THREAD_NOT_SUSPENDED and, cached, served to the debugger
//     after B stopped again.
//  2. A VirtualMachine.Suspend reply while a later resume is in flight. A
//     debugger that pipelines Suspend and Resume gets the Suspend reply after
//     the VM has already applied the Resume: nothing is suspended, and a
//     thread's name cached then would be served after the thread renamed
//     itself.
//
// The JDWP agent of OpenJDK (and ART) suspends the threads of an event
// before it writes the event, so a resume processed in between makes the
// event arrive after the resume's reply. No order of packets shows that; a
// THREAD_NOT_SUSPENDED reply about a thread taken for suspended does, and
// ends the epoch with nothing trusted.
//
// A debugger command is answered from a reply in flight (belayed) only if no
// event arrived and no command that changes state was forwarded since that
// reply's command was sent: the VM produced the reply in the state the
// debugger's command would have seen.
//
// # The policy
//
// What the Speculator sends on its own is one table, families in
// families.go: each family names what starts it (a trusted stop, replies to
// some commands), how long what it caches stays true, and what it sends.
// What may be cached, and for how long, is the keyable table in keys.go.
//
// To add a family:
//
//  1. Add a Family bit in options.go (and to AllFamilies if it is on by default).
//  2. Add an entry to families: its flag, life, onStop and/or onReply
//     handlers and the commands it sends. The dispatcher runs a handler only
//     when the family is on and, for a trigger whose reply is state of a
//     suspension, only for a reply still true (cached, not invalidated, of
//     the current epoch); OnUpstream tracks every trigger command.
//  3. Write the handlers: queue typed jdwp commands with enqueueState
//     (suspension state: queued only while the suspension lets it be
//     cached) or enqueueClass (class metadata).
//  4. Test it against the model VM (scachetest) and the property tests.
//
// To add a cacheable command:
//
//  1. Give it a typed command message in package jdwp (its parameter layout,
//     stated once) and register it in jdwp's registry.
//  2. Add it to keyable in keys.go with its lifetime; a class metadata
//     command also goes in classOf, a thread-local state command in threadOf.
//  3. Teach the model VM (scachetest) to answer it, so that the property
//     tests cover it.
//  4. If its reply is a function of another command's (as Methods is of
//     MethodsWithGeneric), derive it in derived.go and compare the derived
//     reply with a real VM's in derived_test.go.
//
// Derived answers (derived.go): a command whose reply is a deterministic
// function of a cached reply is answered from it, byte for byte what the VM
// would say: part of a stack and its depth from the whole stack of the same
// epoch; Methods, Fields, Signature and VariableTable from their WithGeneric
// forms; AllClasses from AllClassesWithGeneric of the same epoch.
//
// [Relay] wires a Speculator between two real connections.
//
// # Split mode
//
// Across a slow link, a proxy next to the debugger learns of a stop only when
// the event has crossed it. Split mode puts the link between two halves: a
// [Near] next to the VM, a [Far] next to the debugger, and a tunnel of one
// TCP connection between them (package internal/tunnel: its handshake and frames). The
// near half is a Speculator that speculates at the VM's latency; it forwards
// the VM's packets and announces each synthetic command it sends, then its
// reply. The far half is the same state machine as a follower
// (follower.go): it sends nothing of its own, adopts each announced command
// as if it had sent it at that point of the stream, and answers the
// debugger from the replies and its own belay, so what it caches and
// invalidates follows the same rules applied to the same packets in the
// same order. Each announcement carries how many of the debugger's commands
// the near half had read; one the near half had not seen that may change
// what the command reads (anything but a pure read) makes the far half
// adopt it poisoned. The far half tells the near one which replies it
// used, for the learner. WithSplit makes a Relay or a Proxy one half.
package scache
