package jdwp_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// gen draws random protocol values for one set of id sizes.
type gen struct {
	t *rapid.T
	s jdwp.IDSizes
}

func newGen(t *rapid.T) *gen {
	size := func(name string) int { return rapid.IntRange(1, 8).Draw(t, name) }
	return &gen{t: t, s: jdwp.IDSizes{FieldID: size("field"), MethodID: size("method"), ObjectID: size("object"),
		ReferenceTypeID: size("refType"), FrameID: size("frame")}}
}

func (g *gen) id(bytes int, name string) uint64 {
	v := rapid.Uint64().Draw(g.t, name)
	if bytes < 8 {
		v &= 1<<(8*uint(bytes)) - 1
	}
	return v
}

func (g *gen) obj() jdwp.ObjectID { return jdwp.ObjectID(g.id(g.s.ObjectID, "obj")) }
func (g *gen) ref() jdwp.ReferenceTypeID {
	return jdwp.ReferenceTypeID(g.id(g.s.ReferenceTypeID, "ref"))
}
func (g *gen) method() jdwp.MethodID       { return jdwp.MethodID(g.id(g.s.MethodID, "method")) }
func (g *gen) field() jdwp.FieldID         { return jdwp.FieldID(g.id(g.s.FieldID, "field")) }
func (g *gen) frame() jdwp.FrameID         { return jdwp.FrameID(g.id(g.s.FrameID, "frame")) }
func (g *gen) i32() int32                  { return rapid.Int32().Draw(g.t, "i32") }
func (g *gen) i64() int64                  { return rapid.Int64().Draw(g.t, "i64") }
func (g *gen) u64() uint64                 { return rapid.Uint64().Draw(g.t, "u64") }
func (g *gen) bool() bool                  { return rapid.Bool().Draw(g.t, "bool") }
func (g *gen) str() string                 { return rapid.String().Draw(g.t, "str") }
func (g *gen) n() int                      { return rapid.IntRange(0, 4).Draw(g.t, "n") }
func (g *gen) typeTag() jdwp.TypeTag       { return jdwp.TypeTag(rapid.IntRange(1, 3).Draw(g.t, "typeTag")) }
func (g *gen) bytes() []byte               { return rapid.SliceOfN(rapid.Byte(), 0, 40).Draw(g.t, "bytes") }
func (g *gen) tag() jdwp.Tag               { return rapid.SampledFrom(allTags).Draw(g.t, "tag") }
func (g *gen) objTag() jdwp.Tag            { return rapid.SampledFrom(objectTags).Draw(g.t, "objTag") }
func (g *gen) tagged() jdwp.TaggedObjectID { return jdwp.TaggedObjectID{Tag: g.objTag(), ID: g.obj()} }
func (g *gen) loc() jdwp.Location {
	return jdwp.Location{TypeTag: g.typeTag(), Class: g.ref(), Method: g.method(), Index: g.u64()}
}

var objectTags = []jdwp.Tag{jdwp.TagArray, jdwp.TagObject, jdwp.TagString, jdwp.TagThread, jdwp.TagThreadGroup,
	jdwp.TagClassLoader, jdwp.TagClassObject}
var allTags = append([]jdwp.Tag{jdwp.TagByte, jdwp.TagChar, jdwp.TagFloat, jdwp.TagDouble, jdwp.TagInt, jdwp.TagLong,
	jdwp.TagShort, jdwp.TagVoid, jdwp.TagBoolean}, objectTags...)

// value draws a value in canonical form: signed kinds sign-extended, unsigned
// kinds zero-extended, booleans 0 or 1.
func (g *gen) value() jdwp.Value { return g.valueOf(g.tag()) }

// valueOf draws a value of tag t in canonical form.
func (g *gen) valueOf(t jdwp.Tag) jdwp.Value {
	v := g.u64()
	switch t {
	case jdwp.TagByte:
		v = uint64(int64(int8(v)))
	case jdwp.TagShort:
		v = uint64(int64(int16(v)))
	case jdwp.TagInt:
		v = uint64(int64(int32(v)))
	case jdwp.TagChar:
		v = uint64(uint16(v))
	case jdwp.TagFloat:
		v = uint64(uint32(v))
	case jdwp.TagBoolean:
		v &= 1
	case jdwp.TagVoid:
		v = 0
	case jdwp.TagLong, jdwp.TagDouble:
	default:
		v = uint64(g.obj())
	}
	return jdwp.Value{Tag: t, Bits: v}
}

// arrayRegion draws an array's elements: tagged objects, or primitives of
// one kind (not void: no array holds it).
func (g *gen) arrayRegion() jdwp.Message {
	tag := rapid.SampledFrom(allTags).Filter(func(t jdwp.Tag) bool { return t != jdwp.TagVoid }).Draw(g.t, "regionTag")
	if tag.IsObject() {
		return &jdwp.ArrayRegionReply{Tag: tag, Values: sliceOf(g, func() jdwp.Value {
			return jdwp.Value{Tag: g.objTag(), Bits: uint64(g.obj())}
		})}
	}
	return &jdwp.ArrayRegionReply{Tag: tag, Values: sliceOf(g, func() jdwp.Value { return g.valueOf(tag) })}
}

// call draws the thread, method, arguments and options of an invocation.
func (g *gen) call() jdwp.MethodCall {
	return jdwp.MethodCall{Thread: g.obj(), Method: g.method(), Args: sliceOf(g, g.value), Options: g.i32()}
}

func sliceOf[T any](g *gen, f func() T) []T {
	out := make([]T, g.n())
	for i := range out {
		out[i] = f()
	}
	return out
}

// messageCase draws one message and names the empty message it decodes into.
type messageCase struct {
	name  string
	draw  func(g *gen) jdwp.Message
	empty func() jdwp.Message
}

func cmdCase(c jdwp.Command, draw func(g *gen) jdwp.Message) messageCase {
	return messageCase{c.String() + " command", draw, func() jdwp.Message { return jdwp.NewCommandMessage(c) }}
}

func replyCase(c jdwp.Command, draw func(g *gen) jdwp.Message) messageCase {
	return messageCase{c.String() + " reply", draw, func() jdwp.Message { return jdwp.NewReplyMessage(c) }}
}

func emptyCmd(c jdwp.Command) messageCase {
	return cmdCase(c, func(*gen) jdwp.Message { return jdwp.NewCommandMessage(c) })
}

func emptyReply(c jdwp.Command) messageCase {
	return replyCase(c, func(*gen) jdwp.Message { return &jdwp.EmptyReply{} })
}

func stringReply(c jdwp.Command) messageCase {
	return replyCase(c, func(g *gen) jdwp.Message { return &jdwp.StringReply{Value: g.str()} })
}

func classes(g *gen, generic bool) []jdwp.ClassInfo {
	return sliceOf(g, func() jdwp.ClassInfo {
		c := jdwp.ClassInfo{TypeTag: g.typeTag(), TypeID: g.ref(), Signature: g.str(), Status: g.i32()}
		if generic {
			c.Generic = g.str()
		}
		return c
	})
}

func methodsReply(g *gen, generic bool) jdwp.Message {
	return &jdwp.RefTypeMethodsReply{Generic: generic, Methods: sliceOf(g, func() jdwp.MethodInfo {
		m := jdwp.MethodInfo{Method: g.method(), Name: g.str(), Signature: g.str(), ModBits: g.i32()}
		if generic {
			m.Generic = g.str()
		}
		return m
	})}
}

func fieldsReply(g *gen, generic bool) jdwp.Message {
	return &jdwp.RefTypeFieldsReply{Generic: generic, Fields: sliceOf(g, func() jdwp.FieldInfo {
		f := jdwp.FieldInfo{Field: g.field(), Name: g.str(), Signature: g.str(), ModBits: g.i32()}
		if generic {
			f.Generic = g.str()
		}
		return f
	})}
}

func variableTable(g *gen, generic bool) jdwp.Message {
	return &jdwp.MethodVariableTableReply{Generic: generic, ArgCount: g.i32(), Slots: sliceOf(g, func() jdwp.VariableSlot {
		s := jdwp.VariableSlot{CodeIndex: g.u64(), Name: g.str(), Signature: g.str(), Length: g.i32(), Slot: g.i32()}
		if generic {
			s.Generic = g.str()
		}
		return s
	})}
}

func (g *gen) modifier() jdwp.Modifier {
	switch jdwp.ModKind(rapid.IntRange(1, 13).Draw(g.t, "modKind")) {
	case jdwp.ModCount:
		return &jdwp.CountModifier{Count: g.i32()}
	case jdwp.ModConditional:
		return &jdwp.ConditionalModifier{ExprID: g.i32()}
	case jdwp.ModThreadOnly:
		return &jdwp.ThreadOnlyModifier{Thread: g.obj()}
	case jdwp.ModClassOnly:
		return &jdwp.ClassOnlyModifier{Class: g.ref()}
	case jdwp.ModClassMatch:
		return &jdwp.ClassMatchModifier{Pattern: g.str()}
	case jdwp.ModClassExclude:
		return &jdwp.ClassExcludeModifier{Pattern: g.str()}
	case jdwp.ModLocationOnly:
		return &jdwp.LocationOnlyModifier{Location: g.loc()}
	case jdwp.ModExceptionOnly:
		return &jdwp.ExceptionOnlyModifier{Exception: g.ref(), Caught: g.bool(), Uncaught: g.bool()}
	case jdwp.ModFieldOnly:
		return &jdwp.FieldOnlyModifier{Class: g.ref(), Field: g.field()}
	case jdwp.ModStep:
		return &jdwp.StepModifier{Thread: g.obj(), Size: jdwp.StepSize(g.i32()), Depth: jdwp.StepDepth(g.i32())}
	case jdwp.ModInstanceOnly:
		return &jdwp.InstanceOnlyModifier{Instance: g.obj()}
	case jdwp.ModSourceNameMatch:
		return &jdwp.SourceNameMatchModifier{Pattern: g.str()}
	default:
		return &jdwp.PlatformThreadsOnlyModifier{}
	}
}

// specifiedEventKinds are the kinds with a layout in Event.Composite.
var specifiedEventKinds = []jdwp.EventKind{jdwp.EventVMStart, jdwp.EventSingleStep, jdwp.EventBreakpoint,
	jdwp.EventMethodEntry, jdwp.EventMethodExit, jdwp.EventMethodExitWithReturnValue, jdwp.EventMonitorContendedEnter,
	jdwp.EventMonitorContendedEntered, jdwp.EventMonitorWait, jdwp.EventMonitorWaited, jdwp.EventException,
	jdwp.EventThreadStart, jdwp.EventThreadDeath, jdwp.EventClassPrepare, jdwp.EventClassUnload,
	jdwp.EventFieldAccess, jdwp.EventFieldModification, jdwp.EventVMDeath}

func (g *gen) event() jdwp.Event {
	k := rapid.SampledFrom(specifiedEventKinds).Draw(g.t, "eventKind")
	switch k {
	case jdwp.EventVMStart, jdwp.EventThreadStart, jdwp.EventThreadDeath:
		return &jdwp.ThreadEvent{EventKind: k, RequestID: g.i32(), Thread: g.obj()}
	case jdwp.EventSingleStep, jdwp.EventBreakpoint, jdwp.EventMethodEntry, jdwp.EventMethodExit:
		return &jdwp.LocationEvent{EventKind: k, RequestID: g.i32(), Thread: g.obj(), Location: g.loc()}
	case jdwp.EventMethodExitWithReturnValue:
		return &jdwp.MethodExitWithReturnValueEvent{RequestID: g.i32(), Thread: g.obj(), Location: g.loc(), Value: g.value()}
	case jdwp.EventMonitorContendedEnter, jdwp.EventMonitorContendedEntered:
		return &jdwp.MonitorContendedEvent{EventKind: k, RequestID: g.i32(), Thread: g.obj(), Object: g.tagged(), Location: g.loc()}
	case jdwp.EventMonitorWait:
		return &jdwp.MonitorWaitEvent{RequestID: g.i32(), Thread: g.obj(), Object: g.tagged(), Location: g.loc(), Timeout: g.i64()}
	case jdwp.EventMonitorWaited:
		return &jdwp.MonitorWaitedEvent{RequestID: g.i32(), Thread: g.obj(), Object: g.tagged(), Location: g.loc(), TimedOut: g.bool()}
	case jdwp.EventException:
		return &jdwp.ExceptionEvent{RequestID: g.i32(), Thread: g.obj(), Location: g.loc(), Exception: g.tagged(), CatchLocation: g.loc()}
	case jdwp.EventClassPrepare:
		return &jdwp.ClassPrepareEvent{RequestID: g.i32(), Thread: g.obj(), TypeTag: g.typeTag(), TypeID: g.ref(), Signature: g.str(), Status: g.i32()}
	case jdwp.EventClassUnload:
		return &jdwp.ClassUnloadEvent{RequestID: g.i32(), Signature: g.str()}
	case jdwp.EventFieldAccess:
		return &jdwp.FieldAccessEvent{RequestID: g.i32(), Thread: g.obj(), Location: g.loc(), TypeTag: g.typeTag(), TypeID: g.ref(), Field: g.field(), Object: g.tagged()}
	case jdwp.EventFieldModification:
		return &jdwp.FieldModificationEvent{RequestID: g.i32(), Thread: g.obj(), Location: g.loc(), TypeTag: g.typeTag(), TypeID: g.ref(), Field: g.field(), Object: g.tagged(), ValueToBe: g.value()}
	default:
		return &jdwp.VMDeathEvent{RequestID: g.i32()}
	}
}

func (g *gen) composite() jdwp.Message {
	c := &jdwp.Composite{SuspendPolicy: jdwp.SuspendPolicy(rapid.IntRange(0, 2).Draw(g.t, "policy")), Events: sliceOf(g, g.event)}
	// The kinds without a specified layout may end a composite, with raw data.
	if rapid.Bool().Draw(g.t, "unspecified") {
		k := rapid.SampledFrom([]jdwp.EventKind{jdwp.EventFramePop, jdwp.EventUserDefined, jdwp.EventClassLoad,
			jdwp.EventExceptionCatch}).Draw(g.t, "unspecifiedKind")
		c.Events = append(c.Events, &jdwp.UnspecifiedEvent{EventKind: k, Data: g.bytes()})
	}
	return c
}

var messageCases = []messageCase{
	emptyCmd(jdwp.CmdVirtualMachineVersion),
	replyCase(jdwp.CmdVirtualMachineVersion, func(g *gen) jdwp.Message {
		return &jdwp.VMVersionReply{Description: g.str(), JDWPMajor: g.i32(), JDWPMinor: g.i32(), VMVersion: g.str(), VMName: g.str()}
	}),
	emptyCmd(jdwp.CmdVirtualMachineIDSizes),
	replyCase(jdwp.CmdVirtualMachineIDSizes, func(g *gen) jdwp.Message {
		return &jdwp.VMIDSizesReply{Sizes: jdwp.IDSizes{FieldID: int(g.i32()), MethodID: int(g.i32()), ObjectID: int(g.i32()),
			ReferenceTypeID: int(g.i32()), FrameID: int(g.i32())}}
	}),
	emptyCmd(jdwp.CmdVirtualMachineAllClasses),
	replyCase(jdwp.CmdVirtualMachineAllClasses, func(g *gen) jdwp.Message { return &jdwp.VMAllClassesReply{Classes: classes(g, false)} }),
	emptyCmd(jdwp.CmdVirtualMachineAllClassesWithGeneric),
	replyCase(jdwp.CmdVirtualMachineAllClassesWithGeneric, func(g *gen) jdwp.Message {
		return &jdwp.VMAllClassesWithGenericReply{Classes: classes(g, true)}
	}),
	cmdCase(jdwp.CmdVirtualMachineClassesBySignature, func(g *gen) jdwp.Message {
		return &jdwp.VMClassesBySignatureCommand{Signature: g.str()}
	}),
	replyCase(jdwp.CmdVirtualMachineClassesBySignature, func(g *gen) jdwp.Message {
		return &jdwp.VMClassesBySignatureReply{Classes: sliceOf(g, func() jdwp.TypeStatus {
			return jdwp.TypeStatus{TypeTag: g.typeTag(), TypeID: g.ref(), Status: g.i32()}
		})}
	}),
	cmdCase(jdwp.CmdVirtualMachineRedefineClasses, func(g *gen) jdwp.Message {
		return &jdwp.VMRedefineClassesCommand{Classes: sliceOf(g, func() jdwp.ClassDef {
			return jdwp.ClassDef{RefType: g.ref(), ClassFile: g.bytes()}
		})}
	}),
	emptyReply(jdwp.CmdVirtualMachineRedefineClasses),
	emptyCmd(jdwp.CmdVirtualMachineDispose), emptyReply(jdwp.CmdVirtualMachineDispose),
	cmdCase(jdwp.CmdVirtualMachineExit, func(g *gen) jdwp.Message { return &jdwp.VMExitCommand{ExitCode: g.i32()} }),
	emptyReply(jdwp.CmdVirtualMachineExit),
	emptyCmd(jdwp.CmdVirtualMachineCapabilitiesNew),
	cmdCase(jdwp.CmdVirtualMachineDisposeObjects, func(g *gen) jdwp.Message {
		return &jdwp.VMDisposeObjectsCommand{Requests: sliceOf(g, func() jdwp.DisposeRequest {
			return jdwp.DisposeRequest{Object: g.obj(), RefCount: g.i32()}
		})}
	}),
	emptyReply(jdwp.CmdVirtualMachineDisposeObjects),
	emptyCmd(jdwp.CmdVirtualMachineSuspend), emptyReply(jdwp.CmdVirtualMachineSuspend),
	emptyCmd(jdwp.CmdVirtualMachineResume), emptyReply(jdwp.CmdVirtualMachineResume),
	emptyCmd(jdwp.CmdVirtualMachineAllThreads),
	emptyCmd(jdwp.CmdVirtualMachineTopLevelThreadGroups),
	replyCase(jdwp.CmdVirtualMachineTopLevelThreadGroups, func(g *gen) jdwp.Message { return &jdwp.ObjectIDsReply{IDs: sliceOf(g, g.obj)} }),
	cmdCase(jdwp.CmdThreadReferenceThreadGroup, func(g *gen) jdwp.Message { return &jdwp.ThreadGroupOfCommand{Thread: g.obj()} }),
	replyCase(jdwp.CmdThreadReferenceThreadGroup, func(g *gen) jdwp.Message { return &jdwp.ObjectIDReply{ID: g.obj()} }),
	cmdCase(jdwp.CmdThreadGroupReferenceName, func(g *gen) jdwp.Message { return &jdwp.ThreadGroupNameCommand{Group: g.obj()} }),
	stringReply(jdwp.CmdThreadGroupReferenceName),
	cmdCase(jdwp.CmdThreadGroupReferenceParent, func(g *gen) jdwp.Message { return &jdwp.ThreadGroupParentCommand{Group: g.obj()} }),
	replyCase(jdwp.CmdThreadGroupReferenceParent, func(g *gen) jdwp.Message { return &jdwp.ObjectIDReply{ID: g.obj()} }),
	cmdCase(jdwp.CmdThreadGroupReferenceChildren, func(g *gen) jdwp.Message { return &jdwp.ThreadGroupChildrenCommand{Group: g.obj()} }),
	replyCase(jdwp.CmdThreadGroupReferenceChildren, func(g *gen) jdwp.Message {
		return &jdwp.ThreadGroupChildrenReply{Threads: sliceOf(g, g.obj), Groups: sliceOf(g, g.obj)}
	}),
	replyCase(jdwp.CmdVirtualMachineAllThreads, func(g *gen) jdwp.Message { return &jdwp.ObjectIDsReply{IDs: sliceOf(g, g.obj)} }),

	cmdCase(jdwp.CmdReferenceTypeSignature, func(g *gen) jdwp.Message { return &jdwp.RefTypeSignatureCommand{RefType: g.ref()} }),
	cmdCase(jdwp.CmdReferenceTypeClassLoader, func(g *gen) jdwp.Message { return &jdwp.RefTypeClassLoaderCommand{RefType: g.ref()} }),
	cmdCase(jdwp.CmdReferenceTypeModifiers, func(g *gen) jdwp.Message { return &jdwp.RefTypeModifiersCommand{RefType: g.ref()} }),
	replyCase(jdwp.CmdReferenceTypeModifiers, func(g *gen) jdwp.Message { return &jdwp.IntReply{Value: g.i32()} }),
	cmdCase(jdwp.CmdReferenceTypeClassObject, func(g *gen) jdwp.Message { return &jdwp.RefTypeClassObjectCommand{RefType: g.ref()} }),
	cmdCase(jdwp.CmdReferenceTypeClassFileVersion, func(g *gen) jdwp.Message {
		return &jdwp.RefTypeClassFileVersionCommand{RefType: g.ref()}
	}),
	cmdCase(jdwp.CmdReferenceTypeModule, func(g *gen) jdwp.Message { return &jdwp.RefTypeModuleCommand{RefType: g.ref()} }),
	cmdCase(jdwp.CmdMethodBytecodes, func(g *gen) jdwp.Message {
		return &jdwp.MethodBytecodesCommand{RefType: g.ref(), Method: g.method()}
	}),
	cmdCase(jdwp.CmdArrayReferenceLength, func(g *gen) jdwp.Message { return &jdwp.ArrayRefLengthCommand{Array: g.obj()} }),
	replyCase(jdwp.CmdArrayReferenceLength, func(g *gen) jdwp.Message { return &jdwp.IntReply{Value: g.i32()} }),
	cmdCase(jdwp.CmdArrayReferenceGetValues, func(g *gen) jdwp.Message {
		return &jdwp.ArrayRefGetValuesCommand{Array: g.obj(), First: g.i32(), Length: g.i32()}
	}),
	replyCase(jdwp.CmdArrayReferenceGetValues, func(g *gen) jdwp.Message { return g.arrayRegion() }),
	cmdCase(jdwp.CmdObjectReferenceGetValues, func(g *gen) jdwp.Message {
		return &jdwp.ObjectRefGetValuesCommand{Object: g.obj(), Fields: sliceOf(g, g.field)}
	}),
	replyCase(jdwp.CmdObjectReferenceGetValues, func(g *gen) jdwp.Message { return &jdwp.ValuesReply{Values: sliceOf(g, g.value)} }),
	stringReply(jdwp.CmdReferenceTypeSignature),
	cmdCase(jdwp.CmdReferenceTypeGetValues, func(g *gen) jdwp.Message {
		return &jdwp.RefTypeGetValuesCommand{RefType: g.ref(), Fields: sliceOf(g, g.field)}
	}),
	replyCase(jdwp.CmdReferenceTypeGetValues, func(g *gen) jdwp.Message { return &jdwp.ValuesReply{Values: sliceOf(g, g.value)} }),
	cmdCase(jdwp.CmdReferenceTypeSignatureWithGeneric, func(g *gen) jdwp.Message {
		return &jdwp.RefTypeSignatureWithGenericCommand{RefType: g.ref()}
	}),
	replyCase(jdwp.CmdReferenceTypeSignatureWithGeneric, func(g *gen) jdwp.Message {
		return &jdwp.RefTypeSignatureWithGenericReply{Signature: g.str(), Generic: g.str()}
	}),
	cmdCase(jdwp.CmdReferenceTypeSourceFile, func(g *gen) jdwp.Message { return &jdwp.RefTypeSourceFileCommand{RefType: g.ref()} }),
	stringReply(jdwp.CmdReferenceTypeSourceFile),
	cmdCase(jdwp.CmdReferenceTypeSourceDebugExtension, func(g *gen) jdwp.Message {
		return &jdwp.RefTypeSourceDebugExtensionCommand{RefType: g.ref()}
	}),
	stringReply(jdwp.CmdReferenceTypeSourceDebugExtension),
	cmdCase(jdwp.CmdReferenceTypeInterfaces, func(g *gen) jdwp.Message { return &jdwp.RefTypeInterfacesCommand{RefType: g.ref()} }),
	replyCase(jdwp.CmdReferenceTypeInterfaces, func(g *gen) jdwp.Message {
		return &jdwp.RefTypeInterfacesReply{Interfaces: sliceOf(g, g.ref)}
	}),
	cmdCase(jdwp.CmdReferenceTypeMethods, func(g *gen) jdwp.Message { return &jdwp.RefTypeMethodsCommand{RefType: g.ref()} }),
	replyCase(jdwp.CmdReferenceTypeMethods, func(g *gen) jdwp.Message { return methodsReply(g, false) }),
	cmdCase(jdwp.CmdReferenceTypeMethodsWithGeneric, func(g *gen) jdwp.Message {
		return &jdwp.RefTypeMethodsWithGenericCommand{RefType: g.ref()}
	}),
	replyCase(jdwp.CmdReferenceTypeMethodsWithGeneric, func(g *gen) jdwp.Message { return methodsReply(g, true) }),
	cmdCase(jdwp.CmdReferenceTypeFields, func(g *gen) jdwp.Message { return &jdwp.RefTypeFieldsCommand{RefType: g.ref()} }),
	replyCase(jdwp.CmdReferenceTypeFields, func(g *gen) jdwp.Message { return fieldsReply(g, false) }),
	cmdCase(jdwp.CmdReferenceTypeFieldsWithGeneric, func(g *gen) jdwp.Message {
		return &jdwp.RefTypeFieldsWithGenericCommand{RefType: g.ref()}
	}),
	replyCase(jdwp.CmdReferenceTypeFieldsWithGeneric, func(g *gen) jdwp.Message { return fieldsReply(g, true) }),
	cmdCase(jdwp.CmdClassTypeSuperclass, func(g *gen) jdwp.Message { return &jdwp.ClassTypeSuperclassCommand{RefType: g.ref()} }),
	replyCase(jdwp.CmdClassTypeSuperclass, func(g *gen) jdwp.Message { return &jdwp.ClassTypeSuperclassReply{Superclass: g.ref()} }),

	cmdCase(jdwp.CmdMethodLineTable, func(g *gen) jdwp.Message {
		return &jdwp.MethodLineTableCommand{RefType: g.ref(), Method: g.method()}
	}),
	replyCase(jdwp.CmdMethodLineTable, func(g *gen) jdwp.Message {
		return &jdwp.MethodLineTableReply{Start: g.i64(), End: g.i64(), Lines: sliceOf(g, func() jdwp.LineEntry {
			return jdwp.LineEntry{CodeIndex: g.u64(), LineNumber: g.i32()}
		})}
	}),
	cmdCase(jdwp.CmdMethodVariableTable, func(g *gen) jdwp.Message {
		return &jdwp.MethodVariableTableCommand{RefType: g.ref(), Method: g.method()}
	}),
	replyCase(jdwp.CmdMethodVariableTable, func(g *gen) jdwp.Message { return variableTable(g, false) }),
	cmdCase(jdwp.CmdMethodVariableTableWithGeneric, func(g *gen) jdwp.Message {
		return &jdwp.MethodVariableTableWithGenericCommand{RefType: g.ref(), Method: g.method()}
	}),
	replyCase(jdwp.CmdMethodVariableTableWithGeneric, func(g *gen) jdwp.Message { return variableTable(g, true) }),
	cmdCase(jdwp.CmdMethodIsObsolete, func(g *gen) jdwp.Message {
		return &jdwp.MethodIsObsoleteCommand{RefType: g.ref(), Method: g.method()}
	}),
	replyCase(jdwp.CmdMethodIsObsolete, func(g *gen) jdwp.Message { return &jdwp.BoolReply{Value: g.bool()} }),

	cmdCase(jdwp.CmdThreadReferenceName, func(g *gen) jdwp.Message { return &jdwp.ThreadNameCommand{Thread: g.obj()} }),
	stringReply(jdwp.CmdThreadReferenceName),
	cmdCase(jdwp.CmdThreadReferenceFrames, func(g *gen) jdwp.Message {
		return &jdwp.ThreadFramesCommand{Thread: g.obj(), StartFrame: g.i32(), Length: g.i32()}
	}),
	replyCase(jdwp.CmdThreadReferenceFrames, func(g *gen) jdwp.Message {
		return &jdwp.ThreadFramesReply{Frames: sliceOf(g, func() jdwp.Frame { return jdwp.Frame{Frame: g.frame(), Location: g.loc()} })}
	}),
	cmdCase(jdwp.CmdThreadReferenceFrameCount, func(g *gen) jdwp.Message { return &jdwp.ThreadFrameCountCommand{Thread: g.obj()} }),
	replyCase(jdwp.CmdThreadReferenceFrameCount, func(g *gen) jdwp.Message { return &jdwp.IntReply{Value: g.i32()} }),
	cmdCase(jdwp.CmdThreadReferenceSuspendCount, func(g *gen) jdwp.Message { return &jdwp.ThreadSuspendCountCommand{Thread: g.obj()} }),
	replyCase(jdwp.CmdThreadReferenceSuspendCount, func(g *gen) jdwp.Message { return &jdwp.IntReply{Value: g.i32()} }),
	cmdCase(jdwp.CmdThreadReferenceStatus, func(g *gen) jdwp.Message { return &jdwp.ThreadStatusCommand{Thread: g.obj()} }),
	cmdCase(jdwp.CmdThreadReferenceSuspend, func(g *gen) jdwp.Message { return &jdwp.ThreadSuspendCommand{Thread: g.obj()} }),
	emptyReply(jdwp.CmdThreadReferenceSuspend),
	cmdCase(jdwp.CmdThreadReferenceResume, func(g *gen) jdwp.Message { return &jdwp.ThreadResumeCommand{Thread: g.obj()} }),
	emptyReply(jdwp.CmdThreadReferenceResume),
	replyCase(jdwp.CmdThreadReferenceStatus, func(g *gen) jdwp.Message {
		return &jdwp.ThreadStatusReply{Status: jdwp.ThreadStatus(g.i32()), SuspendStatus: g.i32()}
	}),
	cmdCase(jdwp.CmdStackFrameGetValues, func(g *gen) jdwp.Message {
		return &jdwp.FrameGetValuesCommand{Thread: g.obj(), Frame: g.frame(), Slots: sliceOf(g, func() jdwp.SlotRequest {
			return jdwp.SlotRequest{Slot: g.i32(), Tag: g.tag()}
		})}
	}),
	replyCase(jdwp.CmdStackFrameGetValues, func(g *gen) jdwp.Message { return &jdwp.ValuesReply{Values: sliceOf(g, g.value)} }),
	cmdCase(jdwp.CmdStackFrameThisObject, func(g *gen) jdwp.Message {
		return &jdwp.FrameThisObjectCommand{Thread: g.obj(), Frame: g.frame()}
	}),
	replyCase(jdwp.CmdStackFrameThisObject, func(g *gen) jdwp.Message { return &jdwp.TaggedObjectReply{Object: g.tagged()} }),
	cmdCase(jdwp.CmdStackFramePopFrames, func(g *gen) jdwp.Message {
		return &jdwp.FramePopFramesCommand{Thread: g.obj(), Frame: g.frame()}
	}),
	emptyReply(jdwp.CmdStackFramePopFrames),
	cmdCase(jdwp.CmdObjectReferenceReferenceType, func(g *gen) jdwp.Message {
		return &jdwp.ObjectRefReferenceTypeCommand{Object: g.obj()}
	}),
	replyCase(jdwp.CmdObjectReferenceReferenceType, func(g *gen) jdwp.Message {
		return &jdwp.ObjectRefReferenceTypeReply{TypeTag: g.typeTag(), TypeID: g.ref()}
	}),
	cmdCase(jdwp.CmdStringReferenceValue, func(g *gen) jdwp.Message { return &jdwp.StringRefValueCommand{Object: g.obj()} }),
	stringReply(jdwp.CmdStringReferenceValue),

	cmdCase(jdwp.CmdObjectReferenceInvokeMethod, func(g *gen) jdwp.Message {
		return &jdwp.ObjectRefInvokeMethodCommand{Object: g.obj(), Class: g.ref(), MethodCall: g.call()}
	}),
	replyCase(jdwp.CmdObjectReferenceInvokeMethod, func(g *gen) jdwp.Message {
		return &jdwp.InvokeMethodReply{Return: g.value(), Exception: g.tagged()}
	}),
	cmdCase(jdwp.CmdClassTypeInvokeMethod, func(g *gen) jdwp.Message {
		return &jdwp.ClassTypeInvokeMethodCommand{StaticCall: jdwp.StaticCall{Class: g.ref(), MethodCall: g.call()}}
	}),
	replyCase(jdwp.CmdClassTypeInvokeMethod, func(g *gen) jdwp.Message {
		return &jdwp.InvokeMethodReply{Return: g.value(), Exception: g.tagged()}
	}),
	cmdCase(jdwp.CmdInterfaceTypeInvokeMethod, func(g *gen) jdwp.Message {
		return &jdwp.InterfaceTypeInvokeMethodCommand{StaticCall: jdwp.StaticCall{Class: g.ref(), MethodCall: g.call()}}
	}),
	replyCase(jdwp.CmdInterfaceTypeInvokeMethod, func(g *gen) jdwp.Message {
		return &jdwp.InvokeMethodReply{Return: g.value(), Exception: g.tagged()}
	}),
	cmdCase(jdwp.CmdClassTypeNewInstance, func(g *gen) jdwp.Message {
		return &jdwp.ClassTypeNewInstanceCommand{StaticCall: jdwp.StaticCall{Class: g.ref(), MethodCall: g.call()}}
	}),
	replyCase(jdwp.CmdClassTypeNewInstance, func(g *gen) jdwp.Message {
		return &jdwp.NewInstanceReply{Object: g.tagged(), Exception: g.tagged()}
	}),

	cmdCase(jdwp.CmdEventRequestSet, func(g *gen) jdwp.Message {
		return &jdwp.EventRequestSetCommand{EventKind: jdwp.EventKind(rapid.Uint8().Draw(g.t, "kind")),
			SuspendPolicy: jdwp.SuspendPolicy(rapid.IntRange(0, 2).Draw(g.t, "policy")), Modifiers: sliceOf(g, g.modifier)}
	}),
	replyCase(jdwp.CmdEventRequestSet, func(g *gen) jdwp.Message { return &jdwp.IntReply{Value: g.i32()} }),
	cmdCase(jdwp.CmdEventRequestClear, func(g *gen) jdwp.Message {
		return &jdwp.EventRequestClearCommand{EventKind: jdwp.EventKind(rapid.Uint8().Draw(g.t, "kind")), RequestID: g.i32()}
	}),
	emptyReply(jdwp.CmdEventRequestClear),
	cmdCase(jdwp.CmdEventComposite, func(g *gen) jdwp.Message { return g.composite() }),
}

// TestRoundTrip checks decode(encode(x)) == x for every typed message, for
// random id sizes from 1 to 8 bytes, and that every strict prefix of the
// encoding fails to decode (a truncated packet is never taken for a short one).
func TestRoundTrip(t *testing.T) {
	for _, mc := range messageCases {
		t.Run(mc.name, func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) {
				g := newGen(rt)
				m := mc.draw(g)
				data := jdwp.Marshal(m, g.s)
				back := mc.empty()
				require.NotNil(rt, back)
				require.NoError(rt, jdwp.Unmarshal(data, g.s, back))
				require.Equal(rt, m, back)
				if len(data) > 0 {
					cut := rapid.IntRange(0, len(data)-1).Draw(rt, "cut")
					err := jdwp.Unmarshal(data[:cut], g.s, mc.empty())
					if _, raw := m.(*jdwp.Composite); !raw || !endsUnspecified(m) {
						require.Error(rt, err, "prefix of %d/%d bytes decoded", cut, len(data))
					}
				}
			})
		})
	}
}

// endsUnspecified reports whether a composite ends with raw data, whose
// prefixes are valid composites too.
func endsUnspecified(m jdwp.Message) bool {
	c := m.(*jdwp.Composite)
	if len(c.Events) == 0 {
		return false
	}
	_, ok := c.Events[len(c.Events)-1].(*jdwp.UnspecifiedEvent)
	return ok
}

// TestEveryCodecHasACase keeps messageCases in step with the registry.
func TestEveryCodecHasACase(t *testing.T) {
	names := map[string]bool{}
	for _, mc := range messageCases {
		names[mc.name] = true
	}
	for _, c := range jdwp.AllCommands() {
		if jdwp.NewCommandMessage(c) != nil {
			require.True(t, names[c.String()+" command"], "no round-trip case for %s command", c)
		}
		if jdwp.NewReplyMessage(c) != nil {
			require.True(t, names[c.String()+" reply"], "no round-trip case for %s reply", c)
		}
	}
}
