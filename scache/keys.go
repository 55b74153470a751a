package scache

import (
	"encoding/binary"

	"github.com/jdwpscache/scache/jdwp"
)

// params says what the parameters of a keyable command are, to validate them
// and to know what the reply is about.
type params uint8

const (
	pNone             params = iota // no parameters
	pRefType                        // referenceTypeID
	pRefTypeMethod                  // referenceTypeID, methodID
	pThread                         // threadID
	pThreadRange                    // threadID, int startFrame, int length
	pThreadFrame                    // threadID, frameID
	pThreadFrameSlots               // threadID, frameID, int n, n × (int slot, byte tag)
	pObject                         // objectID
	pObjectFields                   // objectID, int n, n × fieldID
)

// A keySpec describes a keyable command: one whose reply depends only on its
// parameters and on a state with a known lifetime, so that it can be cached
// under its key (command set, command and parameter bytes).
type keySpec struct {
	params  params
	life    lifetime
	classic bool // keyable in the original jdwp-scache too
	// For suspension entries under suspend policy EVENT_THREAD, when other
	// threads run: threadLocal facts of the stopped thread (its frames, this,
	// locals) and immutable facts (an object's type, a string's value) may
	// still be cached; nothing else.
	threadLocal bool
	immutable   bool
}

// keyable lists the keyable commands. Class metadata commands take a
// reference type first, the class whose unload or redefinition invalidates
// the reply; suspension commands are valid within one suspension epoch.
var keyable = map[jdwp.Command]keySpec{
	jdwp.CmdClassTypeSuperclass:               {params: pRefType, classic: true},
	jdwp.CmdReferenceTypeSourceFile:           {params: pRefType, classic: true},
	jdwp.CmdReferenceTypeSourceDebugExtension: {params: pRefType, classic: true},
	jdwp.CmdReferenceTypeInterfaces:           {params: pRefType, classic: true},
	jdwp.CmdReferenceTypeMethodsWithGeneric:   {params: pRefType, classic: true},
	jdwp.CmdMethodLineTable:                   {params: pRefTypeMethod, classic: true},
	jdwp.CmdMethodIsObsolete:                  {params: pRefTypeMethod, classic: true},
	jdwp.CmdMethodVariableTableWithGeneric:    {params: pRefTypeMethod, classic: true},

	jdwp.CmdReferenceTypeSignature:            {params: pRefType},
	jdwp.CmdReferenceTypeSignatureWithGeneric: {params: pRefType},
	jdwp.CmdReferenceTypeClassLoader:          {params: pRefType},
	jdwp.CmdReferenceTypeModifiers:            {params: pRefType},
	jdwp.CmdReferenceTypeFields:               {params: pRefType},
	jdwp.CmdReferenceTypeMethods:              {params: pRefType},
	jdwp.CmdReferenceTypeFieldsWithGeneric:    {params: pRefType},
	jdwp.CmdReferenceTypeClassObject:          {params: pRefType},
	jdwp.CmdReferenceTypeClassFileVersion:     {params: pRefType},
	jdwp.CmdReferenceTypeModule:               {params: pRefType},
	jdwp.CmdMethodVariableTable:               {params: pRefTypeMethod},
	jdwp.CmdMethodBytecodes:                   {params: pRefTypeMethod},

	jdwp.CmdThreadReferenceFrames:        {params: pThreadRange, life: lifetimeSuspension, threadLocal: true},
	jdwp.CmdThreadReferenceFrameCount:    {params: pThread, life: lifetimeSuspension, threadLocal: true},
	jdwp.CmdStackFrameThisObject:         {params: pThreadFrame, life: lifetimeSuspension, threadLocal: true},
	jdwp.CmdStackFrameGetValues:          {params: pThreadFrameSlots, life: lifetimeSuspension, threadLocal: true},
	jdwp.CmdObjectReferenceReferenceType: {params: pObject, life: lifetimeSuspension, immutable: true},
	jdwp.CmdStringReferenceValue:         {params: pObject, life: lifetimeSuspension, immutable: true},
	jdwp.CmdThreadReferenceName:          {params: pThread, life: lifetimeSuspension},
	jdwp.CmdThreadReferenceStatus:        {params: pThread, life: lifetimeSuspension},
	jdwp.CmdVirtualMachineAllThreads:     {params: pNone, life: lifetimeSuspension},
	jdwp.CmdObjectReferenceGetValues:     {params: pObjectFields, life: lifetimeSuspension},
}

// keySpecOf returns the key spec of a command under the policy.
func (s *Speculator) keySpecOf(cmd jdwp.Command) (keySpec, bool) {
	k, ok := keyable[cmd]
	if !ok || (s.cfg.classic && !k.classic) || (k.life == lifetimeSuspension && !s.cfg.cacheState) {
		return keySpec{}, false
	}
	return k, true
}

// valid reports whether data is a well-formed parameter list of the spec.
func (k keySpec) valid(data []byte, s jdwp.IDSizes) bool {
	n := len(data)
	switch k.params {
	case pNone:
		return n == 0
	case pRefType:
		return n == s.ReferenceTypeID
	case pRefTypeMethod:
		return n == s.ReferenceTypeID+s.MethodID
	case pThread, pObject:
		return n == s.ObjectID
	case pThreadRange:
		return n == s.ObjectID+8
	case pThreadFrame:
		return n == s.ObjectID+s.FrameID
	case pThreadFrameSlots:
		return countedList(data, s.ObjectID+s.FrameID, 5)
	case pObjectFields:
		return countedList(data, s.ObjectID, s.FieldID)
	}
	return false
}

// countedList reports whether data is a prefix of head bytes, an int count,
// and exactly count elements of size each.
func countedList(data []byte, head, size int) bool {
	if len(data) < head+4 {
		return false
	}
	c := binary.BigEndian.Uint32(data[head:])
	return c <= 1<<20 && int64(len(data)) == int64(head)+4+int64(c)*int64(size)
}

// commandKey returns the key of a command packet: its command set, command and data.
func commandKey(packet []byte) string { return string(packet[9:]) }

// key builds the cache key of a command the Speculator composes: its command
// set, command and the data params writes. The bytes are valid until the next
// call.
func (s *Speculator) key(cmd jdwp.Command, params func(w *jdwp.Writer)) []byte {
	w := &s.keyWriter
	w.Reset(s.sizes)
	w.Uint8(uint8(cmd.Set))
	w.Uint8(cmd.Cmd)
	params(w)
	return w.Bytes()
}

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
// metadata commands, valid until their class is unloaded or redefined, and
// state commands (frames, locals, threads), valid while threads stay suspended.
func Keyable(cmd jdwp.Command) bool {
	_, ok := keyable[cmd]
	return ok
}

// StateCommand reports whether the default policy caches replies to cmd only
// while threads stay suspended (one suspension epoch).
func StateCommand(cmd jdwp.Command) bool {
	k, ok := keyable[cmd]
	return ok && k.life == lifetimeSuspension
}
