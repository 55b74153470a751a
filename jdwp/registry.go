package jdwp

// messageCodec tells how to decode a command and its reply.
type messageCodec struct {
	command func() CommandMessage
	reply   func() Message
}

// codecs lists the commands whose data this package decodes into typed messages.
var codecs = map[Command]messageCodec{
	CmdVirtualMachineVersion:               {func() CommandMessage { return &VMVersionCommand{} }, func() Message { return &VMVersionReply{} }},
	CmdVirtualMachineIDSizes:               {func() CommandMessage { return &VMIDSizesCommand{} }, func() Message { return &VMIDSizesReply{} }},
	CmdVirtualMachineAllClasses:            {func() CommandMessage { return &VMAllClassesCommand{} }, func() Message { return &VMAllClassesReply{} }},
	CmdVirtualMachineAllClassesWithGeneric: {func() CommandMessage { return &VMAllClassesWithGenericCommand{} }, func() Message { return &VMAllClassesWithGenericReply{} }},
	CmdVirtualMachineClassesBySignature:    {func() CommandMessage { return &VMClassesBySignatureCommand{} }, func() Message { return &VMClassesBySignatureReply{} }},
	CmdVirtualMachineRedefineClasses:       {func() CommandMessage { return &VMRedefineClassesCommand{} }, func() Message { return &EmptyReply{} }},
	CmdVirtualMachineDispose:               {func() CommandMessage { return &VMDisposeCommand{} }, func() Message { return &EmptyReply{} }},
	CmdVirtualMachineExit:                  {func() CommandMessage { return &VMExitCommand{} }, func() Message { return &EmptyReply{} }},
	CmdVirtualMachineDisposeObjects:        {func() CommandMessage { return &VMDisposeObjectsCommand{} }, func() Message { return &EmptyReply{} }},
	CmdVirtualMachineCapabilitiesNew:       {func() CommandMessage { return &VMCapabilitiesNewCommand{} }, nil},
	CmdVirtualMachineSuspend:               {func() CommandMessage { return &VMSuspendCommand{} }, func() Message { return &EmptyReply{} }},
	CmdVirtualMachineResume:                {func() CommandMessage { return &VMResumeCommand{} }, func() Message { return &EmptyReply{} }},
	CmdVirtualMachineAllThreads:            {func() CommandMessage { return &VMAllThreadsCommand{} }, func() Message { return &ObjectIDsReply{} }},
	CmdVirtualMachineTopLevelThreadGroups:  {func() CommandMessage { return &VMTopLevelThreadGroupsCommand{} }, func() Message { return &ObjectIDsReply{} }},

	CmdReferenceTypeSignature:            {func() CommandMessage { return &RefTypeSignatureCommand{} }, func() Message { return &StringReply{} }},
	CmdReferenceTypeSignatureWithGeneric: {func() CommandMessage { return &RefTypeSignatureWithGenericCommand{} }, func() Message { return &RefTypeSignatureWithGenericReply{} }},
	CmdReferenceTypeSourceFile:           {func() CommandMessage { return &RefTypeSourceFileCommand{} }, func() Message { return &StringReply{} }},
	CmdReferenceTypeSourceDebugExtension: {func() CommandMessage { return &RefTypeSourceDebugExtensionCommand{} }, func() Message { return &StringReply{} }},
	CmdReferenceTypeGetValues:            {func() CommandMessage { return &RefTypeGetValuesCommand{} }, func() Message { return &ValuesReply{} }},
	CmdReferenceTypeInterfaces:           {func() CommandMessage { return &RefTypeInterfacesCommand{} }, func() Message { return &RefTypeInterfacesReply{} }},
	CmdReferenceTypeMethods:              {func() CommandMessage { return &RefTypeMethodsCommand{} }, func() Message { return &RefTypeMethodsReply{} }},
	CmdReferenceTypeMethodsWithGeneric:   {func() CommandMessage { return &RefTypeMethodsWithGenericCommand{} }, func() Message { return &RefTypeMethodsReply{Generic: true} }},
	CmdReferenceTypeFields:               {func() CommandMessage { return &RefTypeFieldsCommand{} }, func() Message { return &RefTypeFieldsReply{} }},
	CmdReferenceTypeFieldsWithGeneric:    {func() CommandMessage { return &RefTypeFieldsWithGenericCommand{} }, func() Message { return &RefTypeFieldsReply{Generic: true} }},
	CmdClassTypeSuperclass:               {func() CommandMessage { return &ClassTypeSuperclassCommand{} }, func() Message { return &ClassTypeSuperclassReply{} }},
	CmdReferenceTypeClassLoader:          {func() CommandMessage { return &RefTypeClassLoaderCommand{} }, nil},
	CmdReferenceTypeModifiers:            {func() CommandMessage { return &RefTypeModifiersCommand{} }, func() Message { return &IntReply{} }},
	CmdReferenceTypeClassObject:          {func() CommandMessage { return &RefTypeClassObjectCommand{} }, nil},
	CmdReferenceTypeClassFileVersion:     {func() CommandMessage { return &RefTypeClassFileVersionCommand{} }, nil},
	CmdReferenceTypeModule:               {func() CommandMessage { return &RefTypeModuleCommand{} }, nil},

	CmdMethodLineTable:                {func() CommandMessage { return &MethodLineTableCommand{} }, func() Message { return &MethodLineTableReply{} }},
	CmdMethodVariableTable:            {func() CommandMessage { return &MethodVariableTableCommand{} }, func() Message { return &MethodVariableTableReply{} }},
	CmdMethodVariableTableWithGeneric: {func() CommandMessage { return &MethodVariableTableWithGenericCommand{} }, func() Message { return &MethodVariableTableReply{Generic: true} }},
	CmdMethodIsObsolete:               {func() CommandMessage { return &MethodIsObsoleteCommand{} }, func() Message { return &BoolReply{} }},
	CmdMethodBytecodes:                {func() CommandMessage { return &MethodBytecodesCommand{} }, nil},

	CmdThreadReferenceName:         {func() CommandMessage { return &ThreadNameCommand{} }, func() Message { return &StringReply{} }},
	CmdThreadReferenceSuspend:      {func() CommandMessage { return &ThreadSuspendCommand{} }, func() Message { return &EmptyReply{} }},
	CmdThreadReferenceResume:       {func() CommandMessage { return &ThreadResumeCommand{} }, func() Message { return &EmptyReply{} }},
	CmdThreadReferenceFrames:       {func() CommandMessage { return &ThreadFramesCommand{} }, func() Message { return &ThreadFramesReply{} }},
	CmdThreadReferenceFrameCount:   {func() CommandMessage { return &ThreadFrameCountCommand{} }, func() Message { return &IntReply{} }},
	CmdThreadReferenceSuspendCount: {func() CommandMessage { return &ThreadSuspendCountCommand{} }, func() Message { return &IntReply{} }},
	CmdThreadReferenceStatus:       {func() CommandMessage { return &ThreadStatusCommand{} }, func() Message { return &ThreadStatusReply{} }},
	CmdThreadReferenceThreadGroup:  {func() CommandMessage { return &ThreadGroupOfCommand{} }, func() Message { return &ObjectIDReply{} }},

	CmdThreadGroupReferenceName:     {func() CommandMessage { return &ThreadGroupNameCommand{} }, func() Message { return &StringReply{} }},
	CmdThreadGroupReferenceParent:   {func() CommandMessage { return &ThreadGroupParentCommand{} }, func() Message { return &ObjectIDReply{} }},
	CmdThreadGroupReferenceChildren: {func() CommandMessage { return &ThreadGroupChildrenCommand{} }, func() Message { return &ThreadGroupChildrenReply{} }},

	CmdStackFrameGetValues:  {func() CommandMessage { return &FrameGetValuesCommand{} }, func() Message { return &ValuesReply{} }},
	CmdStackFrameThisObject: {func() CommandMessage { return &FrameThisObjectCommand{} }, func() Message { return &TaggedObjectReply{} }},
	CmdStackFramePopFrames:  {func() CommandMessage { return &FramePopFramesCommand{} }, func() Message { return &EmptyReply{} }},

	CmdObjectReferenceReferenceType: {func() CommandMessage { return &ObjectRefReferenceTypeCommand{} }, func() Message { return &ObjectRefReferenceTypeReply{} }},
	CmdStringReferenceValue:         {func() CommandMessage { return &StringRefValueCommand{} }, func() Message { return &StringReply{} }},
	CmdArrayReferenceLength:         {func() CommandMessage { return &ArrayRefLengthCommand{} }, func() Message { return &IntReply{} }},
	CmdArrayReferenceGetValues:      {func() CommandMessage { return &ArrayRefGetValuesCommand{} }, func() Message { return &ArrayRegionReply{} }},
	CmdObjectReferenceGetValues:     {func() CommandMessage { return &ObjectRefGetValuesCommand{} }, func() Message { return &ValuesReply{} }},
	CmdObjectReferenceInvokeMethod:  {func() CommandMessage { return &ObjectRefInvokeMethodCommand{} }, func() Message { return &InvokeMethodReply{} }},
	CmdClassTypeInvokeMethod:        {func() CommandMessage { return &ClassTypeInvokeMethodCommand{} }, func() Message { return &InvokeMethodReply{} }},
	CmdInterfaceTypeInvokeMethod:    {func() CommandMessage { return &InterfaceTypeInvokeMethodCommand{} }, func() Message { return &InvokeMethodReply{} }},
	CmdClassTypeNewInstance:         {func() CommandMessage { return &ClassTypeNewInstanceCommand{} }, func() Message { return &NewInstanceReply{} }},

	CmdEventRequestSet:   {func() CommandMessage { return &EventRequestSetCommand{} }, func() Message { return &IntReply{} }},
	CmdEventRequestClear: {func() CommandMessage { return &EventRequestClearCommand{} }, func() Message { return &EmptyReply{} }},
	CmdEventComposite:    {func() CommandMessage { return &Composite{} }, nil},
}

// NewCommandMessage returns an empty typed message for the data of cmd, or nil
// if this package has no typed message for it.
func NewCommandMessage(cmd Command) CommandMessage {
	if c, ok := codecs[cmd]; ok {
		return c.command()
	}
	return nil
}

// NewReplyMessage returns an empty typed message for the data of a successful
// reply to cmd, or nil if this package has no typed message for that reply
// (or the command, like Event.Composite, has no reply).
func NewReplyMessage(cmd Command) Message {
	if c, ok := codecs[cmd]; ok && c.reply != nil {
		return c.reply()
	}
	return nil
}
