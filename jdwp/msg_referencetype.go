package jdwp

// Messages of the ReferenceType (2) and ClassType (3) command sets.

// RefTypeSignatureCommand asks for a type's JNI signature (ReferenceType.Signature).
// Its reply is a StringReply.
type RefTypeSignatureCommand struct{ RefType ReferenceTypeID }

// Encode implements Message.
func (m *RefTypeSignatureCommand) Encode(w *Writer) { w.ReferenceTypeID(m.RefType) }

// Decode implements Message.
func (m *RefTypeSignatureCommand) Decode(r *Reader) error {
	m.RefType = r.ReferenceTypeID()
	return r.Err()
}

// Command implements CommandMessage.
func (*RefTypeSignatureCommand) Command() Command { return CmdReferenceTypeSignature }

// RefTypeSignatureWithGenericCommand asks for a type's signature and generic
// signature (ReferenceType.SignatureWithGeneric).
type RefTypeSignatureWithGenericCommand struct{ RefType ReferenceTypeID }

// Encode implements Message.
func (m *RefTypeSignatureWithGenericCommand) Encode(w *Writer) { w.ReferenceTypeID(m.RefType) }

// Decode implements Message.
func (m *RefTypeSignatureWithGenericCommand) Decode(r *Reader) error {
	m.RefType = r.ReferenceTypeID()
	return r.Err()
}

// Command implements CommandMessage.
func (*RefTypeSignatureWithGenericCommand) Command() Command {
	return CmdReferenceTypeSignatureWithGeneric
}

// RefTypeSignatureWithGenericReply answers ReferenceType.SignatureWithGeneric.
type RefTypeSignatureWithGenericReply struct {
	Signature string
	Generic   string
}

// Encode implements Message.
func (m *RefTypeSignatureWithGenericReply) Encode(w *Writer) {
	w.String(m.Signature)
	w.String(m.Generic)
}

// Decode implements Message.
func (m *RefTypeSignatureWithGenericReply) Decode(r *Reader) error {
	m.Signature, m.Generic = r.String(), r.String()
	return r.Err()
}

// RefTypeSourceFileCommand asks for a type's source file name
// (ReferenceType.SourceFile). Its reply is a StringReply, or ABSENT_INFORMATION.
type RefTypeSourceFileCommand struct{ RefType ReferenceTypeID }

// Encode implements Message.
func (m *RefTypeSourceFileCommand) Encode(w *Writer) { w.ReferenceTypeID(m.RefType) }

// Decode implements Message.
func (m *RefTypeSourceFileCommand) Decode(r *Reader) error {
	m.RefType = r.ReferenceTypeID()
	return r.Err()
}

// Command implements CommandMessage.
func (*RefTypeSourceFileCommand) Command() Command { return CmdReferenceTypeSourceFile }

// RefTypeSourceDebugExtensionCommand asks for a type's SourceDebugExtension
// attribute (JSR-45 SMAP). Its reply is a StringReply, or ABSENT_INFORMATION.
type RefTypeSourceDebugExtensionCommand struct{ RefType ReferenceTypeID }

// Encode implements Message.
func (m *RefTypeSourceDebugExtensionCommand) Encode(w *Writer) { w.ReferenceTypeID(m.RefType) }

// Decode implements Message.
func (m *RefTypeSourceDebugExtensionCommand) Decode(r *Reader) error {
	m.RefType = r.ReferenceTypeID()
	return r.Err()
}

// Command implements CommandMessage.
func (*RefTypeSourceDebugExtensionCommand) Command() Command {
	return CmdReferenceTypeSourceDebugExtension
}

// RefTypeInterfacesCommand asks for the interfaces a type declares
// (ReferenceType.Interfaces).
type RefTypeInterfacesCommand struct{ RefType ReferenceTypeID }

// Encode implements Message.
func (m *RefTypeInterfacesCommand) Encode(w *Writer) { w.ReferenceTypeID(m.RefType) }

// Decode implements Message.
func (m *RefTypeInterfacesCommand) Decode(r *Reader) error {
	m.RefType = r.ReferenceTypeID()
	return r.Err()
}

// Command implements CommandMessage.
func (*RefTypeInterfacesCommand) Command() Command { return CmdReferenceTypeInterfaces }

// RefTypeInterfacesReply answers ReferenceType.Interfaces.
type RefTypeInterfacesReply struct{ Interfaces []InterfaceID }

// Encode implements Message.
func (m *RefTypeInterfacesReply) Encode(w *Writer) {
	w.Int32(int32(len(m.Interfaces)))
	for _, id := range m.Interfaces {
		w.ReferenceTypeID(id)
	}
}

// Decode implements Message.
func (m *RefTypeInterfacesReply) Decode(r *Reader) error {
	m.Interfaces = make([]InterfaceID, r.Count(r.Sizes().ReferenceTypeID))
	for i := range m.Interfaces {
		m.Interfaces[i] = r.ReferenceTypeID()
	}
	return r.Err()
}

// MethodInfo describes one method in Methods and MethodsWithGeneric replies.
// Generic is on the wire only in the latter.
type MethodInfo struct {
	Method    MethodID
	Name      string
	Signature string
	Generic   string
	ModBits   int32
}

// ModStatic is the access flag of a static method or field (JVMS ACC_STATIC).
const ModStatic int32 = 0x0008

// ModNative is the access flag of a native method (JVMS ACC_NATIVE).
const ModNative int32 = 0x0100

// RefTypeMethodsCommand asks for the methods a type declares (ReferenceType.Methods).
type RefTypeMethodsCommand struct{ RefType ReferenceTypeID }

// Encode implements Message.
func (m *RefTypeMethodsCommand) Encode(w *Writer) { w.ReferenceTypeID(m.RefType) }

// Decode implements Message.
func (m *RefTypeMethodsCommand) Decode(r *Reader) error {
	m.RefType = r.ReferenceTypeID()
	return r.Err()
}

// Command implements CommandMessage.
func (*RefTypeMethodsCommand) Command() Command { return CmdReferenceTypeMethods }

// RefTypeMethodsWithGenericCommand asks for the methods a type declares, with
// generic signatures (ReferenceType.MethodsWithGeneric).
type RefTypeMethodsWithGenericCommand struct{ RefType ReferenceTypeID }

// Encode implements Message.
func (m *RefTypeMethodsWithGenericCommand) Encode(w *Writer) { w.ReferenceTypeID(m.RefType) }

// Decode implements Message.
func (m *RefTypeMethodsWithGenericCommand) Decode(r *Reader) error {
	m.RefType = r.ReferenceTypeID()
	return r.Err()
}

// Command implements CommandMessage.
func (*RefTypeMethodsWithGenericCommand) Command() Command {
	return CmdReferenceTypeMethodsWithGeneric
}

// RefTypeMethodsReply answers ReferenceType.Methods (Generic false) and
// ReferenceType.MethodsWithGeneric (Generic true).
type RefTypeMethodsReply struct {
	Generic bool // whether the wire form has generic signatures; not itself on the wire
	Methods []MethodInfo
}

// Encode implements Message.
func (m *RefTypeMethodsReply) Encode(w *Writer) {
	w.Int32(int32(len(m.Methods)))
	for _, x := range m.Methods {
		w.MethodID(x.Method)
		w.String(x.Name)
		w.String(x.Signature)
		if m.Generic {
			w.String(x.Generic)
		}
		w.Int32(x.ModBits)
	}
}

// Decode implements Message.
func (m *RefTypeMethodsReply) Decode(r *Reader) error {
	m.Methods = make([]MethodInfo, r.Count(r.Sizes().MethodID+12))
	for i := range m.Methods {
		x := &m.Methods[i]
		x.Method, x.Name, x.Signature = r.MethodID(), r.String(), r.String()
		if m.Generic {
			x.Generic = r.String()
		}
		x.ModBits = r.Int32()
	}
	return r.Err()
}

// FieldInfo describes one field in Fields and FieldsWithGeneric replies.
type FieldInfo struct {
	Field     FieldID
	Name      string
	Signature string
	Generic   string
	ModBits   int32
}

// RefTypeFieldsCommand asks for the fields a type declares (ReferenceType.Fields).
type RefTypeFieldsCommand struct{ RefType ReferenceTypeID }

// Encode implements Message.
func (m *RefTypeFieldsCommand) Encode(w *Writer) { w.ReferenceTypeID(m.RefType) }

// Decode implements Message.
func (m *RefTypeFieldsCommand) Decode(r *Reader) error {
	m.RefType = r.ReferenceTypeID()
	return r.Err()
}

// Command implements CommandMessage.
func (*RefTypeFieldsCommand) Command() Command { return CmdReferenceTypeFields }

// RefTypeGetValuesCommand asks for the values of static fields of a type
// (ReferenceType.GetValues). Its reply is a ValuesReply.
type RefTypeGetValuesCommand struct {
	RefType ReferenceTypeID
	Fields  []FieldID
}

// Command implements CommandMessage.
func (*RefTypeGetValuesCommand) Command() Command { return CmdReferenceTypeGetValues }

// Encode implements Message.
func (m *RefTypeGetValuesCommand) Encode(w *Writer) {
	w.ReferenceTypeID(m.RefType)
	w.Int32(int32(len(m.Fields)))
	for _, f := range m.Fields {
		w.FieldID(f)
	}
}

// Decode implements Message.
func (m *RefTypeGetValuesCommand) Decode(r *Reader) error {
	m.RefType = r.ReferenceTypeID()
	m.Fields = make([]FieldID, r.Count(r.sizes.FieldID))
	for i := range m.Fields {
		m.Fields[i] = r.FieldID()
	}
	return r.Err()
}

// RefTypeFieldsWithGenericCommand asks for the fields a type declares, with
// generic signatures (ReferenceType.FieldsWithGeneric).
type RefTypeFieldsWithGenericCommand struct{ RefType ReferenceTypeID }

// Encode implements Message.
func (m *RefTypeFieldsWithGenericCommand) Encode(w *Writer) { w.ReferenceTypeID(m.RefType) }

// Decode implements Message.
func (m *RefTypeFieldsWithGenericCommand) Decode(r *Reader) error {
	m.RefType = r.ReferenceTypeID()
	return r.Err()
}

// Command implements CommandMessage.
func (*RefTypeFieldsWithGenericCommand) Command() Command {
	return CmdReferenceTypeFieldsWithGeneric
}

// RefTypeFieldsReply answers ReferenceType.Fields (Generic false) and
// ReferenceType.FieldsWithGeneric (Generic true).
type RefTypeFieldsReply struct {
	Generic bool // whether the wire form has generic signatures; not itself on the wire
	Fields  []FieldInfo
}

// Encode implements Message.
func (m *RefTypeFieldsReply) Encode(w *Writer) {
	w.Int32(int32(len(m.Fields)))
	for _, x := range m.Fields {
		w.FieldID(x.Field)
		w.String(x.Name)
		w.String(x.Signature)
		if m.Generic {
			w.String(x.Generic)
		}
		w.Int32(x.ModBits)
	}
}

// Decode implements Message.
func (m *RefTypeFieldsReply) Decode(r *Reader) error {
	m.Fields = make([]FieldInfo, r.Count(r.Sizes().FieldID+12))
	for i := range m.Fields {
		x := &m.Fields[i]
		x.Field, x.Name, x.Signature = r.FieldID(), r.String(), r.String()
		if m.Generic {
			x.Generic = r.String()
		}
		x.ModBits = r.Int32()
	}
	return r.Err()
}

// ClassTypeSuperclassCommand asks for a class's superclass (ClassType.Superclass).
type ClassTypeSuperclassCommand struct{ RefType ReferenceTypeID }

// Encode implements Message.
func (m *ClassTypeSuperclassCommand) Encode(w *Writer) { w.ReferenceTypeID(m.RefType) }

// Decode implements Message.
func (m *ClassTypeSuperclassCommand) Decode(r *Reader) error {
	m.RefType = r.ReferenceTypeID()
	return r.Err()
}

// Command implements CommandMessage.
func (*ClassTypeSuperclassCommand) Command() Command { return CmdClassTypeSuperclass }

// ClassTypeSuperclassReply answers ClassType.Superclass; 0 for java.lang.Object.
type ClassTypeSuperclassReply struct{ Superclass ClassID }

// Encode implements Message.
func (m *ClassTypeSuperclassReply) Encode(w *Writer) { w.ReferenceTypeID(m.Superclass) }

// Decode implements Message.
func (m *ClassTypeSuperclassReply) Decode(r *Reader) error {
	m.Superclass = r.ReferenceTypeID()
	return r.Err()
}

// RefTypeClassLoaderCommand asks for a type's class loader
// (ReferenceType.ClassLoader). Its reply is an object id (0: the bootstrap loader).
type RefTypeClassLoaderCommand struct{ RefType ReferenceTypeID }

// Command implements CommandMessage.
func (*RefTypeClassLoaderCommand) Command() Command { return CmdReferenceTypeClassLoader }

// Encode implements Message.
func (m *RefTypeClassLoaderCommand) Encode(w *Writer) { w.ReferenceTypeID(m.RefType) }

// Decode implements Message.
func (m *RefTypeClassLoaderCommand) Decode(r *Reader) error {
	m.RefType = r.ReferenceTypeID()
	return r.Err()
}

// RefTypeModifiersCommand asks for a type's modifiers (ReferenceType.Modifiers).
// Its reply is an IntReply.
type RefTypeModifiersCommand struct{ RefType ReferenceTypeID }

// Command implements CommandMessage.
func (*RefTypeModifiersCommand) Command() Command { return CmdReferenceTypeModifiers }

// Encode implements Message.
func (m *RefTypeModifiersCommand) Encode(w *Writer) { w.ReferenceTypeID(m.RefType) }

// Decode implements Message.
func (m *RefTypeModifiersCommand) Decode(r *Reader) error {
	m.RefType = r.ReferenceTypeID()
	return r.Err()
}

// RefTypeClassObjectCommand asks for a type's java.lang.Class instance
// (ReferenceType.ClassObject). Its reply is an object id.
type RefTypeClassObjectCommand struct{ RefType ReferenceTypeID }

// Command implements CommandMessage.
func (*RefTypeClassObjectCommand) Command() Command { return CmdReferenceTypeClassObject }

// Encode implements Message.
func (m *RefTypeClassObjectCommand) Encode(w *Writer) { w.ReferenceTypeID(m.RefType) }

// Decode implements Message.
func (m *RefTypeClassObjectCommand) Decode(r *Reader) error {
	m.RefType = r.ReferenceTypeID()
	return r.Err()
}

// RefTypeClassFileVersionCommand asks for the class file version a type was
// defined with (ReferenceType.ClassFileVersion): major and minor, two ints.
type RefTypeClassFileVersionCommand struct{ RefType ReferenceTypeID }

// Command implements CommandMessage.
func (*RefTypeClassFileVersionCommand) Command() Command { return CmdReferenceTypeClassFileVersion }

// Encode implements Message.
func (m *RefTypeClassFileVersionCommand) Encode(w *Writer) { w.ReferenceTypeID(m.RefType) }

// Decode implements Message.
func (m *RefTypeClassFileVersionCommand) Decode(r *Reader) error {
	m.RefType = r.ReferenceTypeID()
	return r.Err()
}

// RefTypeModuleCommand asks for a type's module (ReferenceType.Module). Its
// reply is an object id.
type RefTypeModuleCommand struct{ RefType ReferenceTypeID }

// Command implements CommandMessage.
func (*RefTypeModuleCommand) Command() Command { return CmdReferenceTypeModule }

// Encode implements Message.
func (m *RefTypeModuleCommand) Encode(w *Writer) { w.ReferenceTypeID(m.RefType) }

// Decode implements Message.
func (m *RefTypeModuleCommand) Decode(r *Reader) error {
	m.RefType = r.ReferenceTypeID()
	return r.Err()
}
