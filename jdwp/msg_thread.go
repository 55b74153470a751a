package jdwp

// Messages of the ThreadReference (11), StackFrame (16), ObjectReference (9)
// and StringReference (10) command sets.

// ThreadNameCommand asks for a thread's name (ThreadReference.Name). Its reply
// is a StringReply.
type ThreadNameCommand struct{ Thread ThreadID }

// Command implements CommandMessage.
func (*ThreadNameCommand) Command() Command { return CmdThreadReferenceName }

// Encode implements Message.
func (m *ThreadNameCommand) Encode(w *Writer) { w.ObjectID(m.Thread) }

// Decode implements Message.
func (m *ThreadNameCommand) Decode(r *Reader) error { m.Thread = r.ObjectID(); return r.Err() }

// ThreadFrameCountCommand asks for the depth of a suspended thread's stack
// (ThreadReference.FrameCount). Its reply is an IntReply.
type ThreadFrameCountCommand struct{ Thread ThreadID }

// Command implements CommandMessage.
func (*ThreadFrameCountCommand) Command() Command { return CmdThreadReferenceFrameCount }

// Encode implements Message.
func (m *ThreadFrameCountCommand) Encode(w *Writer) { w.ObjectID(m.Thread) }

// Decode implements Message.
func (m *ThreadFrameCountCommand) Decode(r *Reader) error { m.Thread = r.ObjectID(); return r.Err() }

// ThreadSuspendCountCommand asks how many times a thread is suspended
// (ThreadReference.SuspendCount). Its reply is an IntReply.
type ThreadSuspendCountCommand struct{ Thread ThreadID }

// Command implements CommandMessage.
func (*ThreadSuspendCountCommand) Command() Command { return CmdThreadReferenceSuspendCount }

// Encode implements Message.
func (m *ThreadSuspendCountCommand) Encode(w *Writer) { w.ObjectID(m.Thread) }

// Decode implements Message.
func (m *ThreadSuspendCountCommand) Decode(r *Reader) error { m.Thread = r.ObjectID(); return r.Err() }

// ThreadStatusCommand asks for a thread's status (ThreadReference.Status).
type ThreadStatusCommand struct{ Thread ThreadID }

// Command implements CommandMessage.
func (*ThreadStatusCommand) Command() Command { return CmdThreadReferenceStatus }

// Encode implements Message.
func (m *ThreadStatusCommand) Encode(w *Writer) { w.ObjectID(m.Thread) }

// Decode implements Message.
func (m *ThreadStatusCommand) Decode(r *Reader) error { m.Thread = r.ObjectID(); return r.Err() }

// ThreadStatusReply answers ThreadReference.Status.
type ThreadStatusReply struct {
	Status        ThreadStatus
	SuspendStatus int32
}

// Encode implements Message.
func (m *ThreadStatusReply) Encode(w *Writer) { w.Int32(int32(m.Status)); w.Int32(m.SuspendStatus) }

// Decode implements Message.
func (m *ThreadStatusReply) Decode(r *Reader) error {
	m.Status, m.SuspendStatus = ThreadStatus(r.Int32()), r.Int32()
	return r.Err()
}

// ThreadFramesCommand asks for frames of a suspended thread
// (ThreadReference.Frames). Length -1 means all frames from StartFrame.
type ThreadFramesCommand struct {
	Thread     ThreadID
	StartFrame int32
	Length     int32
}

// Command implements CommandMessage.
func (*ThreadFramesCommand) Command() Command { return CmdThreadReferenceFrames }

// Encode implements Message.
func (m *ThreadFramesCommand) Encode(w *Writer) {
	w.ObjectID(m.Thread)
	w.Int32(m.StartFrame)
	w.Int32(m.Length)
}

// Decode implements Message.
func (m *ThreadFramesCommand) Decode(r *Reader) error {
	m.Thread, m.StartFrame, m.Length = r.ObjectID(), r.Int32(), r.Int32()
	return r.Err()
}

// Frame is one frame of a Frames reply.
type Frame struct {
	Frame    FrameID
	Location Location
}

// ThreadFramesReply answers ThreadReference.Frames, top frame first.
type ThreadFramesReply struct{ Frames []Frame }

// Encode implements Message.
func (m *ThreadFramesReply) Encode(w *Writer) {
	w.Int32(int32(len(m.Frames)))
	for _, f := range m.Frames {
		w.FrameID(f.Frame)
		w.Location(f.Location)
	}
}

// Decode implements Message.
func (m *ThreadFramesReply) Decode(r *Reader) error {
	s := r.Sizes()
	m.Frames = make([]Frame, r.Count(s.FrameID+1+s.ReferenceTypeID+s.MethodID+8))
	for i := range m.Frames {
		m.Frames[i] = Frame{Frame: r.FrameID(), Location: r.Location()}
	}
	return r.Err()
}

// SlotRequest names one local variable of a StackFrame.GetValues command: its
// slot and the tag (signature byte) of its type.
type SlotRequest struct {
	Slot int32
	Tag  Tag
}

// FrameGetValuesCommand asks for local variables of a frame (StackFrame.GetValues).
type FrameGetValuesCommand struct {
	Thread ThreadID
	Frame  FrameID
	Slots  []SlotRequest
}

// Command implements CommandMessage.
func (*FrameGetValuesCommand) Command() Command { return CmdStackFrameGetValues }

// Encode implements Message.
func (m *FrameGetValuesCommand) Encode(w *Writer) {
	w.ObjectID(m.Thread)
	w.FrameID(m.Frame)
	w.Int32(int32(len(m.Slots)))
	for _, s := range m.Slots {
		w.Int32(s.Slot)
		w.Tag(s.Tag)
	}
}

// Decode implements Message.
func (m *FrameGetValuesCommand) Decode(r *Reader) error {
	m.Thread, m.Frame = r.ObjectID(), r.FrameID()
	m.Slots = make([]SlotRequest, r.Count(5))
	for i := range m.Slots {
		m.Slots[i] = SlotRequest{Slot: r.Int32(), Tag: r.Tag()}
	}
	return r.Err()
}

// ValuesReply is a reply holding tagged values (StackFrame.GetValues,
// ObjectReference.GetValues, ReferenceType.GetValues).
type ValuesReply struct{ Values []Value }

// Encode implements Message.
func (m *ValuesReply) Encode(w *Writer) {
	w.Int32(int32(len(m.Values)))
	for _, v := range m.Values {
		w.Value(v)
	}
}

// Decode implements Message.
func (m *ValuesReply) Decode(r *Reader) error {
	m.Values = make([]Value, r.Count(1))
	for i := range m.Values {
		m.Values[i] = r.Value()
	}
	return r.Err()
}

// FrameThisObjectCommand asks for the `this` of a frame (StackFrame.ThisObject).
type FrameThisObjectCommand struct {
	Thread ThreadID
	Frame  FrameID
}

// Command implements CommandMessage.
func (*FrameThisObjectCommand) Command() Command { return CmdStackFrameThisObject }

// Encode implements Message.
func (m *FrameThisObjectCommand) Encode(w *Writer) { w.ObjectID(m.Thread); w.FrameID(m.Frame) }

// Decode implements Message.
func (m *FrameThisObjectCommand) Decode(r *Reader) error {
	m.Thread, m.Frame = r.ObjectID(), r.FrameID()
	return r.Err()
}

// FramePopFramesCommand pops a frame of a suspended thread and every frame
// above it (StackFrame.PopFrames); the reply is empty.
type FramePopFramesCommand struct {
	Thread ThreadID
	Frame  FrameID
}

// Command implements CommandMessage.
func (*FramePopFramesCommand) Command() Command { return CmdStackFramePopFrames }

// Encode implements Message.
func (m *FramePopFramesCommand) Encode(w *Writer) { w.ObjectID(m.Thread); w.FrameID(m.Frame) }

// Decode implements Message.
func (m *FramePopFramesCommand) Decode(r *Reader) error {
	m.Thread, m.Frame = r.ObjectID(), r.FrameID()
	return r.Err()
}

// TaggedObjectReply answers StackFrame.ThisObject: the object, or id 0 in a
// static or native method.
type TaggedObjectReply struct{ Object TaggedObjectID }

// Encode implements Message.
func (m *TaggedObjectReply) Encode(w *Writer) { w.TaggedObjectID(m.Object) }

// Decode implements Message.
func (m *TaggedObjectReply) Decode(r *Reader) error { m.Object = r.TaggedObjectID(); return r.Err() }

// ObjectRefReferenceTypeCommand asks for an object's runtime type
// (ObjectReference.ReferenceType).
type ObjectRefReferenceTypeCommand struct{ Object ObjectID }

// Encode implements Message.
func (m *ObjectRefReferenceTypeCommand) Encode(w *Writer) { w.ObjectID(m.Object) }

// Decode implements Message.
func (m *ObjectRefReferenceTypeCommand) Decode(r *Reader) error {
	m.Object = r.ObjectID()
	return r.Err()
}

// Command implements CommandMessage.
func (*ObjectRefReferenceTypeCommand) Command() Command { return CmdObjectReferenceReferenceType }

// ObjectRefReferenceTypeReply answers ObjectReference.ReferenceType.
type ObjectRefReferenceTypeReply struct {
	TypeTag TypeTag
	TypeID  ReferenceTypeID
}

// Encode implements Message.
func (m *ObjectRefReferenceTypeReply) Encode(w *Writer) {
	w.TypeTag(m.TypeTag)
	w.ReferenceTypeID(m.TypeID)
}

// Decode implements Message.
func (m *ObjectRefReferenceTypeReply) Decode(r *Reader) error {
	m.TypeTag, m.TypeID = r.TypeTag(), r.ReferenceTypeID()
	return r.Err()
}

// StringRefValueCommand asks for a string object's characters
// (StringReference.Value). Its reply is a StringReply.
type StringRefValueCommand struct{ Object ObjectID }

// Encode implements Message.
func (m *StringRefValueCommand) Encode(w *Writer) { w.ObjectID(m.Object) }

// Decode implements Message.
func (m *StringRefValueCommand) Decode(r *Reader) error { m.Object = r.ObjectID(); return r.Err() }

// Command implements CommandMessage.
func (*StringRefValueCommand) Command() Command { return CmdStringReferenceValue }

// ArrayRefLengthCommand asks for the length of an array
// (ArrayReference.Length). Its reply is an IntReply.
type ArrayRefLengthCommand struct{ Array ObjectID }

// Command implements CommandMessage.
func (*ArrayRefLengthCommand) Command() Command { return CmdArrayReferenceLength }

// Encode implements Message.
func (m *ArrayRefLengthCommand) Encode(w *Writer) { w.ObjectID(m.Array) }

// Decode implements Message.
func (m *ArrayRefLengthCommand) Decode(r *Reader) error { m.Array = r.ObjectID(); return r.Err() }

// ObjectRefGetValuesCommand asks for the values of fields of an object
// (ObjectReference.GetValues). Its reply is a ValuesReply.
type ObjectRefGetValuesCommand struct {
	Object ObjectID
	Fields []FieldID
}

// Command implements CommandMessage.
func (*ObjectRefGetValuesCommand) Command() Command { return CmdObjectReferenceGetValues }

// Encode implements Message.
func (m *ObjectRefGetValuesCommand) Encode(w *Writer) {
	w.ObjectID(m.Object)
	w.Int32(int32(len(m.Fields)))
	for _, f := range m.Fields {
		w.FieldID(f)
	}
}

// Decode implements Message.
func (m *ObjectRefGetValuesCommand) Decode(r *Reader) error {
	m.Object = r.ObjectID()
	m.Fields = make([]FieldID, r.Count(r.sizes.FieldID))
	for i := range m.Fields {
		m.Fields[i] = r.FieldID()
	}
	return r.Err()
}

// ThreadSuspendCommand suspends a thread once more
// (ThreadReference.Suspend): suspends are counted, and the thread runs
// again only once resumed as many times. Its reply is empty.
type ThreadSuspendCommand struct{ Thread ThreadID }

// Command implements CommandMessage.
func (*ThreadSuspendCommand) Command() Command { return CmdThreadReferenceSuspend }

// Encode implements Message.
func (m *ThreadSuspendCommand) Encode(w *Writer) { w.ObjectID(m.Thread) }

// Decode implements Message.
func (m *ThreadSuspendCommand) Decode(r *Reader) error { m.Thread = r.ObjectID(); return r.Err() }

// ThreadResumeCommand resumes a thread once (ThreadReference.Resume). Its
// reply is empty.
type ThreadResumeCommand struct{ Thread ThreadID }

// Command implements CommandMessage.
func (*ThreadResumeCommand) Command() Command { return CmdThreadReferenceResume }

// Encode implements Message.
func (m *ThreadResumeCommand) Encode(w *Writer) { w.ObjectID(m.Thread) }

// Decode implements Message.
func (m *ThreadResumeCommand) Decode(r *Reader) error { m.Thread = r.ObjectID(); return r.Err() }
