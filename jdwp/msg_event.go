package jdwp

// The Event command set (64): Composite (100), the only command a VM sends.

// An Event is one event of a Composite. The concrete types are the *Event
// types of this package; several kinds share a layout and so a type, whose
// EventKind field says which kind it is.
type Event interface {
	Kind() EventKind
	// Request returns the id of the event request that caused the event; 0 for
	// an automatically generated VMStart or VMDeath.
	Request() int32
	encode(w *Writer)
	decode(r *Reader)
}

// ThreadEvent is a VM_START, THREAD_START or THREAD_DEATH event.
type ThreadEvent struct {
	EventKind EventKind
	RequestID int32
	Thread    ThreadID
}

// LocationEvent is a SINGLE_STEP, BREAKPOINT, METHOD_ENTRY or METHOD_EXIT event.
type LocationEvent struct {
	EventKind EventKind
	RequestID int32
	Thread    ThreadID
	Location  Location
}

// MethodExitWithReturnValueEvent is a METHOD_EXIT_WITH_RETURN_VALUE event.
type MethodExitWithReturnValueEvent struct {
	RequestID int32
	Thread    ThreadID
	Location  Location
	Value     Value
}

// MonitorContendedEvent is a MONITOR_CONTENDED_ENTER or MONITOR_CONTENDED_ENTERED event.
type MonitorContendedEvent struct {
	EventKind EventKind
	RequestID int32
	Thread    ThreadID
	Object    TaggedObjectID
	Location  Location
}

// MonitorWaitEvent is a MONITOR_WAIT event.
type MonitorWaitEvent struct {
	RequestID int32
	Thread    ThreadID
	Object    TaggedObjectID
	Location  Location
	Timeout   int64
}

// MonitorWaitedEvent is a MONITOR_WAITED event.
type MonitorWaitedEvent struct {
	RequestID int32
	Thread    ThreadID
	Object    TaggedObjectID
	Location  Location
	TimedOut  bool
}

// ExceptionEvent is an EXCEPTION event. CatchLocation is zero for an uncaught exception.
type ExceptionEvent struct {
	RequestID     int32
	Thread        ThreadID
	Location      Location
	Exception     TaggedObjectID
	CatchLocation Location
}

// ClassPrepareEvent is a CLASS_PREPARE event.
type ClassPrepareEvent struct {
	RequestID int32
	Thread    ThreadID
	TypeTag   TypeTag
	TypeID    ReferenceTypeID
	Signature string
	Status    int32
}

// ClassUnloadEvent is a CLASS_UNLOAD event: only the signature is known.
type ClassUnloadEvent struct {
	RequestID int32
	Signature string
}

// FieldAccessEvent is a FIELD_ACCESS event. Object is null for a static field.
type FieldAccessEvent struct {
	RequestID int32
	Thread    ThreadID
	Location  Location
	TypeTag   TypeTag
	TypeID    ReferenceTypeID
	Field     FieldID
	Object    TaggedObjectID
}

// FieldModificationEvent is a FIELD_MODIFICATION event.
type FieldModificationEvent struct {
	RequestID int32
	Thread    ThreadID
	Location  Location
	TypeTag   TypeTag
	TypeID    ReferenceTypeID
	Field     FieldID
	Object    TaggedObjectID
	ValueToBe Value
}

// VMDeathEvent is a VM_DEATH event.
type VMDeathEvent struct{ RequestID int32 }

// UnspecifiedEvent is an event of a kind that the specification gives no
// layout in a Composite (FRAME_POP, USER_DEFINED, CLASS_LOAD, EXCEPTION_CATCH,
// or a kind it does not define). No VM sends them; since where its data ends
// cannot be known, Data holds the rest of the packet, and such an event can
// only be the last of its composite.
type UnspecifiedEvent struct {
	EventKind EventKind
	Data      []byte
}

// Kind implements Event.
func (e *ThreadEvent) Kind() EventKind                  { return e.EventKind }
func (e *LocationEvent) Kind() EventKind                { return e.EventKind }
func (*MethodExitWithReturnValueEvent) Kind() EventKind { return EventMethodExitWithReturnValue }
func (e *MonitorContendedEvent) Kind() EventKind        { return e.EventKind }
func (*MonitorWaitEvent) Kind() EventKind               { return EventMonitorWait }
func (*MonitorWaitedEvent) Kind() EventKind             { return EventMonitorWaited }
func (*ExceptionEvent) Kind() EventKind                 { return EventException }
func (*ClassPrepareEvent) Kind() EventKind              { return EventClassPrepare }
func (*ClassUnloadEvent) Kind() EventKind               { return EventClassUnload }
func (*FieldAccessEvent) Kind() EventKind               { return EventFieldAccess }
func (*FieldModificationEvent) Kind() EventKind         { return EventFieldModification }
func (*VMDeathEvent) Kind() EventKind                   { return EventVMDeath }
func (e *UnspecifiedEvent) Kind() EventKind             { return e.EventKind }

// Request implements Event.
func (e *ThreadEvent) Request() int32                    { return e.RequestID }
func (e *LocationEvent) Request() int32                  { return e.RequestID }
func (e *MethodExitWithReturnValueEvent) Request() int32 { return e.RequestID }
func (e *MonitorContendedEvent) Request() int32          { return e.RequestID }
func (e *MonitorWaitEvent) Request() int32               { return e.RequestID }
func (e *MonitorWaitedEvent) Request() int32             { return e.RequestID }
func (e *ExceptionEvent) Request() int32                 { return e.RequestID }
func (e *ClassPrepareEvent) Request() int32              { return e.RequestID }
func (e *ClassUnloadEvent) Request() int32               { return e.RequestID }
func (e *FieldAccessEvent) Request() int32               { return e.RequestID }
func (e *FieldModificationEvent) Request() int32         { return e.RequestID }
func (e *VMDeathEvent) Request() int32                   { return e.RequestID }
func (e *UnspecifiedEvent) Request() int32               { return 0 }

// EventThread returns the thread an event happened in. ClassUnload, VMDeath
// and unspecified events have none.
func EventThread(e Event) (ThreadID, bool) {
	switch e := e.(type) {
	case *ThreadEvent:
		return e.Thread, true
	case *ClassPrepareEvent:
		return e.Thread, true
	}
	if l, ok := locatedEvent(e); ok {
		return l.thread, true
	}
	return 0, false
}

// EventLocation returns where an event happened: the code location of a
// breakpoint, step, method entry or exit, exception throw, field access or
// modification, or monitor event. Thread start and death, class prepare and
// unload, and VM events have none.
func EventLocation(e Event) (Location, bool) {
	l, ok := locatedEvent(e)
	return l.location, ok
}

type threadLocation struct {
	thread   ThreadID
	location Location
}

// locatedEvent returns the thread and location of an event that has both.
func locatedEvent(e Event) (threadLocation, bool) {
	switch e := e.(type) {
	case *LocationEvent:
		return threadLocation{e.Thread, e.Location}, true
	case *MethodExitWithReturnValueEvent:
		return threadLocation{e.Thread, e.Location}, true
	case *MonitorContendedEvent:
		return threadLocation{e.Thread, e.Location}, true
	case *MonitorWaitEvent:
		return threadLocation{e.Thread, e.Location}, true
	case *MonitorWaitedEvent:
		return threadLocation{e.Thread, e.Location}, true
	case *ExceptionEvent:
		return threadLocation{e.Thread, e.Location}, true
	case *FieldAccessEvent:
		return threadLocation{e.Thread, e.Location}, true
	case *FieldModificationEvent:
		return threadLocation{e.Thread, e.Location}, true
	}
	return threadLocation{}, false
}

func (e *ThreadEvent) encode(w *Writer) { w.Int32(e.RequestID); w.ObjectID(e.Thread) }
func (e *ThreadEvent) decode(r *Reader) { e.RequestID, e.Thread = r.Int32(), r.ObjectID() }

func (e *LocationEvent) encode(w *Writer) {
	w.Int32(e.RequestID)
	w.ObjectID(e.Thread)
	w.Location(e.Location)
}

func (e *LocationEvent) decode(r *Reader) {
	e.RequestID, e.Thread, e.Location = r.Int32(), r.ObjectID(), r.Location()
}

func (e *MethodExitWithReturnValueEvent) encode(w *Writer) {
	w.Int32(e.RequestID)
	w.ObjectID(e.Thread)
	w.Location(e.Location)
	w.Value(e.Value)
}

func (e *MethodExitWithReturnValueEvent) decode(r *Reader) {
	e.RequestID, e.Thread, e.Location, e.Value = r.Int32(), r.ObjectID(), r.Location(), r.Value()
}

func (e *MonitorContendedEvent) encode(w *Writer) {
	w.Int32(e.RequestID)
	w.ObjectID(e.Thread)
	w.TaggedObjectID(e.Object)
	w.Location(e.Location)
}

func (e *MonitorContendedEvent) decode(r *Reader) {
	e.RequestID, e.Thread, e.Object, e.Location = r.Int32(), r.ObjectID(), r.TaggedObjectID(), r.Location()
}

func (e *MonitorWaitEvent) encode(w *Writer) {
	w.Int32(e.RequestID)
	w.ObjectID(e.Thread)
	w.TaggedObjectID(e.Object)
	w.Location(e.Location)
	w.Int64(e.Timeout)
}

func (e *MonitorWaitEvent) decode(r *Reader) {
	e.RequestID, e.Thread, e.Object, e.Location = r.Int32(), r.ObjectID(), r.TaggedObjectID(), r.Location()
	e.Timeout = r.Int64()
}

func (e *MonitorWaitedEvent) encode(w *Writer) {
	w.Int32(e.RequestID)
	w.ObjectID(e.Thread)
	w.TaggedObjectID(e.Object)
	w.Location(e.Location)
	w.Bool(e.TimedOut)
}

func (e *MonitorWaitedEvent) decode(r *Reader) {
	e.RequestID, e.Thread, e.Object, e.Location = r.Int32(), r.ObjectID(), r.TaggedObjectID(), r.Location()
	e.TimedOut = r.Bool()
}

func (e *ExceptionEvent) encode(w *Writer) {
	w.Int32(e.RequestID)
	w.ObjectID(e.Thread)
	w.Location(e.Location)
	w.TaggedObjectID(e.Exception)
	w.Location(e.CatchLocation)
}

func (e *ExceptionEvent) decode(r *Reader) {
	e.RequestID, e.Thread, e.Location = r.Int32(), r.ObjectID(), r.Location()
	e.Exception, e.CatchLocation = r.TaggedObjectID(), r.Location()
}

func (e *ClassPrepareEvent) encode(w *Writer) {
	w.Int32(e.RequestID)
	w.ObjectID(e.Thread)
	w.TypeTag(e.TypeTag)
	w.ReferenceTypeID(e.TypeID)
	w.String(e.Signature)
	w.Int32(e.Status)
}

func (e *ClassPrepareEvent) decode(r *Reader) {
	e.RequestID, e.Thread, e.TypeTag, e.TypeID = r.Int32(), r.ObjectID(), r.TypeTag(), r.ReferenceTypeID()
	e.Signature, e.Status = r.String(), r.Int32()
}

func (e *ClassUnloadEvent) encode(w *Writer) { w.Int32(e.RequestID); w.String(e.Signature) }
func (e *ClassUnloadEvent) decode(r *Reader) { e.RequestID, e.Signature = r.Int32(), r.String() }

func (e *FieldAccessEvent) encode(w *Writer) {
	w.Int32(e.RequestID)
	w.ObjectID(e.Thread)
	w.Location(e.Location)
	w.TypeTag(e.TypeTag)
	w.ReferenceTypeID(e.TypeID)
	w.FieldID(e.Field)
	w.TaggedObjectID(e.Object)
}

func (e *FieldAccessEvent) decode(r *Reader) {
	e.RequestID, e.Thread, e.Location = r.Int32(), r.ObjectID(), r.Location()
	e.TypeTag, e.TypeID, e.Field, e.Object = r.TypeTag(), r.ReferenceTypeID(), r.FieldID(), r.TaggedObjectID()
}

func (e *FieldModificationEvent) encode(w *Writer) {
	w.Int32(e.RequestID)
	w.ObjectID(e.Thread)
	w.Location(e.Location)
	w.TypeTag(e.TypeTag)
	w.ReferenceTypeID(e.TypeID)
	w.FieldID(e.Field)
	w.TaggedObjectID(e.Object)
	w.Value(e.ValueToBe)
}

func (e *FieldModificationEvent) decode(r *Reader) {
	e.RequestID, e.Thread, e.Location = r.Int32(), r.ObjectID(), r.Location()
	e.TypeTag, e.TypeID, e.Field, e.Object = r.TypeTag(), r.ReferenceTypeID(), r.FieldID(), r.TaggedObjectID()
	e.ValueToBe = r.Value()
}

func (e *VMDeathEvent) encode(w *Writer) { w.Int32(e.RequestID) }
func (e *VMDeathEvent) decode(r *Reader) { e.RequestID = r.Int32() }

func (e *UnspecifiedEvent) encode(w *Writer) { w.Raw(e.Data) }
func (e *UnspecifiedEvent) decode(r *Reader) { e.Data = r.Rest() }

// newEvent returns a zero event of a kind.
func newEvent(k EventKind) Event {
	switch k {
	case EventVMStart, EventThreadStart, EventThreadDeath:
		return &ThreadEvent{EventKind: k}
	case EventSingleStep, EventBreakpoint, EventMethodEntry, EventMethodExit:
		return &LocationEvent{EventKind: k}
	case EventMethodExitWithReturnValue:
		return &MethodExitWithReturnValueEvent{}
	case EventMonitorContendedEnter, EventMonitorContendedEntered:
		return &MonitorContendedEvent{EventKind: k}
	case EventMonitorWait:
		return &MonitorWaitEvent{}
	case EventMonitorWaited:
		return &MonitorWaitedEvent{}
	case EventException:
		return &ExceptionEvent{}
	case EventClassPrepare:
		return &ClassPrepareEvent{}
	case EventClassUnload:
		return &ClassUnloadEvent{}
	case EventFieldAccess:
		return &FieldAccessEvent{}
	case EventFieldModification:
		return &FieldModificationEvent{}
	case EventVMDeath:
		return &VMDeathEvent{}
	}
	return &UnspecifiedEvent{EventKind: k}
}

// Composite is the data of an Event.Composite command: the events the VM
// reports together and the suspend policy applied.
type Composite struct {
	SuspendPolicy SuspendPolicy
	Events        []Event
}

// Command implements CommandMessage.
func (*Composite) Command() Command { return CmdEventComposite }

// Encode implements Message.
func (m *Composite) Encode(w *Writer) {
	w.Uint8(uint8(m.SuspendPolicy))
	w.Int32(int32(len(m.Events)))
	for _, e := range m.Events {
		w.Uint8(uint8(e.Kind()))
		e.encode(w)
	}
}

// Decode implements Message.
func (m *Composite) Decode(r *Reader) error {
	m.SuspendPolicy = SuspendPolicy(r.Uint8())
	n := r.Count(1) // an event of unspecified layout may be a lone kind byte
	m.Events = make([]Event, 0, n)
	for i := 0; i < n && r.Err() == nil; i++ {
		e := newEvent(EventKind(r.Uint8()))
		if r.Err() != nil {
			break
		}
		e.decode(r)
		m.Events = append(m.Events, e)
	}
	return r.Err()
}

// EventRequestOffsets returns where, in the data of an Event.Composite
// command, each event's request id is (a big-endian int32 right after the
// event's kind byte): every event but one of unspecified layout has one. A
// proxy that renames requests rewrites them in place.
func EventRequestOffsets(data []byte, sizes IDSizes) ([]int, error) {
	var r Reader
	r.Reset(data, sizes)
	r.Uint8() // suspend policy
	n := r.Count(1)
	var offsets []int
	for i := 0; i < n && r.Err() == nil; i++ {
		e := newEvent(EventKind(r.Uint8()))
		if r.Err() != nil {
			break
		}
		if _, unspecified := e.(*UnspecifiedEvent); !unspecified {
			offsets = append(offsets, r.Offset())
		}
		e.decode(&r)
	}
	if r.Err() != nil {
		return nil, r.Err()
	}
	return offsets, nil
}
