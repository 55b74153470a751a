package jdwp

import "strconv"

// An ErrorCode is the error code of a reply packet (the Error constants of the
// specification). It implements error, so a VM error can be returned and
// matched with errors.Is.
type ErrorCode uint16

// The error codes of the specification, named Err<Name>.
const (
	ErrNone                                ErrorCode = 0
	ErrInvalidThread                       ErrorCode = 10
	ErrInvalidThreadGroup                  ErrorCode = 11
	ErrInvalidPriority                     ErrorCode = 12
	ErrThreadNotSuspended                  ErrorCode = 13
	ErrThreadSuspended                     ErrorCode = 14
	ErrThreadNotAlive                      ErrorCode = 15
	ErrInvalidObject                       ErrorCode = 20
	ErrInvalidClass                        ErrorCode = 21
	ErrClassNotPrepared                    ErrorCode = 22
	ErrInvalidMethodID                     ErrorCode = 23
	ErrInvalidLocation                     ErrorCode = 24
	ErrInvalidFieldID                      ErrorCode = 25
	ErrInvalidFrameID                      ErrorCode = 30
	ErrNoMoreFrames                        ErrorCode = 31
	ErrOpaqueFrame                         ErrorCode = 32
	ErrNotCurrentFrame                     ErrorCode = 33
	ErrTypeMismatch                        ErrorCode = 34
	ErrInvalidSlot                         ErrorCode = 35
	ErrDuplicate                           ErrorCode = 40
	ErrNotFound                            ErrorCode = 41
	ErrInvalidModule                       ErrorCode = 42
	ErrInvalidMonitor                      ErrorCode = 50
	ErrNotMonitorOwner                     ErrorCode = 51
	ErrInterrupt                           ErrorCode = 52
	ErrInvalidClassFormat                  ErrorCode = 60
	ErrCircularClassDefinition             ErrorCode = 61
	ErrFailsVerification                   ErrorCode = 62
	ErrAddMethodNotImplemented             ErrorCode = 63
	ErrSchemaChangeNotImplemented          ErrorCode = 64
	ErrInvalidTypestate                    ErrorCode = 65
	ErrHierarchyChangeNotImplemented       ErrorCode = 66
	ErrDeleteMethodNotImplemented          ErrorCode = 67
	ErrUnsupportedVersion                  ErrorCode = 68
	ErrNamesDontMatch                      ErrorCode = 69
	ErrClassModifiersChangeNotImplemented  ErrorCode = 70
	ErrMethodModifiersChangeNotImplemented ErrorCode = 71
	ErrClassAttributeChangeNotImplemented  ErrorCode = 72
	ErrNotImplemented                      ErrorCode = 99
	ErrNullPointer                         ErrorCode = 100
	ErrAbsentInformation                   ErrorCode = 101
	ErrInvalidEventType                    ErrorCode = 102
	ErrIllegalArgument                     ErrorCode = 103
	ErrOutOfMemory                         ErrorCode = 110
	ErrAccessDenied                        ErrorCode = 111
	ErrVMDead                              ErrorCode = 112
	ErrInternal                            ErrorCode = 113
	ErrUnattachedThread                    ErrorCode = 115
	ErrInvalidTag                          ErrorCode = 500
	ErrAlreadyInvoking                     ErrorCode = 502
	ErrInvalidIndex                        ErrorCode = 503
	ErrInvalidLength                       ErrorCode = 504
	ErrInvalidString                       ErrorCode = 506
	ErrInvalidClassLoader                  ErrorCode = 507
	ErrInvalidArray                        ErrorCode = 508
	ErrTransportLoad                       ErrorCode = 509
	ErrTransportInit                       ErrorCode = 510
	ErrNativeMethod                        ErrorCode = 511
	ErrInvalidCount                        ErrorCode = 512
)

var errorCodeNames = map[ErrorCode]string{
	ErrNone:                                "NONE",
	ErrInvalidThread:                       "INVALID_THREAD",
	ErrInvalidThreadGroup:                  "INVALID_THREAD_GROUP",
	ErrInvalidPriority:                     "INVALID_PRIORITY",
	ErrThreadNotSuspended:                  "THREAD_NOT_SUSPENDED",
	ErrThreadSuspended:                     "THREAD_SUSPENDED",
	ErrThreadNotAlive:                      "THREAD_NOT_ALIVE",
	ErrInvalidObject:                       "INVALID_OBJECT",
	ErrInvalidClass:                        "INVALID_CLASS",
	ErrClassNotPrepared:                    "CLASS_NOT_PREPARED",
	ErrInvalidMethodID:                     "INVALID_METHODID",
	ErrInvalidLocation:                     "INVALID_LOCATION",
	ErrInvalidFieldID:                      "INVALID_FIELDID",
	ErrInvalidFrameID:                      "INVALID_FRAMEID",
	ErrNoMoreFrames:                        "NO_MORE_FRAMES",
	ErrOpaqueFrame:                         "OPAQUE_FRAME",
	ErrNotCurrentFrame:                     "NOT_CURRENT_FRAME",
	ErrTypeMismatch:                        "TYPE_MISMATCH",
	ErrInvalidSlot:                         "INVALID_SLOT",
	ErrDuplicate:                           "DUPLICATE",
	ErrNotFound:                            "NOT_FOUND",
	ErrInvalidModule:                       "INVALID_MODULE",
	ErrInvalidMonitor:                      "INVALID_MONITOR",
	ErrNotMonitorOwner:                     "NOT_MONITOR_OWNER",
	ErrInterrupt:                           "INTERRUPT",
	ErrInvalidClassFormat:                  "INVALID_CLASS_FORMAT",
	ErrCircularClassDefinition:             "CIRCULAR_CLASS_DEFINITION",
	ErrFailsVerification:                   "FAILS_VERIFICATION",
	ErrAddMethodNotImplemented:             "ADD_METHOD_NOT_IMPLEMENTED",
	ErrSchemaChangeNotImplemented:          "SCHEMA_CHANGE_NOT_IMPLEMENTED",
	ErrInvalidTypestate:                    "INVALID_TYPESTATE",
	ErrHierarchyChangeNotImplemented:       "HIERARCHY_CHANGE_NOT_IMPLEMENTED",
	ErrDeleteMethodNotImplemented:          "DELETE_METHOD_NOT_IMPLEMENTED",
	ErrUnsupportedVersion:                  "UNSUPPORTED_VERSION",
	ErrNamesDontMatch:                      "NAMES_DONT_MATCH",
	ErrClassModifiersChangeNotImplemented:  "CLASS_MODIFIERS_CHANGE_NOT_IMPLEMENTED",
	ErrMethodModifiersChangeNotImplemented: "METHOD_MODIFIERS_CHANGE_NOT_IMPLEMENTED",
	ErrClassAttributeChangeNotImplemented:  "CLASS_ATTRIBUTE_CHANGE_NOT_IMPLEMENTED",
	ErrNotImplemented:                      "NOT_IMPLEMENTED",
	ErrNullPointer:                         "NULL_POINTER",
	ErrAbsentInformation:                   "ABSENT_INFORMATION",
	ErrInvalidEventType:                    "INVALID_EVENT_TYPE",
	ErrIllegalArgument:                     "ILLEGAL_ARGUMENT",
	ErrOutOfMemory:                         "OUT_OF_MEMORY",
	ErrAccessDenied:                        "ACCESS_DENIED",
	ErrVMDead:                              "VM_DEAD",
	ErrInternal:                            "INTERNAL",
	ErrUnattachedThread:                    "UNATTACHED_THREAD",
	ErrInvalidTag:                          "INVALID_TAG",
	ErrAlreadyInvoking:                     "ALREADY_INVOKING",
	ErrInvalidIndex:                        "INVALID_INDEX",
	ErrInvalidLength:                       "INVALID_LENGTH",
	ErrInvalidString:                       "INVALID_STRING",
	ErrInvalidClassLoader:                  "INVALID_CLASS_LOADER",
	ErrInvalidArray:                        "INVALID_ARRAY",
	ErrTransportLoad:                       "TRANSPORT_LOAD",
	ErrTransportInit:                       "TRANSPORT_INIT",
	ErrNativeMethod:                        "NATIVE_METHOD",
	ErrInvalidCount:                        "INVALID_COUNT",
}

// String returns the name the specification gives the value.
func (v ErrorCode) String() string {
	if n, ok := errorCodeNames[v]; ok {
		return n
	}
	return "ErrorCode(" + strconv.Itoa(int(v)) + ")"
}

// Error returns the code's name, so that an ErrorCode is an error.
func (v ErrorCode) Error() string { return "jdwp: VM error " + v.String() }

// An EventKind is the kind of an event request or of an event in a composite.
type EventKind uint8

// The EventKind values of the specification.
const (
	EventSingleStep                EventKind = 1
	EventBreakpoint                EventKind = 2
	EventFramePop                  EventKind = 3
	EventException                 EventKind = 4
	EventUserDefined               EventKind = 5
	EventThreadStart               EventKind = 6
	EventThreadDeath               EventKind = 7
	EventClassPrepare              EventKind = 8
	EventClassUnload               EventKind = 9
	EventClassLoad                 EventKind = 10
	EventFieldAccess               EventKind = 20
	EventFieldModification         EventKind = 21
	EventExceptionCatch            EventKind = 30
	EventMethodEntry               EventKind = 40
	EventMethodExit                EventKind = 41
	EventMethodExitWithReturnValue EventKind = 42
	EventMonitorContendedEnter     EventKind = 43
	EventMonitorContendedEntered   EventKind = 44
	EventMonitorWait               EventKind = 45
	EventMonitorWaited             EventKind = 46
	EventVMStart                   EventKind = 90
	EventVMDeath                   EventKind = 99
	EventVMDisconnected            EventKind = 100
)

var eventKindNames = map[EventKind]string{
	EventSingleStep:                "SINGLE_STEP",
	EventBreakpoint:                "BREAKPOINT",
	EventFramePop:                  "FRAME_POP",
	EventException:                 "EXCEPTION",
	EventUserDefined:               "USER_DEFINED",
	EventThreadStart:               "THREAD_START",
	EventThreadDeath:               "THREAD_DEATH",
	EventClassPrepare:              "CLASS_PREPARE",
	EventClassUnload:               "CLASS_UNLOAD",
	EventClassLoad:                 "CLASS_LOAD",
	EventFieldAccess:               "FIELD_ACCESS",
	EventFieldModification:         "FIELD_MODIFICATION",
	EventExceptionCatch:            "EXCEPTION_CATCH",
	EventMethodEntry:               "METHOD_ENTRY",
	EventMethodExit:                "METHOD_EXIT",
	EventMethodExitWithReturnValue: "METHOD_EXIT_WITH_RETURN_VALUE",
	EventMonitorContendedEnter:     "MONITOR_CONTENDED_ENTER",
	EventMonitorContendedEntered:   "MONITOR_CONTENDED_ENTERED",
	EventMonitorWait:               "MONITOR_WAIT",
	EventMonitorWaited:             "MONITOR_WAITED",
	EventVMStart:                   "VM_START",
	EventVMDeath:                   "VM_DEATH",
	EventVMDisconnected:            "VM_DISCONNECTED",
}

// String returns the name the specification gives the value.
func (v EventKind) String() string {
	if n, ok := eventKindNames[v]; ok {
		return n
	}
	return "EventKind(" + strconv.Itoa(int(v)) + ")"
}

// A ThreadStatus is a thread's status in a ThreadReference.Status reply.
type ThreadStatus int32

// The ThreadStatus values of the specification.
const (
	ThreadStatusZombie   ThreadStatus = 0
	ThreadStatusRunning  ThreadStatus = 1
	ThreadStatusSleeping ThreadStatus = 2
	ThreadStatusMonitor  ThreadStatus = 3
	ThreadStatusWait     ThreadStatus = 4
)

var threadStatusNames = map[ThreadStatus]string{
	ThreadStatusZombie:   "ZOMBIE",
	ThreadStatusRunning:  "RUNNING",
	ThreadStatusSleeping: "SLEEPING",
	ThreadStatusMonitor:  "MONITOR",
	ThreadStatusWait:     "WAIT",
}

// String returns the name the specification gives the value.
func (v ThreadStatus) String() string {
	if n, ok := threadStatusNames[v]; ok {
		return n
	}
	return "ThreadStatus(" + strconv.Itoa(int(v)) + ")"
}

// A TypeTag is the kind of a reference type.
type TypeTag uint8

// The TypeTag values of the specification.
const (
	TypeTagClass     TypeTag = 1
	TypeTagInterface TypeTag = 2
	TypeTagArray     TypeTag = 3
)

var typeTagNames = map[TypeTag]string{
	TypeTagClass:     "CLASS",
	TypeTagInterface: "INTERFACE",
	TypeTagArray:     "ARRAY",
}

// String returns the name the specification gives the value.
func (v TypeTag) String() string {
	if n, ok := typeTagNames[v]; ok {
		return n
	}
	return "TypeTag(" + strconv.Itoa(int(v)) + ")"
}

// A SuspendPolicy says which threads an event suspends.
type SuspendPolicy uint8

// The SuspendPolicy values of the specification.
const (
	SuspendPolicyNone        SuspendPolicy = 0
	SuspendPolicyEventThread SuspendPolicy = 1
	SuspendPolicyAll         SuspendPolicy = 2
)

var suspendPolicyNames = map[SuspendPolicy]string{
	SuspendPolicyNone:        "NONE",
	SuspendPolicyEventThread: "EVENT_THREAD",
	SuspendPolicyAll:         "ALL",
}

// String returns the name the specification gives the value.
func (v SuspendPolicy) String() string {
	if n, ok := suspendPolicyNames[v]; ok {
		return n
	}
	return "SuspendPolicy(" + strconv.Itoa(int(v)) + ")"
}

// A StepDepth is the depth of a step request.
type StepDepth int32

// The StepDepth values of the specification.
const (
	StepDepthInto StepDepth = 0
	StepDepthOver StepDepth = 1
	StepDepthOut  StepDepth = 2
)

var stepDepthNames = map[StepDepth]string{
	StepDepthInto: "INTO",
	StepDepthOver: "OVER",
	StepDepthOut:  "OUT",
}

// String returns the name the specification gives the value.
func (v StepDepth) String() string {
	if n, ok := stepDepthNames[v]; ok {
		return n
	}
	return "StepDepth(" + strconv.Itoa(int(v)) + ")"
}

// A StepSize is the size of a step request.
type StepSize int32

// The StepSize values of the specification.
const (
	StepSizeMin  StepSize = 0
	StepSizeLine StepSize = 1
)

var stepSizeNames = map[StepSize]string{
	StepSizeMin:  "MIN",
	StepSizeLine: "LINE",
}

// String returns the name the specification gives the value.
func (v StepSize) String() string {
	if n, ok := stepSizeNames[v]; ok {
		return n
	}
	return "StepSize(" + strconv.Itoa(int(v)) + ")"
}

// A ModKind is the kind of an event request modifier (EventRequest.Set).
type ModKind uint8

// The ModKind values of the specification.
const (
	ModCount               ModKind = 1
	ModConditional         ModKind = 2
	ModThreadOnly          ModKind = 3
	ModClassOnly           ModKind = 4
	ModClassMatch          ModKind = 5
	ModClassExclude        ModKind = 6
	ModLocationOnly        ModKind = 7
	ModExceptionOnly       ModKind = 8
	ModFieldOnly           ModKind = 9
	ModStep                ModKind = 10
	ModInstanceOnly        ModKind = 11
	ModSourceNameMatch     ModKind = 12
	ModPlatformThreadsOnly ModKind = 13
)

var modKindNames = map[ModKind]string{
	ModCount:               "Count",
	ModConditional:         "Conditional",
	ModThreadOnly:          "ThreadOnly",
	ModClassOnly:           "ClassOnly",
	ModClassMatch:          "ClassMatch",
	ModClassExclude:        "ClassExclude",
	ModLocationOnly:        "LocationOnly",
	ModExceptionOnly:       "ExceptionOnly",
	ModFieldOnly:           "FieldOnly",
	ModStep:                "Step",
	ModInstanceOnly:        "InstanceOnly",
	ModSourceNameMatch:     "SourceNameMatch",
	ModPlatformThreadsOnly: "PlatformThreadsOnly",
}

// String returns the name the specification gives the value.
func (v ModKind) String() string {
	if n, ok := modKindNames[v]; ok {
		return n
	}
	return "ModKind(" + strconv.Itoa(int(v)) + ")"
}

// A Tag is the type tag of a value or tagged object id: one of the
// characters of the specification's Tag constants.
type Tag uint8

// The Tag values of the specification.
const (
	TagArray       Tag = '['
	TagByte        Tag = 'B'
	TagChar        Tag = 'C'
	TagObject      Tag = 'L'
	TagFloat       Tag = 'F'
	TagDouble      Tag = 'D'
	TagInt         Tag = 'I'
	TagLong        Tag = 'J'
	TagShort       Tag = 'S'
	TagVoid        Tag = 'V'
	TagBoolean     Tag = 'Z'
	TagString      Tag = 's'
	TagThread      Tag = 't'
	TagThreadGroup Tag = 'g'
	TagClassLoader Tag = 'l'
	TagClassObject Tag = 'c'
)

var tagNames = map[Tag]string{
	TagArray:       "ARRAY",
	TagByte:        "BYTE",
	TagChar:        "CHAR",
	TagObject:      "OBJECT",
	TagFloat:       "FLOAT",
	TagDouble:      "DOUBLE",
	TagInt:         "INT",
	TagLong:        "LONG",
	TagShort:       "SHORT",
	TagVoid:        "VOID",
	TagBoolean:     "BOOLEAN",
	TagString:      "STRING",
	TagThread:      "THREAD",
	TagThreadGroup: "THREAD_GROUP",
	TagClassLoader: "CLASS_LOADER",
	TagClassObject: "CLASS_OBJECT",
}

// String returns the name the specification gives the value.
func (v Tag) String() string {
	if n, ok := tagNames[v]; ok {
		return n
	}
	return "Tag(" + strconv.Itoa(int(v)) + ")"
}

// ClassStatus bits (ClassPrepare events, AllClasses replies, ReferenceType.Status).
const (
	ClassStatusVerified    int32 = 1
	ClassStatusPrepared    int32 = 2
	ClassStatusInitialized int32 = 4
	ClassStatusError       int32 = 8
)

// SuspendStatusSuspended is the suspend status bit of a ThreadReference.Status reply.
const SuspendStatusSuspended int32 = 0x1

// Invoke options (bit flags of ClassType.InvokeMethod and friends).
const (
	InvokeSingleThreaded int32 = 0x01
	InvokeNonvirtual     int32 = 0x02
)
