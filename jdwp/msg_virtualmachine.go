package jdwp

// Messages of the VirtualMachine command set (1).

// VMVersionCommand asks for the VM's version (VirtualMachine.Version).
type VMVersionCommand struct{ emptyData }

// Command implements CommandMessage.
func (*VMVersionCommand) Command() Command { return CmdVirtualMachineVersion }

// VMVersionReply answers VirtualMachine.Version.
type VMVersionReply struct {
	Description string
	JDWPMajor   int32
	JDWPMinor   int32
	VMVersion   string
	VMName      string
}

// Encode implements Message.
func (m *VMVersionReply) Encode(w *Writer) {
	w.String(m.Description)
	w.Int32(m.JDWPMajor)
	w.Int32(m.JDWPMinor)
	w.String(m.VMVersion)
	w.String(m.VMName)
}

// Decode implements Message.
func (m *VMVersionReply) Decode(r *Reader) error {
	m.Description, m.JDWPMajor, m.JDWPMinor = r.String(), r.Int32(), r.Int32()
	m.VMVersion, m.VMName = r.String(), r.String()
	return r.Err()
}

// VMIDSizesCommand asks for the sizes of ids (VirtualMachine.IDSizes).
type VMIDSizesCommand struct{ emptyData }

// Command implements CommandMessage.
func (*VMIDSizesCommand) Command() Command { return CmdVirtualMachineIDSizes }

// VMIDSizesReply answers VirtualMachine.IDSizes. Its fields are always 4-byte
// ints, whatever the current id sizes.
type VMIDSizesReply struct{ Sizes IDSizes }

// Encode implements Message.
func (m *VMIDSizesReply) Encode(w *Writer) {
	s := m.Sizes
	w.Int32(int32(s.FieldID))
	w.Int32(int32(s.MethodID))
	w.Int32(int32(s.ObjectID))
	w.Int32(int32(s.ReferenceTypeID))
	w.Int32(int32(s.FrameID))
}

// Decode implements Message. It does not validate the sizes: call
// Sizes.Validate before using them.
func (m *VMIDSizesReply) Decode(r *Reader) error {
	m.Sizes = IDSizes{FieldID: int(r.Int32()), MethodID: int(r.Int32()), ObjectID: int(r.Int32()),
		ReferenceTypeID: int(r.Int32()), FrameID: int(r.Int32())}
	return r.Err()
}

// ClassInfo describes one loaded reference type in AllClasses and
// AllClassesWithGeneric replies. Generic is only on the wire in the latter.
type ClassInfo struct {
	TypeTag   TypeTag
	TypeID    ReferenceTypeID
	Signature string
	Generic   string
	Status    int32
}

// VMAllClassesCommand asks for every loaded reference type (VirtualMachine.AllClasses).
type VMAllClassesCommand struct{ emptyData }

// Command implements CommandMessage.
func (*VMAllClassesCommand) Command() Command { return CmdVirtualMachineAllClasses }

// VMAllClassesReply answers VirtualMachine.AllClasses.
type VMAllClassesReply struct{ Classes []ClassInfo }

// Encode implements Message.
func (m *VMAllClassesReply) Encode(w *Writer) { encodeClasses(w, m.Classes, false) }

// Decode implements Message.
func (m *VMAllClassesReply) Decode(r *Reader) error {
	m.Classes = decodeClasses(r, false)
	return r.Err()
}

// VMAllClassesWithGenericCommand asks for every loaded reference type with
// generic signatures (VirtualMachine.AllClassesWithGeneric).
type VMAllClassesWithGenericCommand struct{ emptyData }

// Command implements CommandMessage.
func (*VMAllClassesWithGenericCommand) Command() Command {
	return CmdVirtualMachineAllClassesWithGeneric
}

// VMAllClassesWithGenericReply answers VirtualMachine.AllClassesWithGeneric.
type VMAllClassesWithGenericReply struct{ Classes []ClassInfo }

// Encode implements Message.
func (m *VMAllClassesWithGenericReply) Encode(w *Writer) { encodeClasses(w, m.Classes, true) }

// Decode implements Message.
func (m *VMAllClassesWithGenericReply) Decode(r *Reader) error {
	m.Classes = decodeClasses(r, true)
	return r.Err()
}

func encodeClasses(w *Writer, classes []ClassInfo, generic bool) {
	w.Int32(int32(len(classes)))
	for _, c := range classes {
		w.TypeTag(c.TypeTag)
		w.ReferenceTypeID(c.TypeID)
		w.String(c.Signature)
		if generic {
			w.String(c.Generic)
		}
		w.Int32(c.Status)
	}
}

func decodeClasses(r *Reader, generic bool) []ClassInfo {
	n := r.Count(1 + r.Sizes().ReferenceTypeID + 4 + 4)
	classes := make([]ClassInfo, n)
	for i := range classes {
		c := &classes[i]
		c.TypeTag, c.TypeID, c.Signature = r.TypeTag(), r.ReferenceTypeID(), r.String()
		if generic {
			c.Generic = r.String()
		}
		c.Status = r.Int32()
	}
	if r.Err() != nil {
		return nil
	}
	return classes
}

// VMClassesBySignatureCommand asks for the loaded types of a signature
// (VirtualMachine.ClassesBySignature).
type VMClassesBySignatureCommand struct{ Signature string }

// Command implements CommandMessage.
func (*VMClassesBySignatureCommand) Command() Command { return CmdVirtualMachineClassesBySignature }

// Encode implements Message.
func (m *VMClassesBySignatureCommand) Encode(w *Writer) { w.String(m.Signature) }

// Decode implements Message.
func (m *VMClassesBySignatureCommand) Decode(r *Reader) error {
	m.Signature = r.String()
	return r.Err()
}

// TypeStatus is one entry of a ClassesBySignature reply.
type TypeStatus struct {
	TypeTag TypeTag
	TypeID  ReferenceTypeID
	Status  int32
}

// VMClassesBySignatureReply answers VirtualMachine.ClassesBySignature.
type VMClassesBySignatureReply struct{ Classes []TypeStatus }

// Encode implements Message.
func (m *VMClassesBySignatureReply) Encode(w *Writer) {
	w.Int32(int32(len(m.Classes)))
	for _, c := range m.Classes {
		w.TypeTag(c.TypeTag)
		w.ReferenceTypeID(c.TypeID)
		w.Int32(c.Status)
	}
}

// Decode implements Message.
func (m *VMClassesBySignatureReply) Decode(r *Reader) error {
	m.Classes = make([]TypeStatus, r.Count(1+r.Sizes().ReferenceTypeID+4))
	for i := range m.Classes {
		m.Classes[i] = TypeStatus{TypeTag: r.TypeTag(), TypeID: r.ReferenceTypeID(), Status: r.Int32()}
	}
	return r.Err()
}

// ClassDef is one class of a RedefineClasses command: the type and its new class file.
type ClassDef struct {
	RefType   ReferenceTypeID
	ClassFile []byte
}

// VMRedefineClassesCommand replaces the class files of loaded types
// (VirtualMachine.RedefineClasses: hot swap). Its reply is an EmptyReply.
type VMRedefineClassesCommand struct{ Classes []ClassDef }

// Command implements CommandMessage.
func (*VMRedefineClassesCommand) Command() Command { return CmdVirtualMachineRedefineClasses }

// Encode implements Message.
func (m *VMRedefineClassesCommand) Encode(w *Writer) {
	w.Int32(int32(len(m.Classes)))
	for _, c := range m.Classes {
		w.ReferenceTypeID(c.RefType)
		w.Int32(int32(len(c.ClassFile)))
		w.Raw(c.ClassFile)
	}
}

// Decode implements Message. The class files alias the Reader's data.
func (m *VMRedefineClassesCommand) Decode(r *Reader) error {
	m.Classes = make([]ClassDef, r.Count(r.Sizes().ReferenceTypeID+4))
	for i := range m.Classes {
		m.Classes[i].RefType = r.ReferenceTypeID()
		m.Classes[i].ClassFile = r.Bytes(r.Count(1))
	}
	return r.Err()
}

// VMDisposeCommand ends the debugging session (VirtualMachine.Dispose).
type VMDisposeCommand struct{ emptyData }

// Command implements CommandMessage.
func (*VMDisposeCommand) Command() Command { return CmdVirtualMachineDispose }

// VMExitCommand ends the VM with an exit code (VirtualMachine.Exit). Its
// reply is empty; the VM exits after sending it.
type VMExitCommand struct{ ExitCode int32 }

// Command implements CommandMessage.
func (*VMExitCommand) Command() Command { return CmdVirtualMachineExit }

// Encode implements Message.
func (m *VMExitCommand) Encode(w *Writer) { w.Int32(m.ExitCode) }

// Decode implements Message.
func (m *VMExitCommand) Decode(r *Reader) error { m.ExitCode = r.Int32(); return r.Err() }

// VMSuspendCommand suspends every thread (VirtualMachine.Suspend).
type VMSuspendCommand struct{ emptyData }

// Command implements CommandMessage.
func (*VMSuspendCommand) Command() Command { return CmdVirtualMachineSuspend }

// VMResumeCommand resumes every thread once (VirtualMachine.Resume).
type VMResumeCommand struct{ emptyData }

// Command implements CommandMessage.
func (*VMResumeCommand) Command() Command { return CmdVirtualMachineResume }

// VMAllThreadsCommand asks for every live thread (VirtualMachine.AllThreads).
type VMAllThreadsCommand struct{ emptyData }

// Command implements CommandMessage.
func (*VMAllThreadsCommand) Command() Command { return CmdVirtualMachineAllThreads }

// ObjectIDsReply is a reply holding a list of object ids (VirtualMachine.AllThreads).
type ObjectIDsReply struct{ IDs []ObjectID }

// Encode implements Message.
func (m *ObjectIDsReply) Encode(w *Writer) {
	w.Int32(int32(len(m.IDs)))
	for _, id := range m.IDs {
		w.ObjectID(id)
	}
}

// Decode implements Message.
func (m *ObjectIDsReply) Decode(r *Reader) error {
	m.IDs = make([]ObjectID, r.Count(r.Sizes().ObjectID))
	for i := range m.IDs {
		m.IDs[i] = r.ObjectID()
	}
	return r.Err()
}

// VMDisposeObjectsCommand releases object ids (VirtualMachine.DisposeObjects):
// each request lowers an id's reference count; at zero the VM may reuse it.
// Its reply is empty.
type VMDisposeObjectsCommand struct{ Requests []DisposeRequest }

// A DisposeRequest is one object id and how many references to release.
type DisposeRequest struct {
	Object   ObjectID
	RefCount int32
}

// Command implements CommandMessage.
func (*VMDisposeObjectsCommand) Command() Command { return CmdVirtualMachineDisposeObjects }

// Encode implements Message.
func (m *VMDisposeObjectsCommand) Encode(w *Writer) {
	w.Int32(int32(len(m.Requests)))
	for _, r := range m.Requests {
		w.ObjectID(r.Object)
		w.Int32(r.RefCount)
	}
}

// Decode implements Message.
func (m *VMDisposeObjectsCommand) Decode(r *Reader) error {
	m.Requests = make([]DisposeRequest, r.Count(r.sizes.ObjectID+4))
	for i := range m.Requests {
		m.Requests[i] = DisposeRequest{Object: r.ObjectID(), RefCount: r.Int32()}
	}
	return r.Err()
}

// VMCapabilitiesNewCommand asks what the VM can do (VirtualMachine.CapabilitiesNew):
// its reply is 32 booleans.
type VMCapabilitiesNewCommand struct{ emptyData }

// Command implements CommandMessage.
func (*VMCapabilitiesNewCommand) Command() Command { return CmdVirtualMachineCapabilitiesNew }
