package jdwp

// Invocations: the commands that run a method in a suspended thread of the
// debuggee (ObjectReference.InvokeMethod, ClassType.InvokeMethod,
// InterfaceType.InvokeMethod, ClassType.NewInstance). The VM resumes the
// thread (and, unless InvokeSingleThreaded is set, every thread) while the
// method runs, suspends them again when it returns, then replies.

// An Invocation is one of the invocation commands.
type Invocation interface {
	CommandMessage
	// Invoking returns the thread the method runs in and the invoke options.
	Invoking() (ThreadID, int32)
	// Invoked returns the method invoked.
	Invoked() MethodID
}

// MethodCall is what every invocation command carries after its target: the
// thread that runs the method, the method, its arguments and the options
// (InvokeSingleThreaded, InvokeNonvirtual).
type MethodCall struct {
	Thread  ThreadID
	Method  MethodID
	Args    []Value
	Options int32
}

// encodeRest writes the method, the arguments and the options.
func (c *MethodCall) encodeRest(w *Writer) {
	w.MethodID(c.Method)
	w.Int32(int32(len(c.Args)))
	for _, a := range c.Args {
		w.Value(a)
	}
	w.Int32(c.Options)
}

// decodeRest reads the method, the arguments and the options.
func (c *MethodCall) decodeRest(r *Reader) error {
	c.Method = r.MethodID()
	c.Args = make([]Value, r.Count(2))
	for i := range c.Args {
		c.Args[i] = r.Value()
	}
	c.Options = r.Int32()
	return r.Err()
}

// Invoking implements Invocation.
func (c *MethodCall) Invoking() (ThreadID, int32) { return c.Thread, c.Options }

// Invoked implements Invocation.
func (c *MethodCall) Invoked() MethodID { return c.Method }

// ObjectRefInvokeMethodCommand invokes an instance method on an object
// (ObjectReference.InvokeMethod): the object, the thread, the class of the
// method, then the method and its arguments. Its reply is an
// InvokeMethodReply.
type ObjectRefInvokeMethodCommand struct {
	Object ObjectID
	Class  ReferenceTypeID
	MethodCall
}

// Command implements CommandMessage.
func (*ObjectRefInvokeMethodCommand) Command() Command { return CmdObjectReferenceInvokeMethod }

// Encode implements Message.
func (m *ObjectRefInvokeMethodCommand) Encode(w *Writer) {
	w.ObjectID(m.Object)
	w.ObjectID(m.Thread)
	w.ReferenceTypeID(m.Class)
	m.encodeRest(w)
}

// Decode implements Message.
func (m *ObjectRefInvokeMethodCommand) Decode(r *Reader) error {
	m.Object = r.ObjectID()
	m.Thread = r.ObjectID()
	m.Class = r.ReferenceTypeID()
	return m.decodeRest(r)
}

// StaticCall is a static method or constructor of a type, called in a
// thread: the layout of ClassType.InvokeMethod, InterfaceType.InvokeMethod
// and ClassType.NewInstance (the type, the thread, the method, its
// arguments, the options).
type StaticCall struct {
	Class ReferenceTypeID
	MethodCall
}

// Encode implements Message.
func (m *StaticCall) Encode(w *Writer) {
	w.ReferenceTypeID(m.Class)
	w.ObjectID(m.Thread)
	m.encodeRest(w)
}

// Decode implements Message.
func (m *StaticCall) Decode(r *Reader) error {
	m.Class = r.ReferenceTypeID()
	m.Thread = r.ObjectID()
	return m.decodeRest(r)
}

// ClassTypeInvokeMethodCommand invokes a static method of a class
// (ClassType.InvokeMethod). Its reply is an InvokeMethodReply.
type ClassTypeInvokeMethodCommand struct{ StaticCall }

// Command implements CommandMessage.
func (*ClassTypeInvokeMethodCommand) Command() Command { return CmdClassTypeInvokeMethod }

// InterfaceTypeInvokeMethodCommand invokes a static method of an interface
// (InterfaceType.InvokeMethod). Its reply is an InvokeMethodReply.
type InterfaceTypeInvokeMethodCommand struct{ StaticCall }

// Command implements CommandMessage.
func (*InterfaceTypeInvokeMethodCommand) Command() Command { return CmdInterfaceTypeInvokeMethod }

// ClassTypeNewInstanceCommand constructs an object of a class with one of
// its constructors (ClassType.NewInstance). Its reply is a NewInstanceReply.
type ClassTypeNewInstanceCommand struct{ StaticCall }

// Command implements CommandMessage.
func (*ClassTypeNewInstanceCommand) Command() Command { return CmdClassTypeNewInstance }

// InvokeMethodReply answers the InvokeMethod commands: the value the method
// returned (void, or null when it threw), and the exception it threw (id 0:
// none).
type InvokeMethodReply struct {
	Return    Value
	Exception TaggedObjectID
}

// Encode implements Message.
func (m *InvokeMethodReply) Encode(w *Writer) {
	w.Value(m.Return)
	w.TaggedObjectID(m.Exception)
}

// Decode implements Message.
func (m *InvokeMethodReply) Decode(r *Reader) error {
	m.Return = r.Value()
	m.Exception = r.TaggedObjectID()
	return r.Err()
}

// NewInstanceReply answers ClassType.NewInstance: the new object (id 0 when
// the constructor threw), and the exception it threw (id 0: none).
type NewInstanceReply struct {
	Object    TaggedObjectID
	Exception TaggedObjectID
}

// Encode implements Message.
func (m *NewInstanceReply) Encode(w *Writer) {
	w.TaggedObjectID(m.Object)
	w.TaggedObjectID(m.Exception)
}

// Decode implements Message.
func (m *NewInstanceReply) Decode(r *Reader) error {
	m.Object = r.TaggedObjectID()
	m.Exception = r.TaggedObjectID()
	return r.Err()
}
