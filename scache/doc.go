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
// The order the VM processes commands in is also what lets the Speculator
// read behind a debugger's VirtualMachine.Suspend or StackFrame.PopFrames,
// which the agent finishes before it reads on: what it sends right behind
// either is read in the state it leaves. Such replies are kept out of the
// cache until the command's reply proves that state, and given up if the
// debugger sends anything meanwhile that may let a thread run or ends the
// epoch. Invocations are not such commands: the agent reads on while the
// method runs.
//
// A debugger command is answered from a reply in flight (belayed) only if no
// event arrived and no command that changes state was forwarded since that
// reply's command was sent: the VM produced the reply in the state the
// debugger's command would have seen.
//
// # Consistency: state that moves
//
// Under suspend policy EVENT_THREAD the other threads run while the
// debugger looks at a stop, and their status, names, the thread list and
// the thread-group tree may change between two of its commands, and so may
// any object's fields, array's elements and type's statics. Two promises
// are on offer ([WithConsistency]):
//
//   - [Linearizable]: every reply equals the VM's answer at some moment
//     between the debugger's command and the reply. Replies about running
//     threads and values are never served from speculation.
//   - [Sequential], the default: every reply equals the VM's answer in some
//     real state of the VM; the states behind the events and replies the
//     debugger receives, in the order it receives them, never go back in
//     time; and each comes after the VM processed every state-changing
//     command the debugger sent before asking. Nothing in JDWP tells this
//     from the VM's threads having been scheduled a little later.
//
// Under Sequential the running threads' view, and the values the debugger
// reads, go out at the stop, and a reply of them (a moving entry) answers
// the debugger only if (a) it arrived from the VM after every VM packet
// already delivered that tells a state (an event, a reply about threads,
// frames or values: not a class's metadata or an object's type, true in
// every state), and (b) no state-changing command of the debugger is
// unanswered and the last one's reply arrived before it. The races above show why both are needed: a
// status read before a breakpoint event the debugger has seen would take it
// back to before the event (rule a; in race 1 the event is the later
// state), and a status read before the debugger's own Suspend of that
// thread, served after it, would hide the debugger's write (rule b, as in
// race 2). Otherwise the command goes to the VM, as under Linearizable. The
// race property (race_test.go) checks the promise that applies.
//
// Under suspend-thread breakpoints several threads often stop at once, each
// at its own breakpoint, and a debugger reads their stops in the order the
// events came, resuming each thread alone. A thread suspended by its own
// event stays where it is, whatever the others do, until the debugger
// sends a command that may let it run (a resume of it or of every thread,
// an invocation, PopFrames, a hot swap): it is parked (parked.go). Its
// frames, depth, this, locals and status stay cached across the epochs
// that other threads' events and resumes end, pin no state under rule (a),
// and answer the debugger when it reads that stop in its turn. Both in
// one proxy and at a far half, which keeps its own suspension.
//
// # What it speculates
//
// What the Speculator sends on its own is grouped in families (Family; the
// default, AllFamilies, is every one): the class metadata of each frame
// (FamilyClass, the original jdwp-scache's), the stopped thread's frames
// and name (FamilyStop), the top frame's this and locals, and those of the
// frames below it the debugger looked at (FamilyTopFrame),
// the facts of the values they show (FamilyValues), what the debugger asked
// at its recent stops, the objects this holds included, reached by the
// same fields on whichever objects they are now (FamilyAgain), the threads
// view and the thread-group tree a level ahead of its walk, and a parallel
// client's reads of it in the order it made them (FamilyThreads), the
// facts asked once a session (FamilyAttach), a prepared class's methods
// (FamilyPrepare), and what a debugger reads after an invocation, such as a
// renderer's toString, or after a Drop Frame (FamilyInvoke). WithFamilies
// chooses among them.
//
// Learning. Debuggers differ (jdb, IDEs, a JDI tool), and one debugger asks
// less at the end of a step than at a breakpoint, an exception or a
// method exit. The Speculator counts, per kind of command and kind of stop
// (stopKind), whether what it sent answered the
// debugger before the stop ended; what went unused is paused, sent again
// now and then to see whether the debugger's views changed, and resumed as
// soon as the debugger asks for it itself.
//
// Frame prediction. A stop's most useful answers (the top frame's this and
// locals) name the top frame by an id the VM gives it only in the Frames
// reply: one round trip after the stop. VMs number frames predictably from
// one resume to the next; the Speculator learns the step from the session's
// own Frames replies and asks for the top frame's state at the stop event,
// with the frames. A wrong prediction costs only waste: a reply answers only
// a command with the same bytes, in the same suspension.
//
// Guessing. A method called on one object after another stops on a new
// this each time, and VMs hand out object ids in order. The Speculator
// learns how far apart the objects at a site are from stop to stop (this
// in a class, a variable at a code location) and, right behind the command
// whose reply will give the new object its id, asks what is true whatever
// object an id names: its type, a string's value, an array's length. An
// error reply about an object is never kept.
//
// Answering ahead. Some replies are known before the VM sends them: the
// empty reply to EventRequest.Clear of a step or breakpoint request, and
// the id the VM will give a single step request. Next to the debugger (a
// proxy there, or a split proxy's far half; WithAnswerAhead), the
// Speculator answers them at once and absorbs the VM's reply; every later
// command still reaches the VM after them, as it would have.
//
// The cost model. Speculation is not free: each speculated command takes
// the VM's service time whether or not the debugger uses it, and a
// debugger's command queued behind it waits as long; a used one saves the
// debugger a round trip (the link's and the VM's). With a clock
// ([WithClock]; the transports give theirs), the Speculator measures both
// per session ([Stats].RoundTrip, [Stats].ServiceTime). On a fast VM
// (HotSpot serves a command in tens of microseconds) everything the
// learner allows goes out; on a slow one, a command goes out only if its
// odds (the share of its kind the debugger used this session) times the
// round trip it saves outweigh the service time it costs, and only as
// many are in flight as keep the VM busy for one round trip (cost.go).
//
// For maintainers: each piece of state has one owner, a type in its own
// file whose head says what it owns and who may change it: the in-flight
// table (inflight.go), the positions of rules (a) and (b) (positions.go),
// the suspension (suspension.go), the queue (queue_state.go), the stop
// (stop.go), the cache (cache.go, read by command in lookup.go), the
// learner (learn.go) and the cost model (cost.go). The Speculator's
// methods are glue: OnHandshake (handshake.go) starts a session,
// OnUpstream (upstream.go) and OnDownstream
// (downstream.go) list the stages a packet goes through, in order, and the
// queue's gate (queue.go: admit) asks the owners. The table of families,
// their hooks and how to add one are at the head of families.go; a
// family's files (family_*.go) hold its handlers and state, and no other
// file names them. What may be cached, and how to add a cacheable command,
// is at the head of keyable.go.
//
// Package transport wires a Speculator between two real connections (its
// Relay) or serves debuggers (its Proxy); this package does no I/O.
//
// # Options
//
// One [Option] type configures New, NewNear, NewFar and the transports'
// constructors; each rejects an option that does not apply to it, or a bad
// value, with an error. A Speculator's: [WithCacheBytes]
// (DefaultCacheBytes), [WithMaxFrames] (DefaultMaxFrames), [WithMaxInFlight]
// (DefaultMaxInFlight), [WithBelay], [WithFamilies], [WithAnswerAhead],
// [WithConsistency], [WithClock], [WithLogger], [WithAudit],
// [WithAttachMemory] (what the debugger listed as it attached, asked
// ahead at its next attach), and the presets
// [Classic] and [PassThrough] (options beside a preset refine it, in any
// order). [WithJournal] is for whoever presents the packets; [ModeOptions]
// turns a mode's name (scache, classic, off) into options.
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
// used, for the learner. Package transport's WithSplit makes a Relay or a
// Proxy one half.
package scache
