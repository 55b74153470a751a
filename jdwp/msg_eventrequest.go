package jdwp

import "fmt"

// Messages of the EventRequest command set (15).

// A Modifier narrows an event request (EventRequest.Set). The concrete types
// are the *Modifier types of this package, one per ModKind.
type Modifier interface {
	Kind() ModKind
	encode(w *Writer)
	decode(r *Reader)
}

// CountModifier reports an event only once, after Count occurrences.
type CountModifier struct{ Count int32 }

// ConditionalModifier is reserved by the specification (expression id).
type ConditionalModifier struct{ ExprID int32 }

// ThreadOnlyModifier restricts events to one thread.
type ThreadOnlyModifier struct{ Thread ThreadID }

// ClassOnlyModifier restricts events to a type and its subtypes.
type ClassOnlyModifier struct{ Class ReferenceTypeID }

// ClassMatchModifier restricts events to classes whose name matches Pattern ("java.*").
type ClassMatchModifier struct{ Pattern string }

// ClassExcludeModifier excludes classes whose name matches Pattern.
type ClassExcludeModifier struct{ Pattern string }

// LocationOnlyModifier restricts events to one location (breakpoints).
type LocationOnlyModifier struct{ Location Location }

// ExceptionOnlyModifier restricts exception events to a type (0: any) and to
// caught and/or uncaught exceptions.
type ExceptionOnlyModifier struct {
	Exception ReferenceTypeID
	Caught    bool
	Uncaught  bool
}

// FieldOnlyModifier restricts watchpoint events to one field.
type FieldOnlyModifier struct {
	Class ReferenceTypeID
	Field FieldID
}

// StepModifier makes a step request: a thread, a size and a depth.
type StepModifier struct {
	Thread ThreadID
	Size   StepSize
	Depth  StepDepth
}

// InstanceOnlyModifier restricts events to those whose `this` is Instance.
type InstanceOnlyModifier struct{ Instance ObjectID }

// SourceNameMatchModifier restricts class prepare events to source names matching Pattern.
type SourceNameMatchModifier struct{ Pattern string }

// PlatformThreadsOnlyModifier restricts thread events to platform threads
// (JDWP of Java 21; carries no data).
type PlatformThreadsOnlyModifier struct{}

// Kind implements Modifier.
func (*CountModifier) Kind() ModKind               { return ModCount }
func (*ConditionalModifier) Kind() ModKind         { return ModConditional }
func (*ThreadOnlyModifier) Kind() ModKind          { return ModThreadOnly }
func (*ClassOnlyModifier) Kind() ModKind           { return ModClassOnly }
func (*ClassMatchModifier) Kind() ModKind          { return ModClassMatch }
func (*ClassExcludeModifier) Kind() ModKind        { return ModClassExclude }
func (*LocationOnlyModifier) Kind() ModKind        { return ModLocationOnly }
func (*ExceptionOnlyModifier) Kind() ModKind       { return ModExceptionOnly }
func (*FieldOnlyModifier) Kind() ModKind           { return ModFieldOnly }
func (*StepModifier) Kind() ModKind                { return ModStep }
func (*InstanceOnlyModifier) Kind() ModKind        { return ModInstanceOnly }
func (*SourceNameMatchModifier) Kind() ModKind     { return ModSourceNameMatch }
func (*PlatformThreadsOnlyModifier) Kind() ModKind { return ModPlatformThreadsOnly }

func (m *CountModifier) encode(w *Writer)           { w.Int32(m.Count) }
func (m *CountModifier) decode(r *Reader)           { m.Count = r.Int32() }
func (m *ConditionalModifier) encode(w *Writer)     { w.Int32(m.ExprID) }
func (m *ConditionalModifier) decode(r *Reader)     { m.ExprID = r.Int32() }
func (m *ThreadOnlyModifier) encode(w *Writer)      { w.ObjectID(m.Thread) }
func (m *ThreadOnlyModifier) decode(r *Reader)      { m.Thread = r.ObjectID() }
func (m *ClassOnlyModifier) encode(w *Writer)       { w.ReferenceTypeID(m.Class) }
func (m *ClassOnlyModifier) decode(r *Reader)       { m.Class = r.ReferenceTypeID() }
func (m *ClassMatchModifier) encode(w *Writer)      { w.String(m.Pattern) }
func (m *ClassMatchModifier) decode(r *Reader)      { m.Pattern = r.String() }
func (m *ClassExcludeModifier) encode(w *Writer)    { w.String(m.Pattern) }
func (m *ClassExcludeModifier) decode(r *Reader)    { m.Pattern = r.String() }
func (m *LocationOnlyModifier) encode(w *Writer)    { w.Location(m.Location) }
func (m *LocationOnlyModifier) decode(r *Reader)    { m.Location = r.Location() }
func (m *InstanceOnlyModifier) encode(w *Writer)    { w.ObjectID(m.Instance) }
func (m *InstanceOnlyModifier) decode(r *Reader)    { m.Instance = r.ObjectID() }
func (m *SourceNameMatchModifier) encode(w *Writer) { w.String(m.Pattern) }
func (m *SourceNameMatchModifier) decode(r *Reader) { m.Pattern = r.String() }
func (*PlatformThreadsOnlyModifier) encode(*Writer) {}
func (*PlatformThreadsOnlyModifier) decode(*Reader) {}

func (m *ExceptionOnlyModifier) encode(w *Writer) {
	w.ReferenceTypeID(m.Exception)
	w.Bool(m.Caught)
	w.Bool(m.Uncaught)
}

func (m *ExceptionOnlyModifier) decode(r *Reader) {
	m.Exception, m.Caught, m.Uncaught = r.ReferenceTypeID(), r.Bool(), r.Bool()
}

func (m *FieldOnlyModifier) encode(w *Writer) { w.ReferenceTypeID(m.Class); w.FieldID(m.Field) }
func (m *FieldOnlyModifier) decode(r *Reader) { m.Class, m.Field = r.ReferenceTypeID(), r.FieldID() }

func (m *StepModifier) encode(w *Writer) {
	w.ObjectID(m.Thread)
	w.Int32(int32(m.Size))
	w.Int32(int32(m.Depth))
}

func (m *StepModifier) decode(r *Reader) {
	m.Thread, m.Size, m.Depth = r.ObjectID(), StepSize(r.Int32()), StepDepth(r.Int32())
}

// newModifier returns a zero modifier of a kind, or nil for an unknown kind.
func newModifier(k ModKind) Modifier {
	switch k {
	case ModCount:
		return &CountModifier{}
	case ModConditional:
		return &ConditionalModifier{}
	case ModThreadOnly:
		return &ThreadOnlyModifier{}
	case ModClassOnly:
		return &ClassOnlyModifier{}
	case ModClassMatch:
		return &ClassMatchModifier{}
	case ModClassExclude:
		return &ClassExcludeModifier{}
	case ModLocationOnly:
		return &LocationOnlyModifier{}
	case ModExceptionOnly:
		return &ExceptionOnlyModifier{}
	case ModFieldOnly:
		return &FieldOnlyModifier{}
	case ModStep:
		return &StepModifier{}
	case ModInstanceOnly:
		return &InstanceOnlyModifier{}
	case ModSourceNameMatch:
		return &SourceNameMatchModifier{}
	case ModPlatformThreadsOnly:
		return &PlatformThreadsOnlyModifier{}
	}
	return nil
}

// EventRequestSetCommand creates an event request (EventRequest.Set). Its
// reply is an IntReply holding the request id.
type EventRequestSetCommand struct {
	EventKind     EventKind
	SuspendPolicy SuspendPolicy
	Modifiers     []Modifier
}

// Command implements CommandMessage.
func (*EventRequestSetCommand) Command() Command { return CmdEventRequestSet }

// Encode implements Message.
func (m *EventRequestSetCommand) Encode(w *Writer) {
	w.Uint8(uint8(m.EventKind))
	w.Uint8(uint8(m.SuspendPolicy))
	w.Int32(int32(len(m.Modifiers)))
	for _, mod := range m.Modifiers {
		w.Uint8(uint8(mod.Kind()))
		mod.encode(w)
	}
}

// Decode implements Message.
func (m *EventRequestSetCommand) Decode(r *Reader) error {
	m.EventKind, m.SuspendPolicy = EventKind(r.Uint8()), SuspendPolicy(r.Uint8())
	n := r.Count(1)
	m.Modifiers = make([]Modifier, 0, n)
	for i := 0; i < n && r.Err() == nil; i++ {
		k := ModKind(r.Uint8())
		mod := newModifier(k)
		if mod == nil {
			r.fail(fmt.Sprintf("modifier kind %d", k), ErrUnknownKind)
			break
		}
		mod.decode(r)
		m.Modifiers = append(m.Modifiers, mod)
	}
	return r.Err()
}

// EventRequestClearCommand removes an event request (EventRequest.Clear).
// Its reply is an EmptyReply.
type EventRequestClearCommand struct {
	EventKind EventKind
	RequestID int32
}

// Command implements CommandMessage.
func (*EventRequestClearCommand) Command() Command { return CmdEventRequestClear }

// Encode implements Message.
func (m *EventRequestClearCommand) Encode(w *Writer) {
	w.Uint8(uint8(m.EventKind))
	w.Int32(m.RequestID)
}

// Decode implements Message.
func (m *EventRequestClearCommand) Decode(r *Reader) error {
	m.EventKind, m.RequestID = EventKind(r.Uint8()), r.Int32()
	return r.Err()
}
