package scache

import "github.com/jdwpscache/scache/jdwp"

// A keySpec describes a keyable command: one whose reply depends only on its
// parameters and on class metadata, so that it can be cached under its key
// (command set, command and parameter bytes) until the class changes.
type keySpec struct {
	method  bool // the parameters are a reference type and a method; otherwise a reference type only
	classic bool // keyable in the original jdwp-scache too
}

// keyable lists the keyable commands. Each takes a reference type first, the
// class whose unload or redefinition invalidates the reply.
var keyable = map[jdwp.Command]keySpec{
	jdwp.CmdClassTypeSuperclass:               {classic: true},
	jdwp.CmdReferenceTypeSourceFile:           {classic: true},
	jdwp.CmdReferenceTypeSourceDebugExtension: {classic: true},
	jdwp.CmdReferenceTypeInterfaces:           {classic: true},
	jdwp.CmdReferenceTypeMethodsWithGeneric:   {classic: true},
	jdwp.CmdMethodLineTable:                   {method: true, classic: true},
	jdwp.CmdMethodIsObsolete:                  {method: true, classic: true},
	jdwp.CmdMethodVariableTableWithGeneric:    {method: true, classic: true},

	jdwp.CmdReferenceTypeSignature:            {},
	jdwp.CmdReferenceTypeSignatureWithGeneric: {},
	jdwp.CmdReferenceTypeClassLoader:          {},
	jdwp.CmdReferenceTypeModifiers:            {},
	jdwp.CmdReferenceTypeFields:               {},
	jdwp.CmdReferenceTypeMethods:              {},
	jdwp.CmdReferenceTypeFieldsWithGeneric:    {},
	jdwp.CmdReferenceTypeClassObject:          {},
	jdwp.CmdReferenceTypeClassFileVersion:     {},
	jdwp.CmdReferenceTypeModule:               {},
	jdwp.CmdMethodVariableTable:               {method: true},
	jdwp.CmdMethodBytecodes:                   {method: true},
}

// keySpecOf returns the key spec of a command under the policy.
func (s *Speculator) keySpecOf(cmd jdwp.Command) (keySpec, bool) {
	k, ok := keyable[cmd]
	if !ok || (s.cfg.classic && !k.classic) {
		return keySpec{}, false
	}
	return k, true
}

// dataSize returns the exact parameter size of a keyable command.
func (k keySpec) dataSize(s jdwp.IDSizes) int {
	if k.method {
		return s.ReferenceTypeID + s.MethodID
	}
	return s.ReferenceTypeID
}

// commandKey returns the key of a command packet: its command set, command and data.
func commandKey(packet []byte) string { return string(packet[9:]) }

// The speculation sets, in the order their commands are sent for each frame.
//
// The original's order is kept for Classic. The default order follows what a
// JDI debugger asks about a frame: the method (MethodsWithGeneric), the source
// name (SourceDebugExtension for strata, then SourceFile), the line
// (LineTable), the variables, then the type hierarchy.
var (
	classicFrameSet = []jdwp.Command{
		jdwp.CmdClassTypeSuperclass, jdwp.CmdMethodLineTable, jdwp.CmdReferenceTypeSourceFile,
		jdwp.CmdMethodIsObsolete, jdwp.CmdReferenceTypeSourceDebugExtension, jdwp.CmdReferenceTypeInterfaces,
		jdwp.CmdMethodVariableTableWithGeneric, jdwp.CmdReferenceTypeMethodsWithGeneric,
	}
	defaultFrameSet = []jdwp.Command{
		jdwp.CmdReferenceTypeMethodsWithGeneric, jdwp.CmdReferenceTypeSourceDebugExtension,
		jdwp.CmdReferenceTypeSourceFile, jdwp.CmdMethodLineTable, jdwp.CmdMethodVariableTableWithGeneric,
		jdwp.CmdMethodIsObsolete, jdwp.CmdClassTypeSuperclass, jdwp.CmdReferenceTypeInterfaces,
	}
)

// Keyable reports whether the default policy caches replies to cmd: class
// metadata commands whose reply depends only on their parameters until the
// class is unloaded or redefined.
func Keyable(cmd jdwp.Command) bool {
	_, ok := keyable[cmd]
	return ok
}
