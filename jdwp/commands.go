// The command table of the JDWP specification (Java 17), plus
// ThreadReference.IsVirtual of Java 21 and the Android DDM vendor set.
// When adding a command, add its variable and its name in commandNames.

package jdwp

import "strconv"

// A CommandSet is the command set byte of a command packet. Sets 0..63 are
// commands to the VM, 64..127 commands from the VM (events), 128..255 vendor
// extensions (Android's DDM uses 0xC7).
type CommandSet uint8

// The command sets of the specification.
const (
	SetVirtualMachine       CommandSet = 1
	SetReferenceType        CommandSet = 2
	SetClassType            CommandSet = 3
	SetArrayType            CommandSet = 4
	SetInterfaceType        CommandSet = 5
	SetMethod               CommandSet = 6
	SetField                CommandSet = 8
	SetObjectReference      CommandSet = 9
	SetStringReference      CommandSet = 10
	SetThreadReference      CommandSet = 11
	SetThreadGroupReference CommandSet = 12
	SetArrayReference       CommandSet = 13
	SetClassLoaderReference CommandSet = 14
	SetEventRequest         CommandSet = 15
	SetStackFrame           CommandSet = 16
	SetClassObjectReference CommandSet = 17
	SetModuleReference      CommandSet = 18
	SetEvent                CommandSet = 64
	SetDDM                  CommandSet = 199
)

// A Command names one command: its command set and its command number.
type Command struct {
	Set CommandSet
	Cmd uint8
}

// Every command of the specification, named Cmd<Set><Command>.
var (
	CmdVirtualMachineVersion                      = Command{SetVirtualMachine, 1}
	CmdVirtualMachineClassesBySignature           = Command{SetVirtualMachine, 2}
	CmdVirtualMachineAllClasses                   = Command{SetVirtualMachine, 3}
	CmdVirtualMachineAllThreads                   = Command{SetVirtualMachine, 4}
	CmdVirtualMachineTopLevelThreadGroups         = Command{SetVirtualMachine, 5}
	CmdVirtualMachineDispose                      = Command{SetVirtualMachine, 6}
	CmdVirtualMachineIDSizes                      = Command{SetVirtualMachine, 7}
	CmdVirtualMachineSuspend                      = Command{SetVirtualMachine, 8}
	CmdVirtualMachineResume                       = Command{SetVirtualMachine, 9}
	CmdVirtualMachineExit                         = Command{SetVirtualMachine, 10}
	CmdVirtualMachineCreateString                 = Command{SetVirtualMachine, 11}
	CmdVirtualMachineCapabilities                 = Command{SetVirtualMachine, 12}
	CmdVirtualMachineClassPaths                   = Command{SetVirtualMachine, 13}
	CmdVirtualMachineDisposeObjects               = Command{SetVirtualMachine, 14}
	CmdVirtualMachineHoldEvents                   = Command{SetVirtualMachine, 15}
	CmdVirtualMachineReleaseEvents                = Command{SetVirtualMachine, 16}
	CmdVirtualMachineCapabilitiesNew              = Command{SetVirtualMachine, 17}
	CmdVirtualMachineRedefineClasses              = Command{SetVirtualMachine, 18}
	CmdVirtualMachineSetDefaultStratum            = Command{SetVirtualMachine, 19}
	CmdVirtualMachineAllClassesWithGeneric        = Command{SetVirtualMachine, 20}
	CmdVirtualMachineInstanceCounts               = Command{SetVirtualMachine, 21}
	CmdVirtualMachineAllModules                   = Command{SetVirtualMachine, 22}
	CmdReferenceTypeSignature                     = Command{SetReferenceType, 1}
	CmdReferenceTypeClassLoader                   = Command{SetReferenceType, 2}
	CmdReferenceTypeModifiers                     = Command{SetReferenceType, 3}
	CmdReferenceTypeFields                        = Command{SetReferenceType, 4}
	CmdReferenceTypeMethods                       = Command{SetReferenceType, 5}
	CmdReferenceTypeGetValues                     = Command{SetReferenceType, 6}
	CmdReferenceTypeSourceFile                    = Command{SetReferenceType, 7}
	CmdReferenceTypeNestedTypes                   = Command{SetReferenceType, 8}
	CmdReferenceTypeStatus                        = Command{SetReferenceType, 9}
	CmdReferenceTypeInterfaces                    = Command{SetReferenceType, 10}
	CmdReferenceTypeClassObject                   = Command{SetReferenceType, 11}
	CmdReferenceTypeSourceDebugExtension          = Command{SetReferenceType, 12}
	CmdReferenceTypeSignatureWithGeneric          = Command{SetReferenceType, 13}
	CmdReferenceTypeFieldsWithGeneric             = Command{SetReferenceType, 14}
	CmdReferenceTypeMethodsWithGeneric            = Command{SetReferenceType, 15}
	CmdReferenceTypeInstances                     = Command{SetReferenceType, 16}
	CmdReferenceTypeClassFileVersion              = Command{SetReferenceType, 17}
	CmdReferenceTypeConstantPool                  = Command{SetReferenceType, 18}
	CmdReferenceTypeModule                        = Command{SetReferenceType, 19}
	CmdClassTypeSuperclass                        = Command{SetClassType, 1}
	CmdClassTypeSetValues                         = Command{SetClassType, 2}
	CmdClassTypeInvokeMethod                      = Command{SetClassType, 3}
	CmdClassTypeNewInstance                       = Command{SetClassType, 4}
	CmdArrayTypeNewInstance                       = Command{SetArrayType, 1}
	CmdInterfaceTypeInvokeMethod                  = Command{SetInterfaceType, 1}
	CmdMethodLineTable                            = Command{SetMethod, 1}
	CmdMethodVariableTable                        = Command{SetMethod, 2}
	CmdMethodBytecodes                            = Command{SetMethod, 3}
	CmdMethodIsObsolete                           = Command{SetMethod, 4}
	CmdMethodVariableTableWithGeneric             = Command{SetMethod, 5}
	CmdObjectReferenceReferenceType               = Command{SetObjectReference, 1}
	CmdObjectReferenceGetValues                   = Command{SetObjectReference, 2}
	CmdObjectReferenceSetValues                   = Command{SetObjectReference, 3}
	CmdObjectReferenceMonitorInfo                 = Command{SetObjectReference, 5}
	CmdObjectReferenceInvokeMethod                = Command{SetObjectReference, 6}
	CmdObjectReferenceDisableCollection           = Command{SetObjectReference, 7}
	CmdObjectReferenceEnableCollection            = Command{SetObjectReference, 8}
	CmdObjectReferenceIsCollected                 = Command{SetObjectReference, 9}
	CmdObjectReferenceReferringObjects            = Command{SetObjectReference, 10}
	CmdStringReferenceValue                       = Command{SetStringReference, 1}
	CmdThreadReferenceName                        = Command{SetThreadReference, 1}
	CmdThreadReferenceSuspend                     = Command{SetThreadReference, 2}
	CmdThreadReferenceResume                      = Command{SetThreadReference, 3}
	CmdThreadReferenceStatus                      = Command{SetThreadReference, 4}
	CmdThreadReferenceThreadGroup                 = Command{SetThreadReference, 5}
	CmdThreadReferenceFrames                      = Command{SetThreadReference, 6}
	CmdThreadReferenceFrameCount                  = Command{SetThreadReference, 7}
	CmdThreadReferenceOwnedMonitors               = Command{SetThreadReference, 8}
	CmdThreadReferenceCurrentContendedMonitor     = Command{SetThreadReference, 9}
	CmdThreadReferenceStop                        = Command{SetThreadReference, 10}
	CmdThreadReferenceInterrupt                   = Command{SetThreadReference, 11}
	CmdThreadReferenceSuspendCount                = Command{SetThreadReference, 12}
	CmdThreadReferenceOwnedMonitorsStackDepthInfo = Command{SetThreadReference, 13}
	CmdThreadReferenceForceEarlyReturn            = Command{SetThreadReference, 14}
	CmdThreadReferenceIsVirtual                   = Command{SetThreadReference, 15}
	CmdThreadGroupReferenceName                   = Command{SetThreadGroupReference, 1}
	CmdThreadGroupReferenceParent                 = Command{SetThreadGroupReference, 2}
	CmdThreadGroupReferenceChildren               = Command{SetThreadGroupReference, 3}
	CmdArrayReferenceLength                       = Command{SetArrayReference, 1}
	CmdArrayReferenceGetValues                    = Command{SetArrayReference, 2}
	CmdArrayReferenceSetValues                    = Command{SetArrayReference, 3}
	CmdClassLoaderReferenceVisibleClasses         = Command{SetClassLoaderReference, 1}
	CmdEventRequestSet                            = Command{SetEventRequest, 1}
	CmdEventRequestClear                          = Command{SetEventRequest, 2}
	CmdEventRequestClearAllBreakpoints            = Command{SetEventRequest, 3}
	CmdStackFrameGetValues                        = Command{SetStackFrame, 1}
	CmdStackFrameSetValues                        = Command{SetStackFrame, 2}
	CmdStackFrameThisObject                       = Command{SetStackFrame, 3}
	CmdStackFramePopFrames                        = Command{SetStackFrame, 4}
	CmdClassObjectReferenceReflectedType          = Command{SetClassObjectReference, 1}
	CmdModuleReferenceName                        = Command{SetModuleReference, 1}
	CmdModuleReferenceClassLoader                 = Command{SetModuleReference, 2}
	CmdEventComposite                             = Command{SetEvent, 100}
	CmdDDMChunk                                   = Command{SetDDM, 1}
)

var commandSetNames = [256]string{
	1:   "VirtualMachine",
	2:   "ReferenceType",
	3:   "ClassType",
	4:   "ArrayType",
	5:   "InterfaceType",
	6:   "Method",
	8:   "Field",
	9:   "ObjectReference",
	10:  "StringReference",
	11:  "ThreadReference",
	12:  "ThreadGroupReference",
	13:  "ArrayReference",
	14:  "ClassLoaderReference",
	15:  "EventRequest",
	16:  "StackFrame",
	17:  "ClassObjectReference",
	18:  "ModuleReference",
	64:  "Event",
	199: "DDM",
}

var commandNames = map[Command]string{
	CmdVirtualMachineVersion:                      "VirtualMachine.Version",
	CmdVirtualMachineClassesBySignature:           "VirtualMachine.ClassesBySignature",
	CmdVirtualMachineAllClasses:                   "VirtualMachine.AllClasses",
	CmdVirtualMachineAllThreads:                   "VirtualMachine.AllThreads",
	CmdVirtualMachineTopLevelThreadGroups:         "VirtualMachine.TopLevelThreadGroups",
	CmdVirtualMachineDispose:                      "VirtualMachine.Dispose",
	CmdVirtualMachineIDSizes:                      "VirtualMachine.IDSizes",
	CmdVirtualMachineSuspend:                      "VirtualMachine.Suspend",
	CmdVirtualMachineResume:                       "VirtualMachine.Resume",
	CmdVirtualMachineExit:                         "VirtualMachine.Exit",
	CmdVirtualMachineCreateString:                 "VirtualMachine.CreateString",
	CmdVirtualMachineCapabilities:                 "VirtualMachine.Capabilities",
	CmdVirtualMachineClassPaths:                   "VirtualMachine.ClassPaths",
	CmdVirtualMachineDisposeObjects:               "VirtualMachine.DisposeObjects",
	CmdVirtualMachineHoldEvents:                   "VirtualMachine.HoldEvents",
	CmdVirtualMachineReleaseEvents:                "VirtualMachine.ReleaseEvents",
	CmdVirtualMachineCapabilitiesNew:              "VirtualMachine.CapabilitiesNew",
	CmdVirtualMachineRedefineClasses:              "VirtualMachine.RedefineClasses",
	CmdVirtualMachineSetDefaultStratum:            "VirtualMachine.SetDefaultStratum",
	CmdVirtualMachineAllClassesWithGeneric:        "VirtualMachine.AllClassesWithGeneric",
	CmdVirtualMachineInstanceCounts:               "VirtualMachine.InstanceCounts",
	CmdVirtualMachineAllModules:                   "VirtualMachine.AllModules",
	CmdReferenceTypeSignature:                     "ReferenceType.Signature",
	CmdReferenceTypeClassLoader:                   "ReferenceType.ClassLoader",
	CmdReferenceTypeModifiers:                     "ReferenceType.Modifiers",
	CmdReferenceTypeFields:                        "ReferenceType.Fields",
	CmdReferenceTypeMethods:                       "ReferenceType.Methods",
	CmdReferenceTypeGetValues:                     "ReferenceType.GetValues",
	CmdReferenceTypeSourceFile:                    "ReferenceType.SourceFile",
	CmdReferenceTypeNestedTypes:                   "ReferenceType.NestedTypes",
	CmdReferenceTypeStatus:                        "ReferenceType.Status",
	CmdReferenceTypeInterfaces:                    "ReferenceType.Interfaces",
	CmdReferenceTypeClassObject:                   "ReferenceType.ClassObject",
	CmdReferenceTypeSourceDebugExtension:          "ReferenceType.SourceDebugExtension",
	CmdReferenceTypeSignatureWithGeneric:          "ReferenceType.SignatureWithGeneric",
	CmdReferenceTypeFieldsWithGeneric:             "ReferenceType.FieldsWithGeneric",
	CmdReferenceTypeMethodsWithGeneric:            "ReferenceType.MethodsWithGeneric",
	CmdReferenceTypeInstances:                     "ReferenceType.Instances",
	CmdReferenceTypeClassFileVersion:              "ReferenceType.ClassFileVersion",
	CmdReferenceTypeConstantPool:                  "ReferenceType.ConstantPool",
	CmdReferenceTypeModule:                        "ReferenceType.Module",
	CmdClassTypeSuperclass:                        "ClassType.Superclass",
	CmdClassTypeSetValues:                         "ClassType.SetValues",
	CmdClassTypeInvokeMethod:                      "ClassType.InvokeMethod",
	CmdClassTypeNewInstance:                       "ClassType.NewInstance",
	CmdArrayTypeNewInstance:                       "ArrayType.NewInstance",
	CmdInterfaceTypeInvokeMethod:                  "InterfaceType.InvokeMethod",
	CmdMethodLineTable:                            "Method.LineTable",
	CmdMethodVariableTable:                        "Method.VariableTable",
	CmdMethodBytecodes:                            "Method.Bytecodes",
	CmdMethodIsObsolete:                           "Method.IsObsolete",
	CmdMethodVariableTableWithGeneric:             "Method.VariableTableWithGeneric",
	CmdObjectReferenceReferenceType:               "ObjectReference.ReferenceType",
	CmdObjectReferenceGetValues:                   "ObjectReference.GetValues",
	CmdObjectReferenceSetValues:                   "ObjectReference.SetValues",
	CmdObjectReferenceMonitorInfo:                 "ObjectReference.MonitorInfo",
	CmdObjectReferenceInvokeMethod:                "ObjectReference.InvokeMethod",
	CmdObjectReferenceDisableCollection:           "ObjectReference.DisableCollection",
	CmdObjectReferenceEnableCollection:            "ObjectReference.EnableCollection",
	CmdObjectReferenceIsCollected:                 "ObjectReference.IsCollected",
	CmdObjectReferenceReferringObjects:            "ObjectReference.ReferringObjects",
	CmdStringReferenceValue:                       "StringReference.Value",
	CmdThreadReferenceName:                        "ThreadReference.Name",
	CmdThreadReferenceSuspend:                     "ThreadReference.Suspend",
	CmdThreadReferenceResume:                      "ThreadReference.Resume",
	CmdThreadReferenceStatus:                      "ThreadReference.Status",
	CmdThreadReferenceThreadGroup:                 "ThreadReference.ThreadGroup",
	CmdThreadReferenceFrames:                      "ThreadReference.Frames",
	CmdThreadReferenceFrameCount:                  "ThreadReference.FrameCount",
	CmdThreadReferenceOwnedMonitors:               "ThreadReference.OwnedMonitors",
	CmdThreadReferenceCurrentContendedMonitor:     "ThreadReference.CurrentContendedMonitor",
	CmdThreadReferenceStop:                        "ThreadReference.Stop",
	CmdThreadReferenceInterrupt:                   "ThreadReference.Interrupt",
	CmdThreadReferenceSuspendCount:                "ThreadReference.SuspendCount",
	CmdThreadReferenceOwnedMonitorsStackDepthInfo: "ThreadReference.OwnedMonitorsStackDepthInfo",
	CmdThreadReferenceForceEarlyReturn:            "ThreadReference.ForceEarlyReturn",
	CmdThreadReferenceIsVirtual:                   "ThreadReference.IsVirtual",
	CmdThreadGroupReferenceName:                   "ThreadGroupReference.Name",
	CmdThreadGroupReferenceParent:                 "ThreadGroupReference.Parent",
	CmdThreadGroupReferenceChildren:               "ThreadGroupReference.Children",
	CmdArrayReferenceLength:                       "ArrayReference.Length",
	CmdArrayReferenceGetValues:                    "ArrayReference.GetValues",
	CmdArrayReferenceSetValues:                    "ArrayReference.SetValues",
	CmdClassLoaderReferenceVisibleClasses:         "ClassLoaderReference.VisibleClasses",
	CmdEventRequestSet:                            "EventRequest.Set",
	CmdEventRequestClear:                          "EventRequest.Clear",
	CmdEventRequestClearAllBreakpoints:            "EventRequest.ClearAllBreakpoints",
	CmdStackFrameGetValues:                        "StackFrame.GetValues",
	CmdStackFrameSetValues:                        "StackFrame.SetValues",
	CmdStackFrameThisObject:                       "StackFrame.ThisObject",
	CmdStackFramePopFrames:                        "StackFrame.PopFrames",
	CmdClassObjectReferenceReflectedType:          "ClassObjectReference.ReflectedType",
	CmdModuleReferenceName:                        "ModuleReference.Name",
	CmdModuleReferenceClassLoader:                 "ModuleReference.ClassLoader",
	CmdEventComposite:                             "Event.Composite",
	CmdDDMChunk:                                   "DDM.Chunk",
}

// String returns the set's name from the specification, such as "ReferenceType",
// or its number for a set the specification does not name.
func (s CommandSet) String() string {
	if n := commandSetNames[s]; n != "" {
		return n
	}
	return "CommandSet(" + strconv.Itoa(int(s)) + ")"
}

// String returns the command's name from the specification, such as
// "ReferenceType.SourceFile", or "Set.Command(n)" for an unknown command.
func (c Command) String() string {
	if n, ok := commandNames[c]; ok {
		return n
	}
	return c.Set.String() + ".Command(" + strconv.Itoa(int(c.Cmd)) + ")"
}

// Known reports whether the specification defines the command.
func (c Command) Known() bool {
	_, ok := commandNames[c]
	return ok
}

// AllCommands returns every command the package knows, in no particular order.
func AllCommands() []Command {
	cmds := make([]Command, 0, len(commandNames))
	for c := range commandNames {
		cmds = append(cmds, c)
	}
	return cmds
}
