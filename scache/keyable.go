package scache

import (
	"fmt"

	"github.com/jdwpscache/scache/jdwp"
)

// What may be cached, and for how long: the keyable table. A command's reply
// is cached under its Key (its command and parameter bytes) for the
// lifetime its entry names: class metadata until the class is unloaded or
// redefined, an object's facts until its id is disposed, state while the
// threads stay suspended (one suspension epoch), the VM's version for the
// session.
//
// To add a cacheable command:
//
//  1. Give it a typed command message in package jdwp (its parameter layout,
//     stated once) and register it in jdwp's registry.
//  2. Add it to keyable below with its lifetime; a class metadata command
//     also goes in classOf, a thread-local state command in threadOf.
//  3. Teach the model VM (scachetest) to answer it, so that the property
//     tests cover it.
//  4. If its reply is a function of another command's (as Methods is of
//     MethodsWithGeneric), derive it in derived.go and compare the derived
//     reply with a real VM's in derived_test.go.

// A keySpec describes a keyable command: one whose reply depends only on its
// parameters and on a state with a known lifetime, so that it can be cached
// under its Key. Its parameters' layout is its jdwp typed message's.
type keySpec struct {
	life    lifetime
	classic bool // keyable in the original jdwp-scache too
	// For suspension entries under suspend policy EVENT_THREAD, when other
	// threads run: threadLocal facts of the stopped thread (its frames, this,
	// locals) may still be cached; nothing else.
	threadLocal bool
	// values: a suspension entry that the SetValues commands change (the
	// values of locals and fields); the other entries outlive them.
	values bool
	// moving: a suspension entry about state that changes while threads
	// run (a running thread's status or name, the thread list, the group
	// tree, values), cached under Sequential as a moving entry
	// (sequential.go).
	moving bool
}

// keyable lists the keyable commands. Class metadata commands take a
// reference type first, the class whose unload or redefinition invalidates
// the reply; suspension commands are valid within one suspension epoch.
var keyable = map[jdwp.Command]keySpec{
	jdwp.CmdClassTypeSuperclass:               {classic: true},
	jdwp.CmdReferenceTypeSourceFile:           {classic: true},
	jdwp.CmdReferenceTypeSourceDebugExtension: {classic: true},
	jdwp.CmdReferenceTypeInterfaces:           {classic: true},
	jdwp.CmdReferenceTypeMethodsWithGeneric:   {classic: true},
	jdwp.CmdMethodLineTable:                   {classic: true},
	jdwp.CmdMethodIsObsolete:                  {classic: true},
	jdwp.CmdMethodVariableTableWithGeneric:    {classic: true},

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
	jdwp.CmdMethodVariableTable:               {},
	jdwp.CmdMethodBytecodes:                   {},

	jdwp.CmdVirtualMachineIDSizes:         {life: lifetimeSession},
	jdwp.CmdVirtualMachineVersion:         {life: lifetimeSession},
	jdwp.CmdVirtualMachineCapabilitiesNew: {life: lifetimeSession},

	jdwp.CmdThreadReferenceFrames:        {life: lifetimeSuspension, threadLocal: true},
	jdwp.CmdThreadReferenceFrameCount:    {life: lifetimeSuspension, threadLocal: true},
	jdwp.CmdStackFrameThisObject:         {life: lifetimeSuspension, threadLocal: true},
	jdwp.CmdStackFrameGetValues:          {life: lifetimeSuspension, threadLocal: true, values: true},
	jdwp.CmdObjectReferenceReferenceType: {life: lifetimeObject},
	jdwp.CmdStringReferenceValue:         {life: lifetimeObject},
	jdwp.CmdArrayReferenceLength:         {life: lifetimeObject}, // an array's length never changes
	// A thread's name is a field of its object (java.lang.Thread's name,
	// which ThreadReference.Name reads): any thread that runs may rename
	// it, and so may an ObjectReference.SetValues of the thread
	// (onThreadFieldsSet).
	jdwp.CmdThreadReferenceName: {life: lifetimeSuspension, moving: true},
	// A suspended thread's status stays what it was (it runs no code: it
	// cannot block, wait or sleep) whatever the others do.
	jdwp.CmdThreadReferenceStatus:    {life: lifetimeSuspension, threadLocal: true, moving: true},
	jdwp.CmdVirtualMachineAllThreads: {life: lifetimeSuspension, moving: true},
	// How many times a thread is suspended: only the debugger's suspends
	// and resumes, an invocation and an event change it, each of which
	// ends the epoch; but an event that suspends every thread adds to
	// each thread's count when the VM sends it, before the Speculator
	// hears of it. So it moves while threads run (the stopped thread's
	// too), and a parked thread's is not kept beyond the epoch.
	jdwp.CmdThreadReferenceSuspendCount: {life: lifetimeSuspension, moving: true},
	// The thread-group tree a threads view walks (jdb's threads): the top
	// groups and a group's children change only as threads start and end,
	// which takes a thread that runs; a suspended thread stays in its group;
	// a group's name and parent are set when it is made.
	jdwp.CmdVirtualMachineTopLevelThreadGroups: {life: lifetimeSuspension, moving: true},
	jdwp.CmdThreadGroupReferenceChildren:       {life: lifetimeSuspension, moving: true},
	// A thread's group is a field of its object, as its name is.
	jdwp.CmdThreadReferenceThreadGroup: {life: lifetimeSuspension, threadLocal: true, moving: true},
	jdwp.CmdThreadGroupReferenceName:   {life: lifetimeObject},
	jdwp.CmdThreadGroupReferenceParent: {life: lifetimeObject},
	// An object's field values, an array's elements (as an expanded array
	// in a variables view reads them) and a type's static field values:
	// only running code or a SetValues changes them. While other threads
	// run (suspend policy EVENT_THREAD) any of them may, so they move, as
	// a thread's name does: under Sequential the variables view of a
	// suspend-thread stop (Eclipse's and VS Code's default) is served
	// from speculation under the rules of sequential.go.
	jdwp.CmdObjectReferenceGetValues: {life: lifetimeSuspension, values: true, moving: true},
	jdwp.CmdArrayReferenceGetValues:  {life: lifetimeSuspension, values: true, moving: true},
	jdwp.CmdReferenceTypeGetValues:   {life: lifetimeSuspension, values: true, moving: true},
	// The loaded classes: any event (a class's preparation or unload among
	// them) ends the epoch; but a running thread loads classes, and the VM
	// unloads them, with no event the debugger asked for, so they move
	// while threads run.
	jdwp.CmdVirtualMachineAllClasses:            {life: lifetimeSuspension, moving: true},
	jdwp.CmdVirtualMachineAllClassesWithGeneric: {life: lifetimeSuspension, moving: true},
}

// keySpecOf returns the key spec of a command under the policy.
func (s *Speculator) keySpecOf(cmd jdwp.Command) (keySpec, bool) { return s.specOf(commandTraits[cmd]) }

// specOf returns the key spec of a command's traits under the policy.
func (s *Speculator) specOf(tr traits) (keySpec, bool) {
	k := tr.spec
	if !tr.keyable || (s.cfg.classic && !k.classic) || ((k.life == lifetimeSuspension || k.life == lifetimeObject) && !s.cfg.cacheState) {
		return keySpec{}, false
	}
	return k, true
}

// decodeParams decodes a command's parameters (a keyable command's, a
// Clear answered ahead, a PopFrames, a ClassesBySignature) as its typed
// message: the data must be exactly what the message encodes. The message is one
// scratch message per command, valid until the next call for the same command.
func (s *Speculator) decodeParams(cmd jdwp.Command, data []byte) (jdwp.CommandMessage, error) {
	m := s.scratch.params[cmd]
	if m == nil {
		if m = jdwp.NewCommandMessage(cmd); m == nil {
			return nil, fmt.Errorf("no typed message for %s", cmd)
		}
		s.scratch.params[cmd] = m
	}
	// As jdwp.Unmarshal, with the Speculator's reader: no allocation.
	s.scratch.reader.Reset(data, s.sizes)
	if err := m.Decode(&s.scratch.reader); err != nil {
		return nil, err
	}
	if s.scratch.reader.Len() != 0 {
		return nil, &jdwp.DecodeError{Offset: s.scratch.reader.Offset(), What: cmd.String(), Err: jdwp.ErrTrailingData}
	}
	return m, nil
}

// classOf returns the class a class metadata command is about.
func classOf(m jdwp.CommandMessage) jdwp.ReferenceTypeID {
	switch m := m.(type) {
	case *jdwp.ClassTypeSuperclassCommand:
		return m.RefType
	case *jdwp.RefTypeSourceFileCommand:
		return m.RefType
	case *jdwp.RefTypeSourceDebugExtensionCommand:
		return m.RefType
	case *jdwp.RefTypeInterfacesCommand:
		return m.RefType
	case *jdwp.RefTypeMethodsWithGenericCommand:
		return m.RefType
	case *jdwp.RefTypeSignatureCommand:
		return m.RefType
	case *jdwp.RefTypeSignatureWithGenericCommand:
		return m.RefType
	case *jdwp.RefTypeClassLoaderCommand:
		return m.RefType
	case *jdwp.RefTypeModifiersCommand:
		return m.RefType
	case *jdwp.RefTypeFieldsCommand:
		return m.RefType
	case *jdwp.RefTypeMethodsCommand:
		return m.RefType
	case *jdwp.RefTypeFieldsWithGenericCommand:
		return m.RefType
	case *jdwp.RefTypeClassObjectCommand:
		return m.RefType
	case *jdwp.RefTypeClassFileVersionCommand:
		return m.RefType
	case *jdwp.RefTypeModuleCommand:
		return m.RefType
	case *jdwp.MethodLineTableCommand:
		return m.RefType
	case *jdwp.MethodIsObsoleteCommand:
		return m.RefType
	case *jdwp.MethodVariableTableWithGenericCommand:
		return m.RefType
	case *jdwp.MethodVariableTableCommand:
		return m.RefType
	case *jdwp.MethodBytecodesCommand:
		return m.RefType
	}
	return 0
}

// subjectOf returns what a keyable command with lifetime life is about.
func subjectOf(spec keySpec, m jdwp.CommandMessage) subject {
	switch spec.life {
	case lifetimeClass:
		return subject{life: spec.life, class: classOf(m)}
	case lifetimeObject:
		return subject{life: spec.life, object: objectOf(m)}
	}
	return subject{life: spec.life, values: spec.values}
}

// objectOf returns the object an object command is about, or whose
// values a read of values reads (0: a type's, or no object's).
func objectOf(m jdwp.CommandMessage) jdwp.ObjectID {
	switch m := m.(type) {
	case *jdwp.ObjectRefGetValuesCommand:
		return m.Object
	case *jdwp.ArrayRefGetValuesCommand:
		return m.Array
	case *jdwp.ObjectRefReferenceTypeCommand:
		return m.Object
	case *jdwp.StringRefValueCommand:
		return m.Object
	case *jdwp.ArrayRefLengthCommand:
		return m.Array
	case *jdwp.ThreadGroupNameCommand:
		return m.Group
	case *jdwp.ThreadGroupParentCommand:
		return m.Group
	}
	return 0
}

// threadOf returns the thread a thread-local state command is about.
func threadOf(m jdwp.CommandMessage) (jdwp.ThreadID, bool) {
	switch m := m.(type) {
	case *jdwp.ThreadFramesCommand:
		return m.Thread, true
	case *jdwp.ThreadFrameCountCommand:
		return m.Thread, true
	case *jdwp.FrameThisObjectCommand:
		return m.Thread, true
	case *jdwp.FrameGetValuesCommand:
		return m.Thread, true
	case *jdwp.ThreadNameCommand:
		return m.Thread, true
	case *jdwp.ThreadStatusCommand:
		return m.Thread, true
	case *jdwp.ThreadSuspendCountCommand:
		return m.Thread, true
	case *jdwp.ThreadGroupOfCommand:
		return m.Thread, true
	}
	return 0, false
}

// Keyable reports whether the default policy caches replies to cmd: class
// metadata commands, valid until their class is unloaded or redefined; state
// commands (frames, locals, threads, the loaded classes), valid while threads
// stay suspended; an
// object's type and a string's value, valid until the id is disposed; and
// the VM's version and capabilities, valid for the session.
func Keyable(cmd jdwp.Command) bool {
	_, ok := keyable[cmd]
	return ok
}

// EndsEpoch reports whether a debugger command ends a suspension epoch: it
// lets threads run or changes what state replies say (resumes, suspends,
// invokes, PopFrames, hot swap, …). Replies about suspended threads read
// before it are not served after it.
func EndsEpoch(cmd jdwp.Command) bool { return commandTraits[cmd].endsEpoch }

// ChangesValues reports whether a debugger command changes values (the
// SetValues commands): the replies of ValueCommand commands read before it
// are not served after it; other state replies still are.
func ChangesValues(cmd jdwp.Command) bool { return commandTraits[cmd].changesValues }

// ValueCommand reports whether cmd reads values that ChangesValues commands
// change (StackFrame.GetValues, ObjectReference.GetValues).
func ValueCommand(cmd jdwp.Command) bool { return keyable[cmd].values }

// StateCommand reports whether the default policy caches replies to cmd only
// while threads stay suspended (one suspension epoch).
func StateCommand(cmd jdwp.Command) bool {
	k, ok := keyable[cmd]
	return ok && k.life == lifetimeSuspension
}

// MovingState reports whether cmd reads state that changes while threads
// run (a thread's status, name or group, the thread list, the group tree,
// the values of objects, arrays and types):
// under Sequential its replies may be served from speculation while the
// threads it is about run, under the rules of the package documentation.
func MovingState(cmd jdwp.Command) bool { return keyable[cmd].moving }

// PinsState reports whether the reply to cmd tells the debugger a state of
// the VM at the moment the VM answered: not a class's metadata, an
// object's facts or the session's, which are true in every state the
// debugger could place them in.
func PinsState(cmd jdwp.Command) bool {
	k, ok := keyable[cmd]
	return !ok || k.life == lifetimeSuspension
}
