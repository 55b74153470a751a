package scache

import (
	"encoding/binary"
	"strings"

	"github.com/jdwpscache/scache/jdwp"
)

// Event request ids, and answering EventRequest.Set ahead. A debugger
// creates a step request at every step and waits for its reply, the
// request's id, before it resumes: a whole round trip whose answer the
// proxy can know. OpenJDK's agent (ART's too) numbers the requests a
// debugger creates from one counter, one id after the other. A Speculator
// that has seen the session's Set replies come in that order answers a
// debugger's step request at once with the next id, forwards the command
// in its place in the stream, and checks the VM's reply when it comes.
//
// It answers only what cannot fail, when no other request's reply is
// awaited but the ones it answered itself:
//   - a single step request of the thread whose event suspended it, while
//     nothing may have let it run, or of a parked thread (the agent cannot
//     refuse a live thread a step), with modifiers the agent accepts
//     whatever their values (a count above 0, class patterns);
//   - a request for the events of classes and threads (class prepare and
//     unload, thread start and death), which name nothing that may have
//     gone, with a count above 0 and, for classes, class patterns: what
//     every debugger asks as it attaches (the JDK's JDI its own class
//     prepare and unload requests, then the IDE's class prepare requests
//     for its deferred breakpoints), one round trip each;
//   - a request for exceptions (caught, uncaught or both) or for method
//     entries and exits, filtered by class patterns if at all: an IDE's
//     exception breakpoints and method breakpoints, which name nothing
//     either (the agent reads a null exception type as any);
//   - any of these but a thread's or an unload's, naming an exception type
//     or a class the session saw loaded (a ClassPrepare event, the class
//     list) and not unloaded: the agent refuses a class id only once the
//     class is gone, and a request about a class that is gone would never
//     fire either;
//   - a breakpoint request at a location within the line table the VM gave
//     for its method, or a watch of a field the VM listed for its class
//     (request_places.go): one round trip for every breakpoint an IDE
//     sets, at attach and at every click.
//
// A gap in the order (requests the debugger did not make) stops it until
// two replies are in order again.
//
// OpenJDK's agent (the reference implementation, which HotSpot and ART
// since Android 9 load) also restarts its counter when a debugger
// attaches: a session's first request gets id 2, and each Set takes the
// next, refused or not (eventHandler.c: the counter is set to 1 when a
// session begins, and incremented for each request). So once the VM's
// Version reply names that agent, before the session's first Set, the next
// id is known without two replies: the attach's Sets (the JDIs' own class
// and thread requests) are answered ahead from the first.

// Should the VM give another id anyway, the debugger keeps the id it was
// given: from then on the Speculator renames, in the events the VM sends
// and the Clears the debugger sends, every id whose two views differ, and
// answers no more Sets ahead. Should it answer an error (a VM dying while
// the command was in flight), the debugger holds a request the VM does not:
// Stats.AheadContradicted counts it and the Speculator logs it.
//
// requestIDs owns what is known of the ids; the Speculator's methods in
// this file are the stages that answer ahead, check the VM's reply and
// rename events, and only they change it.
type requestIDs struct {
	sets    int   // the debugger's Set commands seen
	replies int   // Set replies seen with an id
	last    int32 // the id of the last of them
	inOrder bool  // it was the one before + 1
	// off: a prediction failed, or too many Sets went unanswered; no more
	// Sets are answered ahead this session.
	off bool
	// forwarded counts the debugger's Set commands forwarded whose reply is
	// to come, by packet id; ahead holds, by packet id, the ids answered
	// ahead whose reply is to come (one at a time per packet id).
	forwarded map[uint32]int
	ahead     map[uint32]int32
	// Renamed ids, once the VM contradicted a prediction: the debugger's
	// id of a VM request, the VM's id of a debugger's request (noRequest:
	// none, the VM refused it), and the highest id the debugger was given.
	toDebugger, toVM map[int32]int32
	highest          int32
	// places holds, by place, the class id the session's breakpoint and
	// watch requests named there (request_places.go); placesFull, that
	// more places were named than it keeps.
	places     map[requestPlace]jdwp.ClassID
	placesFull bool
}

// noRequest stands, in requestIDs.toVM and in the Clears sent for them,
// for the VM's id of a request it does not have (one it refused, or one the
// debugger knows by no id): an id the VM never gives (OpenJDK's agent counts
// from 1; 0 is its own internal requests'). The VM answers a Clear of it as
// of any request it does not have.
const noRequest int32 = -1

// renaming reports whether some id has two views.
func (q *requestIDs) renaming() bool { return len(q.toVM) > 0 }

// next returns the id the VM will give the next request, and whether the
// session's replies say so: the last two in order, no other Set awaited.
func (q *requestIDs) next() (int32, bool) {
	if q.off || !q.inOrder || len(q.forwarded) > 0 {
		return 0, false
	}
	return q.last + int32(len(q.ahead)) + 1, true
}

// sessionStart takes note that the VM numbers this session's requests
// from 2 (OpenJDK's agent), if no Set was seen yet.
func (q *requestIDs) sessionStart() {
	if q.sets == 0 && !q.off {
		q.replies, q.last, q.inOrder = 1, 1, true
	}
}

// learn takes the id of a request the VM created, from a Set reply.
func (q *requestIDs) learn(id int32) {
	q.inOrder = q.replies > 0 && id == q.last+1
	q.replies++
	q.last = id
}

// rename records that the debugger knows the VM's request vm by the id d.
func (q *requestIDs) rename(vm, d int32) {
	if q.toVM == nil {
		q.toDebugger, q.toVM = make(map[int32]int32), make(map[int32]int32)
	}
	if vm != noRequest {
		q.toDebugger[vm] = d
	}
	q.toVM[d] = vm
	q.highest = max(q.highest, d)
}

// debuggerID returns the id the debugger is to be given for the VM's new
// request vm: vm itself unless the debugger already knows another request
// by it.
func (q *requestIDs) debuggerID(vm int32) int32 {
	q.highest = max(q.highest, vm)
	if _, taken := q.toVM[vm]; !taken || !q.renaming() {
		return vm
	}
	q.highest++
	q.rename(vm, q.highest)
	return q.highest
}

// aheadable reports whether a Set command asks for a request that the
// agent accepts whatever the VM does meanwhile (see requestIDs): a single
// step of the thread known suspended, the events of classes or threads,
// exceptions, or method entries and exits, with only modifiers the agent
// accepts whatever their values (a count above 0, class patterns but for
// the events of threads, a null exception type) or a class the session saw
// loaded; or a breakpoint at a line the VM gave, or a watch of a field it
// listed (aheadableBreakpoint, aheadableWatch).
func (s *Speculator) aheadable(m *jdwp.EventRequestSetCommand) bool {
	if m.SuspendPolicy > jdwp.SuspendPolicyAll {
		return false
	}
	step := m.EventKind == jdwp.EventSingleStep
	switch {
	case step:
		if !s.susp.settled() {
			return false
		}
	case m.EventKind == jdwp.EventThreadStart, m.EventKind == jdwp.EventThreadDeath,
		m.EventKind == jdwp.EventClassPrepare, m.EventKind == jdwp.EventClassUnload:
	case m.EventKind == jdwp.EventException, m.EventKind == jdwp.EventMethodEntry,
		m.EventKind == jdwp.EventMethodExit, m.EventKind == jdwp.EventMethodExitWithReturnValue:
	case m.EventKind == jdwp.EventBreakpoint:
		return aheadableBreakpoint(s, m)
	case m.EventKind == jdwp.EventFieldAccess, m.EventKind == jdwp.EventFieldModification:
		return aheadableWatch(s, m)
	default:
		return false
	}
	threads := m.EventKind == jdwp.EventThreadStart || m.EventKind == jdwp.EventThreadDeath
	steps := 0
	for _, mod := range m.Modifiers {
		switch mod := mod.(type) {
		case *jdwp.StepModifier:
			steps++
			if !step || !steppable(s, mod.Thread) || mod.Size < jdwp.StepSizeMin || mod.Size > jdwp.StepSizeLine ||
				mod.Depth < jdwp.StepDepthInto || mod.Depth > jdwp.StepDepthOut {
				return false
			}
		case *jdwp.CountModifier:
			if mod.Count <= 0 {
				return false
			}
		case *jdwp.ClassMatchModifier, *jdwp.ClassExcludeModifier:
			if threads {
				return false
			}
		case *jdwp.ExceptionOnlyModifier:
			if m.EventKind != jdwp.EventException || mod.Exception != 0 && !s.classes.known(mod.Exception) {
				return false
			}
		case *jdwp.ClassOnlyModifier:
			if threads || m.EventKind == jdwp.EventClassUnload || !s.classes.known(mod.Class) {
				return false
			}
		default:
			return false
		}
	}
	return !step || steps == 1
}

// steppable reports whether thread t is known suspended where an event
// left it, so that the agent cannot refuse it a step: the stopped thread
// while nothing may have let it run, or a parked thread (parked.go), which
// stays suspended at its own event until a command may let it run. A
// pause and the VirtualMachine.Resume that undoes it leave the threads
// parked: a debugger that pauses at a suspend-thread stop and steps on
// after the resume gets its step request answered ahead.
func steppable(s *Speculator, t jdwp.ThreadID) bool {
	return t != 0 && (t == s.susp.stopped && s.susp.kind != running || s.susp.isParked(t))
}

// onRequestCommand sees a debugger's command of the EventRequest set before
// anything else does. It answers a Set ahead, or renames the request a
// Clear names; it returns the packet to go on with and whether the command
// was dealt with.
func (s *Speculator) onRequestCommand(r *Response, h jdwp.Header, packet []byte) ([]byte, bool) {
	q := &s.requests
	switch h.Cmd() {
	case jdwp.CmdEventRequestSet:
		q.sets++
		var set *jdwp.EventRequestSetCommand // nil: it does not decode
		if m, err := s.decodeParams(h.Cmd(), jdwp.Data(packet)); err == nil {
			set = m.(*jdwp.EventRequestSetCommand)
			notePlaces(s, set)
		}
		if s.setAhead(r, h, packet, set) {
			return packet, true
		}
		if q.forwarded == nil {
			q.forwarded = make(map[uint32]int)
		}
		// Another Set forwarded with this id is fine: the VM answers in
		// order. Another command would leave which reply is the Set's a
		// guess; too many Sets unanswered, a VM that does not answer: stop
		// counting on the ids.
		_, busy := s.inflight.pending[h.ID]
		if busy || s.inflight.ahead[h.ID] > 0 || len(q.forwarded) >= s.cfg.maxOrganicIDs {
			q.off = true
			return packet, false
		}
		q.forwarded[h.ID]++
	case jdwp.CmdEventRequestClear:
		if !q.renaming() {
			return packet, false
		}
		m, err := s.decodeParams(h.Cmd(), jdwp.Data(packet))
		if err != nil {
			return packet, false
		}
		d := m.(*jdwp.EventRequestClearCommand).RequestID
		vm, renamed := q.toVM[d]
		if _, hidden := q.toDebugger[d]; !renamed && hidden {
			vm, renamed = noRequest, true // a VM id the debugger was not given
		}
		if renamed {
			b := s.scratch.up.copy(packet)
			binary.BigEndian.PutUint32(b[jdwp.HeaderSize+1:], uint32(vm))
			return b, false
		}
	}
	return packet, false
}

// setAhead answers a debugger's Set, decoded as set, at once with the id
// the VM will give it, when it may (see requestIDs), and reports whether
// it did.
func (s *Speculator) setAhead(r *Response, h jdwp.Header, packet []byte, set *jdwp.EventRequestSetCommand) bool {
	q := &s.requests
	if !s.enabled || !s.cfg.answerAhead || s.over || q.renaming() {
		return false
	}
	if s.replyAwaited(h.ID) || s.inflight.ahead[h.ID] > 0 {
		return false
	}
	id, ok := q.next()
	if !ok {
		return false
	}
	if set == nil || !s.aheadable(set) {
		return false
	}
	if q.ahead == nil {
		q.ahead = make(map[uint32]int32)
	}
	q.ahead[h.ID] = id
	var data [4]byte
	binary.BigEndian.PutUint32(data[:], uint32(id))
	s.forwardAndAnswer(r, h, packet, data[:])
	return true
}

// onSetReply checks the VM's reply to a Set, if the reply with header h is
// one: a reply to a Set answered ahead is absorbed (it reports true), and
// a forwarded one is returned, renamed if the debugger knows another
// request by its id.
func (s *Speculator) onSetReply(r *Response, h jdwp.Header, packet []byte) ([]byte, bool) {
	q := &s.requests
	if id, ok := q.ahead[h.ID]; ok {
		delete(q.ahead, h.ID)
		s.absorbLateReply(r, h, packet)
		vm, ok := replyInt(h, packet)
		switch {
		case !ok: // absorbLateReply counted and logged it
			q.off = true
			q.rename(noRequest, id)
		case vm != id:
			s.stats.AheadContradicted++
			s.log.Warn("scache: the VM gave a request answered ahead another id; renaming it", "answered", id, "vm", vm)
			q.learn(vm)
			q.off = true
			q.rename(vm, id)
		default:
			q.learn(vm)
			q.highest = max(q.highest, vm)
		}
		return packet, true
	}
	n := q.forwarded[h.ID]
	if n == 0 {
		return packet, false
	}
	if n == 1 {
		delete(q.forwarded, h.ID)
	} else {
		q.forwarded[h.ID] = n - 1
	}
	vm, ok := replyInt(h, packet)
	if !ok {
		return packet, false
	}
	q.learn(vm)
	if d := q.debuggerID(vm); d != vm {
		b := s.scratch.down.copy(packet)
		binary.BigEndian.PutUint32(b[jdwp.HeaderSize:], uint32(d))
		return b, false
	}
	return packet, false
}

// replyAwaited reports whether a reply with id is awaited, other than one
// to a Clear answered ahead: the debugger's command with id tracked, or its
// Set forwarded or answered ahead.
func (s *Speculator) replyAwaited(id uint32) bool {
	_, pending := s.inflight.pending[id]
	_, setAhead := s.requests.ahead[id]
	return pending || setAhead || s.requests.forwarded[id] > 0
}

// replyInt returns the int a successful reply carries (a Set's request id).
func replyInt(h jdwp.Header, packet []byte) (int32, bool) {
	data := jdwp.Data(packet)
	if h.ErrorCode != jdwp.ErrNone || len(data) != 4 {
		return 0, false
	}
	return int32(binary.BigEndian.Uint32(data)), true
}

// renameEvents returns an event packet from the VM with the request ids the
// debugger knows. A packet it cannot parse goes as it is: the Speculator
// is switched off by then, and ids are all it could rename.
func (s *Speculator) renameEvents(packet []byte) []byte {
	offsets, err := jdwp.EventRequestOffsets(jdwp.Data(packet), s.sizes)
	if err != nil {
		s.log.Warn("scache: an event packet's request ids cannot be renamed", "error", err)
		return packet
	}
	var b []byte
	for _, off := range offsets {
		at := jdwp.HeaderSize + off
		d, ok := s.requests.toDebugger[int32(binary.BigEndian.Uint32(packet[at:]))]
		if !ok {
			continue
		}
		if b == nil {
			b = s.scratch.down.copy(packet)
		}
		binary.BigEndian.PutUint32(b[at:], uint32(d))
	}
	if b == nil {
		return packet
	}
	return b
}

// referenceAgent reports whether a VM's Version description names
// OpenJDK's JDWP agent, the reference implementation ("Java Debug Wire
// Protocol (Reference Implementation) version 17.0", HotSpot's and ART's).
func referenceAgent(description string) bool {
	return strings.HasPrefix(description, "Java Debug Wire Protocol (Reference Implementation)")
}
