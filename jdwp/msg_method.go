package jdwp

// Messages of the Method command set (6).

// MethodLineTableCommand asks for a method's line number table (Method.LineTable).
type MethodLineTableCommand struct {
	RefType ReferenceTypeID
	Method  MethodID
}

// Encode implements Message.
func (m *MethodLineTableCommand) Encode(w *Writer) { encodeMethod(w, m.RefType, m.Method) }

// Decode implements Message.
func (m *MethodLineTableCommand) Decode(r *Reader) error {
	m.RefType, m.Method = r.ReferenceTypeID(), r.MethodID()
	return r.Err()
}

// Command implements CommandMessage.
func (*MethodLineTableCommand) Command() Command { return CmdMethodLineTable }

// LineEntry maps a code index to a source line.
type LineEntry struct {
	CodeIndex  uint64
	LineNumber int32
}

// MethodLineTableReply answers Method.LineTable. Start and End are -1 for native methods.
type MethodLineTableReply struct {
	Start int64
	End   int64
	Lines []LineEntry
}

// Encode implements Message.
func (m *MethodLineTableReply) Encode(w *Writer) {
	w.Int64(m.Start)
	w.Int64(m.End)
	w.Int32(int32(len(m.Lines)))
	for _, l := range m.Lines {
		w.Uint64(l.CodeIndex)
		w.Int32(l.LineNumber)
	}
}

// Decode implements Message.
func (m *MethodLineTableReply) Decode(r *Reader) error {
	m.Start, m.End = r.Int64(), r.Int64()
	m.Lines = make([]LineEntry, r.Count(12))
	for i := range m.Lines {
		m.Lines[i] = LineEntry{CodeIndex: r.Uint64(), LineNumber: r.Int32()}
	}
	return r.Err()
}

// MethodVariableTableCommand asks for a method's local variables (Method.VariableTable).
type MethodVariableTableCommand struct {
	RefType ReferenceTypeID
	Method  MethodID
}

// Encode implements Message.
func (m *MethodVariableTableCommand) Encode(w *Writer) { encodeMethod(w, m.RefType, m.Method) }

// Decode implements Message.
func (m *MethodVariableTableCommand) Decode(r *Reader) error {
	m.RefType, m.Method = r.ReferenceTypeID(), r.MethodID()
	return r.Err()
}

// Command implements CommandMessage.
func (*MethodVariableTableCommand) Command() Command { return CmdMethodVariableTable }

// MethodVariableTableWithGenericCommand asks for a method's local variables
// with generic signatures (Method.VariableTableWithGeneric).
type MethodVariableTableWithGenericCommand struct {
	RefType ReferenceTypeID
	Method  MethodID
}

// Encode implements Message.
func (m *MethodVariableTableWithGenericCommand) Encode(w *Writer) {
	encodeMethod(w, m.RefType, m.Method)
}

// Decode implements Message.
func (m *MethodVariableTableWithGenericCommand) Decode(r *Reader) error {
	m.RefType, m.Method = r.ReferenceTypeID(), r.MethodID()
	return r.Err()
}

// Command implements CommandMessage.
func (*MethodVariableTableWithGenericCommand) Command() Command {
	return CmdMethodVariableTableWithGeneric
}

// VariableSlot describes one local variable: visible from CodeIndex for
// Length code units, stored in Slot.
type VariableSlot struct {
	CodeIndex uint64
	Name      string
	Signature string
	Generic   string // only on the wire of VariableTableWithGeneric
	Length    int32
	Slot      int32
}

// MethodVariableTableReply answers Method.VariableTable (Generic false) and
// Method.VariableTableWithGeneric (Generic true).
type MethodVariableTableReply struct {
	Generic  bool // whether the wire form has generic signatures; not itself on the wire
	ArgCount int32
	Slots    []VariableSlot
}

// Encode implements Message.
func (m *MethodVariableTableReply) Encode(w *Writer) {
	w.Int32(m.ArgCount)
	w.Int32(int32(len(m.Slots)))
	for _, s := range m.Slots {
		w.Uint64(s.CodeIndex)
		w.String(s.Name)
		w.String(s.Signature)
		if m.Generic {
			w.String(s.Generic)
		}
		w.Int32(s.Length)
		w.Int32(s.Slot)
	}
}

// Decode implements Message.
func (m *MethodVariableTableReply) Decode(r *Reader) error {
	m.ArgCount = r.Int32()
	m.Slots = make([]VariableSlot, r.Count(24))
	for i := range m.Slots {
		s := &m.Slots[i]
		s.CodeIndex, s.Name, s.Signature = r.Uint64(), r.String(), r.String()
		if m.Generic {
			s.Generic = r.String()
		}
		s.Length, s.Slot = r.Int32(), r.Int32()
	}
	return r.Err()
}

// MethodIsObsoleteCommand asks whether a method was replaced by a hot swap
// (Method.IsObsolete). Its reply is a BoolReply.
type MethodIsObsoleteCommand struct {
	RefType ReferenceTypeID
	Method  MethodID
}

// Encode implements Message.
func (m *MethodIsObsoleteCommand) Encode(w *Writer) { encodeMethod(w, m.RefType, m.Method) }

// Decode implements Message.
func (m *MethodIsObsoleteCommand) Decode(r *Reader) error {
	m.RefType, m.Method = r.ReferenceTypeID(), r.MethodID()
	return r.Err()
}

// Command implements CommandMessage.
func (*MethodIsObsoleteCommand) Command() Command { return CmdMethodIsObsolete }

// MethodBytecodesCommand asks for a method's bytecodes (Method.Bytecodes).
// Its reply is an int count and that many bytes.
type MethodBytecodesCommand struct {
	RefType ReferenceTypeID
	Method  MethodID
}

// Command implements CommandMessage.
func (*MethodBytecodesCommand) Command() Command { return CmdMethodBytecodes }

// Encode implements Message.
func (m *MethodBytecodesCommand) Encode(w *Writer) { encodeMethod(w, m.RefType, m.Method) }

// Decode implements Message.
func (m *MethodBytecodesCommand) Decode(r *Reader) error {
	m.RefType, m.Method = r.ReferenceTypeID(), r.MethodID()
	return r.Err()
}
