package scache

import (
	"fmt"
	"strings"

	"github.com/jdwpscache/scache/jdwp"
)

// The speculation policy: every family of commands the Speculator sends on
// its own, in one table. An entry says what starts the family (a trusted
// stop, replies to some commands, what the debugger asks), how long what it
// caches stays true, what it sends, and the hooks that keep its own state
// true through a stop's life (the end of a stop, values changed, a resume,
// an invocation, a reset). Its handlers (family_*.go) are functions of the
// table that take the Speculator: they queue typed commands through the
// queue's one gate (enqueue, queue.go) and read the cache by command
// (s.lookup), the stop (s.stop) and the suspension; what they keep is
// their own part of familyState. The dispatchers below check each
// trigger's guard once, so the handlers hold only their own logic; the
// mechanism reaches the families only through them and names no family
// (TestTheMechanismNamesNoFamily). TestEachFamilyAloneSendsOnlyItsOwn
// runs each family alone and fails when it sends a command its entry does
// not list.
//
// To add a family:
//
//  1. Add a Family bit below (and to AllFamilies if it is on by default).
//  2. Add an entry to families: its flag, life, handlers (onStop, onReply,
//     ...) and the commands it sends; its state, if any, to familyState,
//     with the hooks that keep it true (onReset at least). The dispatcher
//     runs a handler only when the family is on and, for a trigger whose
//     reply is state of a suspension, only for a reply still true (cached,
//     not invalidated, of the current epoch); OnUpstream tracks every
//     trigger command.
//  3. Write the handlers in family_NAME.go: queue typed jdwp commands with
//     enqueue, whose gate (admit) queues suspension state only while the
//     suspension lets it be cached and the learner allows it.
//  4. Test it against the model VM (scachetest) and the property tests, and
//     add it to the scripted stop of TestEachFamilyAloneSendsOnlyItsOwn if
//     that stop does not trigger it.

// A Family is a set of commands the Speculator sends on its own.
type Family uint16

// The speculation families, each on the replies of the last.
const (
	// FamilyClass: the class metadata of each frame of a Frames reply (the original's set).
	FamilyClass Family = 1 << iota
	// FamilyStop: on a stop event, the stopped thread's Frames, FrameCount and Name.
	FamilyStop
	// FamilyTopFrame: on a Frames reply, the top frame's this (non-static
	// methods) and the values of the variables visible at its code index;
	// the same of the frames below the top whose this or values the
	// debugger asked at its recent stops of the kind (a user walking up
	// the stack).
	FamilyTopFrame
	// FamilyValues: the type of each object, the value of each string and
	// the length of each array among those values (an array's elements
	// among them); and once the debugger asked one field of an object
	// alone, each other field the same way, while it goes on with them
	// (family_values_each.go).
	FamilyValues
	// FamilyAgain: at a stop, the state commands the debugger asked at its
	// recent stops of the same kind (breakpoint or step) that name no frame:
	// the fields of an expanded object, a class's statics (see family_again.go),
	// the objects and arrays this holds (family_again_chains.go,
	// family_again_arrays.go); the type of the next `this`, guessed from
	// the ids of the last stops' (see family_again_guess.go); and after an
	// edit, the values it dropped (family_again_edited.go).
	FamilyAgain
	// FamilyThreads: while all threads are suspended, AllThreads and each
	// thread's Name, Status and FrameCount; and once the debugger walks the
	// thread-group tree, each group's children and name, a level ahead.
	// At the VMStart of a VM started suspended, the thread list, and at a
	// class prepared with every thread suspended, if the debugger asked it
	// at such an event before.
	FamilyThreads
	// FamilyAttach: the id sizes as soon as the handshake is through
	// (OnHandshake), and once they are known the facts a debugger asks
	// once a session (Version, CapabilitiesNew).
	FamilyAttach
	// FamilyPrepare: at a ClassPrepare event that suspends (where a debugger
	// sets its deferred breakpoints), the class's methods and source names,
	// then the line table of each of its methods; at the reply to the
	// debugger's own list of a class's methods, their line tables (at a
	// stop, of a class no frame stands in, once it asks the first:
	// family_prepare_deferred.go).
	FamilyPrepare
	// FamilyInvoke: at the reply to an invocation (an IDE's renderer calling
	// toString, jdb's print), the invoking thread's top frame, its this and
	// values (the thread ran: what was read before is gone), and the facts
	// of the returned value or exception; at the reply to a PopFrames (an
	// IDE's Drop Frame), the thread's frames (family_popframes.go).
	FamilyInvoke

	// AllFamilies is the default.
	AllFamilies = FamilyClass | FamilyStop | FamilyTopFrame | FamilyValues | FamilyAgain | FamilyThreads | FamilyAttach | FamilyPrepare | FamilyInvoke
)

// String names the families of f, as their constants do without "Family"
// ("Class|Stop"), or gives the bits no family has.
func (f Family) String() string {
	if f == 0 {
		return "none"
	}
	var names []string
	for _, fam := range families {
		if f&fam.flag != 0 {
			names = append(names, familyNames[fam.flag])
			f &^= fam.flag
		}
	}
	if f != 0 {
		names = append(names, fmt.Sprintf("%#x", uint16(f)))
	}
	return strings.Join(names, "|")
}

// familyNames names the families of the table.
var familyNames = map[Family]string{
	FamilyClass: "Class", FamilyStop: "Stop", FamilyTopFrame: "TopFrame", FamilyValues: "Values",
	FamilyAgain: "Again", FamilyThreads: "Threads", FamilyAttach: "Attach", FamilyPrepare: "Prepare",
	FamilyInvoke: "Invoke",
}

// A family is one entry of the table.
type family struct {
	flag Family
	// life is the lifetime of what the family caches. A family whose
	// entries live for a suspension epoch runs only with the state cache on.
	life lifetime
	// classic, when set, is the entry that runs in this one's place under
	// Classic: the original jdwp-scache's speculation.
	classic *family

	// What the family speculates on; each runs only while the family is on.

	// onStop runs at a trusted stop of a thread at a location, in table order.
	onStop func(s *Speculator, stop stopEvent)
	// onPrepare runs at a ClassPrepare event that suspends, for its class.
	onPrepare func(s *Speculator, class jdwp.ReferenceTypeID)
	// onQuiet runs at an event that suspends every thread and stops none at
	// a location: the VMStart of a VM started suspended (start: the
	// debugger is attaching), or a class prepared.
	onQuiet func(s *Speculator, start bool)
	// onPaused runs at the reply to the debugger's VirtualMachine.Suspend
	// once it proved every thread suspended: a user pressed an IDE's
	// Pause, and the IDE refreshes its threads view.
	onPaused func(s *Speculator)
	// onBehind runs as the debugger's VirtualMachine.Suspend or
	// StackFrame.PopFrames (cmd; back: the thread whose frames it pops and
	// where it will stand) goes out, with nothing unanswered that may let
	// threads run: what the family reads at its reply may go out right
	// behind it (behind.go: enqueueBehind).
	onBehind func(s *Speculator, cmd jdwp.Command, back stopEvent)
	// onReply runs on the successful reply to any of its commands, the
	// debugger's or (except in Classic) a synthetic one. A trigger command
	// whose reply is state of a suspension fires only for a reply that is
	// still true: cached under its key, not invalidated, of the current
	// epoch, or with parkedToo about a parked thread (parked.go).
	onReply   map[jdwp.Command]func(s *Speculator, p *inFlight, reply *replyData) error
	parkedToo bool
	// onInvoked runs at the successful reply to an invocation or a
	// PopFrames (suspendsAgain), after the onReply handlers of every
	// family; s.stop.invoked says whether its thread is back where it
	// stood (or, popped, at the caller).
	onInvoked func(s *Speculator, id uint32)
	// onAsked runs when the debugger asks a state command the policy
	// caches, whatever answers it (at a near half, when the far half tells
	// it answered one: then m may be nil, and key says it all; m may be
	// the Speculator's scratch message, decoded into again at the next
	// command of its kind, so what is kept of it is key); onMissed when
	// nothing answered a cacheable command and it goes to the VM.
	onAsked  func(s *Speculator, key Key, m jdwp.CommandMessage)
	onMissed func(s *Speculator, m jdwp.CommandMessage, life lifetime)

	// The life of the stop, for what the family keeps of it; each runs
	// whether the family is on or not, so that what it keeps stays true.

	// onEndStop runs when a suspension epoch ends, before the stop's
	// owner closes the stop (s.stop still tells it); unseen: the stop's
	// thread stays parked, and the debugger may not have looked at it yet
	// (Speculator.stopUnseen).
	onEndStop func(s *Speculator, unseen bool)
	// onValuesChanged runs when the debugger changed values, once the
	// values cached, in flight or queued are dropped: dropped holds their
	// keys, sorted.
	onValuesChanged func(s *Speculator, dropped []Key)
	// onResumed runs when the debugger sends a command that lets thread
	// run (0: every thread), and with others the other threads too.
	onResumed func(s *Speculator, thread jdwp.ThreadID, others bool)
	// onSuspended runs when the VM suspends thread (0: every thread), and
	// with others the other threads too: at an event that suspends, a
	// Suspend command, the end of an invocation.
	onSuspended func(s *Speculator, thread jdwp.ThreadID, others bool)
	// onRanUncounted runs when the debugger sends a command that lets
	// thread run and suspends it again in a way no count follows
	// (PopFrames: the agent resumes the thread on its own to pop).
	onRanUncounted func(s *Speculator, thread jdwp.ThreadID)
	// onInvoking runs when the debugger sends the invocation id, before
	// the epoch ends.
	onInvoking func(s *Speculator, id uint32)
	// onReset runs when the Speculator forgets everything (VM death,
	// Dispose, new id sizes, Close): the ids it kept may mean nothing.
	onReset func(s *Speculator)

	// sends lists the commands the family sends, each keyable (cached for
	// its own lifetime: a state family may send class metadata it needs).
	sends []jdwp.Command
}

// families is the table, in the order their commands are queued.
var families = []*family{
	{
		flag: FamilyClass, life: lifetimeClass,
		onStop: speculateStopLocation,
		onReply: map[jdwp.Command]func(*Speculator, *inFlight, *replyData) error{
			jdwp.CmdThreadReferenceFrames: speculateFrames,
			// the supertypes they name (family_class_hierarchy.go)
			jdwp.CmdClassTypeSuperclass:     onSupertypes,
			jdwp.CmdReferenceTypeInterfaces: onSupertypes,
		},
		onMissed: noteSupertypeAsk,
		onReset:  resetWalk,
		sends: append([]jdwp.Command{jdwp.CmdReferenceTypeSignatureWithGeneric, jdwp.CmdReferenceTypeFieldsWithGeneric},
			defaultFrameSet...),
		classic: &family{
			flag: FamilyClass, life: lifetimeClass,
			onReply: map[jdwp.Command]func(*Speculator, *inFlight, *replyData) error{
				jdwp.CmdThreadReferenceFrames: speculateClassicFrames,
			},
			sends: classicFrameSet,
		},
	},
	{
		flag: FamilyStop, life: lifetimeSuspension,
		onStop:   speculateStop,
		onMissed: walkStop,
		sends:    []jdwp.Command{jdwp.CmdThreadReferenceFrames, jdwp.CmdThreadReferenceName},
	},
	{
		flag: FamilyTopFrame, life: lifetimeSuspension, parkedToo: true,
		onStop: predictTop,
		onReply: map[jdwp.Command]func(*Speculator, *inFlight, *replyData) error{
			jdwp.CmdThreadReferenceFrames:           onFrames,
			jdwp.CmdReferenceTypeMethodsWithGeneric: onTopMetadata,
			jdwp.CmdMethodVariableTableWithGeneric:  onTopMetadata,
		},
		onAsked:         noteDeeper,
		onValuesChanged: askFramesValuesAgain,
		onResumed:       resumePredictor,
		onSuspended:     suspendPredictor,
		onRanUncounted:  losePredictor,
		onEndStop:       endDeeperStop,
		onReset:         resetTopFrame,
		sends: []jdwp.Command{jdwp.CmdStackFrameThisObject, jdwp.CmdStackFrameGetValues,
			jdwp.CmdReferenceTypeMethodsWithGeneric, jdwp.CmdMethodVariableTableWithGeneric},
	},
	{
		flag: FamilyValues, life: lifetimeSuspension,
		onStop: speculateShown,
		onReply: map[jdwp.Command]func(*Speculator, *inFlight, *replyData) error{
			jdwp.CmdStackFrameGetValues:  onValues,
			jdwp.CmdStackFrameThisObject: onValues,
			// what FamilyAgain asks: the fields of objects, statics
			jdwp.CmdObjectReferenceGetValues: onObjectValues,
			jdwp.CmdReferenceTypeGetValues:   onValues,
			// an expanded array's elements
			jdwp.CmdArrayReferenceGetValues: onValues,
		},
		onAsked: noteFieldAsked,
		onReset: resetEachField,
		sends: []jdwp.Command{jdwp.CmdObjectReferenceReferenceType, jdwp.CmdStringReferenceValue, jdwp.CmdArrayReferenceLength,
			jdwp.CmdObjectReferenceGetValues},
	},
	{
		flag: FamilyAgain, life: lifetimeSuspension,
		onStop: askAgainInOrder,
		onReply: map[jdwp.Command]func(*Speculator, *inFlight, *replyData) error{
			jdwp.CmdThreadReferenceFrames:        sawFrames,
			jdwp.CmdStackFrameThisObject:         askThisFields,
			jdwp.CmdObjectReferenceReferenceType: onThisType,
			jdwp.CmdObjectReferenceGetValues:     onThisValues,
			jdwp.CmdStackFrameGetValues:          observeLocals,
			jdwp.CmdArrayReferenceLength:         onHeldArrayLength,
		},
		onInvoked:       askAgainAfterInvocation,
		onBehind:        askAgainBehindPop,
		onAsked:         noteAgainAsked,
		onMissed:        askValuesReadAgain,
		onValuesChanged: askValuesAgainInOrder,
		onEndStop:       endAgainStop,
		onInvoking:      noteInvoking,
		onReset:         resetAgain,
		sends:           againCommands(),
	},
	{
		flag: FamilyThreads, life: lifetimeSuspension,
		onStop:   speculateThreads,
		onQuiet:  speculateThreadList,
		onPaused: speculatePausedView,
		onBehind: speculatePausingView,
		onReply: map[jdwp.Command]func(*Speculator, *inFlight, *replyData) error{
			jdwp.CmdVirtualMachineAllThreads:           onAllThreads,
			jdwp.CmdVirtualMachineTopLevelThreadGroups: onThreadGroups,
			jdwp.CmdThreadGroupReferenceChildren:       onGroupChildren,
		},
		onAsked:         noteViewAsked,
		onMissed:        onViewMissed,
		onValuesChanged: askReadsAfterWrite,
		onReset:         resetThreadsView,
		sends: []jdwp.Command{jdwp.CmdVirtualMachineAllThreads, jdwp.CmdThreadReferenceStatus,
			jdwp.CmdThreadReferenceFrameCount, jdwp.CmdThreadReferenceName, jdwp.CmdThreadReferenceFrames,
			jdwp.CmdThreadReferenceSuspendCount, jdwp.CmdThreadGroupReferenceChildren, jdwp.CmdThreadGroupReferenceName},
	},
	{
		flag: FamilyAttach, life: lifetimeSession,
		onReply: map[jdwp.Command]func(*Speculator, *inFlight, *replyData) error{
			jdwp.CmdVirtualMachineIDSizes: speculateAttach,
		},
		sends: []jdwp.Command{jdwp.CmdVirtualMachineIDSizes, jdwp.CmdVirtualMachineVersion, jdwp.CmdVirtualMachineCapabilitiesNew},
	},
	{
		flag: FamilyPrepare, life: lifetimeClass,
		onPrepare: speculatePrepared,
		onReply: map[jdwp.Command]func(*Speculator, *inFlight, *replyData) error{
			jdwp.CmdReferenceTypeMethodsWithGeneric:     onPreparedMethods,
			jdwp.CmdVirtualMachineAllClassesWithGeneric: recallAttach,
			jdwp.CmdVirtualMachineAllClasses:            recallAttach,
		},
		onMissed: askDeferredLineTables,
		onReset:  resetPrepared,
		sends:    append(append([]jdwp.Command(nil), prepareSet...), jdwp.CmdMethodLineTable),
	},
	{
		flag: FamilyInvoke, life: lifetimeSuspension,
		onBehind: askPoppedFrames,
		onReply: map[jdwp.Command]func(*Speculator, *inFlight, *replyData) error{
			jdwp.CmdObjectReferenceInvokeMethod: onInvoked,
			jdwp.CmdClassTypeInvokeMethod:       onInvoked,
			jdwp.CmdInterfaceTypeInvokeMethod:   onInvoked,
			jdwp.CmdClassTypeNewInstance:        onInvoked,
			jdwp.CmdStackFramePopFrames:         onPopped,
		},
		sends: []jdwp.Command{jdwp.CmdThreadReferenceFrames, jdwp.CmdStackFrameThisObject, jdwp.CmdStackFrameGetValues,
			jdwp.CmdReferenceTypeMethodsWithGeneric, jdwp.CmdMethodVariableTableWithGeneric,
			jdwp.CmdObjectReferenceReferenceType, jdwp.CmdStringReferenceValue, jdwp.CmdArrayReferenceLength},
	},
}

// familyState is what the families keep between packets, each family its
// own fields, kept true by its entry's hooks.
type familyState struct {
	again      againLog                      // what the debugger asked at its recent stops (family_again.go)
	guesses    idGuesses                     // the ids seen at recent stops, to guess the next stop's (family_again_guess.go)
	prepared   map[jdwp.ReferenceTypeID]bool // classes prepared whose line tables are to ask (family_prepare.go)
	recalled   map[jdwp.ReferenceTypeID]bool // classes of the attach memory whose line tables are to ask (family_prepare.go)
	deferred   []jdwp.ReferenceTypeID        // classes listed at a stop whose line tables wait for the debugger's first, oldest first (family_prepare_deferred.go)
	walk       hierarchyWalk                 // the supertypes the debugger walks (family_class_hierarchy.go)
	predictor  framePredictor                // the next stop's top frame id (family_topframe_predict.go)
	view       threadsView                   // the threads view sent at the stop (family_threads.go)
	deeper     deeperFrames                  // the frames below the top the debugger looks at (family_topframe_deeper.go)
	valuesRead valuesReads                   // the moving values the debugger read at the stop (family_again_moving.go)
	walked     uint64                        // the epoch whose stop went out again past the learner (family_stop_walk.go)
	eachField  eachFieldUse                  // what the debugger did after reading one field alone (family_values_each.go)
}

// newFamilyState returns the families' state of a new session, which
// reads the current stop from stop.
func newFamilyState(stop *stopState) familyState {
	return familyState{again: againLog{stop: stop}}
}

// A familyTable is the table as one Speculator runs it: each entry (its
// classic variant under Classic), and whether the configuration runs it.
// Its methods are the dispatchers, the mechanism's only way to the
// families: the handlers of what a family speculates on run only while it
// is on; the hooks of the stop's life run for every entry.
type familyTable []tableEntry

type tableEntry struct {
	*family
	on bool
}

// tableFor returns the table as the configuration runs it.
func tableFor(cfg config) familyTable {
	table := make(familyTable, len(families))
	for i, f := range families {
		if cfg.classic && f.classic != nil {
			f = f.classic
		}
		on := cfg.families&f.flag != 0 && (f.life != lifetimeSuspension || cfg.cacheState)
		table[i] = tableEntry{family: f, on: on}
	}
	return table
}

// on reports whether the family flag runs.
func (t familyTable) on(flag Family) bool {
	for _, f := range t {
		if f.flag == flag {
			return f.on
		}
	}
	return false
}

// stop runs the stop handlers of the families that are on, at the trusted
// stop the stop's owner began.
func (t familyTable) stop(s *Speculator, stop stopEvent) {
	for _, f := range t {
		if f.onStop != nil && f.on {
			f.onStop(s, stop)
		}
	}
}

// quiet runs the onQuiet handlers of the families that are on.
func (t familyTable) quiet(s *Speculator, start bool) {
	for _, f := range t {
		if f.onQuiet != nil && f.on {
			f.onQuiet(s, start)
		}
	}
}

// paused runs the onPaused handlers of the families that are on.
func (t familyTable) paused(s *Speculator) {
	for _, f := range t {
		if f.onPaused != nil && f.on {
			f.onPaused(s)
		}
	}
}

// behind runs the onBehind handlers of the families that are on.
func (t familyTable) behind(s *Speculator, cmd jdwp.Command, back stopEvent) {
	for _, f := range t {
		if f.onBehind != nil && f.on {
			f.onBehind(s, cmd, back)
		}
	}
}

// prepare runs the prepare handlers of the families that are on.
func (t familyTable) prepare(s *Speculator, class jdwp.ReferenceTypeID) {
	for _, f := range t {
		if f.onPrepare != nil && f.on {
			f.onPrepare(s, class)
		}
	}
}

// reply runs the reply handlers of the families that are on for the
// successful reply to p, then, for an invocation's or a PopFrames's
// (suspendsAgain), their onInvoked.
func (t familyTable) reply(s *Speculator, p *inFlight, reply *replyData) error {
	for _, f := range t {
		handle := f.onReply[p.cmd]
		if handle == nil || !f.on {
			continue
		}
		if f.life == lifetimeSuspension && StateCommand(p.cmd) && !s.susp.current(p) && !(f.parkedToo && s.susp.parkedReply(p)) {
			continue
		}
		if err := handle(s, p, reply); err != nil {
			return err
		}
	}
	if suspendsAgain(p.cmd) {
		for _, f := range t {
			if f.onInvoked != nil && f.on {
				f.onInvoked(s, p.id)
			}
		}
	}
	return nil
}

// asked runs the onAsked of the families that are on for a state command
// the debugger asked, with key and parameters m.
func (t familyTable) asked(s *Speculator, key Key, m jdwp.CommandMessage) {
	for _, f := range t {
		if f.onAsked != nil && f.on {
			f.onAsked(s, key, m)
		}
	}
}

// missed runs the onMissed of the families that are on for a cacheable
// command m of lifetime life nothing answered.
func (t familyTable) missed(s *Speculator, m jdwp.CommandMessage, life lifetime) {
	for _, f := range t {
		if f.onMissed != nil && f.on {
			f.onMissed(s, m, life)
		}
	}
}

// endStop runs every entry's onEndStop.
func (t familyTable) endStop(s *Speculator, unseen bool) {
	for _, f := range t {
		if f.onEndStop != nil {
			f.onEndStop(s, unseen)
		}
	}
}

// valuesChanged runs every entry's onValuesChanged.
func (t familyTable) valuesChanged(s *Speculator, dropped []Key) {
	for _, f := range t {
		if f.onValuesChanged != nil {
			f.onValuesChanged(s, dropped)
		}
	}
}

// resumed runs every entry's onResumed.
func (t familyTable) resumed(s *Speculator, thread jdwp.ThreadID, others bool) {
	for _, f := range t {
		if f.onResumed != nil {
			f.onResumed(s, thread, others)
		}
	}
}

// suspended runs every entry's onSuspended.
func (t familyTable) suspended(s *Speculator, thread jdwp.ThreadID, others bool) {
	for _, f := range t {
		if f.onSuspended != nil {
			f.onSuspended(s, thread, others)
		}
	}
}

// ranUncounted runs every entry's onRanUncounted.
func (t familyTable) ranUncounted(s *Speculator, thread jdwp.ThreadID) {
	for _, f := range t {
		if f.onRanUncounted != nil {
			f.onRanUncounted(s, thread)
		}
	}
}

// invoking runs every entry's onInvoking.
func (t familyTable) invoking(s *Speculator, id uint32) {
	for _, f := range t {
		if f.onInvoking != nil {
			f.onInvoking(s, id)
		}
	}
}

// reset runs every entry's onReset.
func (t familyTable) reset(s *Speculator) {
	for _, f := range t {
		if f.onReset != nil {
			f.onReset(s)
		}
	}
}

func errNoTypedReply(cmd jdwp.Command) error {
	return fmt.Errorf("no typed message for the reply to %s", cmd)
}

// replyData is a reply's data, decoded as its typed message on first use.
type replyData struct {
	cmd     jdwp.Command
	data    []byte
	msg     jdwp.Message
	decoded bool
	err     error
}

// typed returns the reply decoded as its command's typed reply message.
func (r *replyData) typed(s *Speculator) (jdwp.Message, error) {
	if !r.decoded {
		r.decoded = true
		r.msg = jdwp.NewReplyMessage(r.cmd)
		if r.msg == nil {
			r.err = errNoTypedReply(r.cmd)
		} else {
			r.err = jdwp.Unmarshal(r.data, s.sizes, r.msg)
		}
	}
	return r.msg, r.err
}
