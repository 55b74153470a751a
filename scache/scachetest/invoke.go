package scachetest

import (
	"fmt"

	"github.com/jdwpscache/scache/jdwp"
)

// Invocations. The model's every instance method, invoked on an object
// (ObjectReference.InvokeMethod), behaves as an IDE renderer's toString
// whose class counts its calls: it adds one to the object's field 1 and
// returns a new string naming the object and the count. Every static
// method (ClassType.InvokeMethod) counts its calls in its class's static
// field 2 the same way. Running it lets the invoking thread run (and,
// unless InvokeSingleThreaded, every suspended thread): each gets a new
// frame generation when it is suspended again, before the reply, as a VM's
// threads do.

// invoke answers ObjectReference.InvokeMethod and ClassType.InvokeMethod.
func (vm *ModelVM) invoke(cmd jdwp.Command, r *jdwp.Reader, w *jdwp.Writer) jdwp.ErrorCode {
	var (
		m      jdwp.Invocation
		counts map[jdwp.FieldID]jdwp.Value // where the method counts its calls
		field  jdwp.FieldID
		what   string
	)
	if cmd == jdwp.CmdObjectReferenceInvokeMethod {
		var om jdwp.ObjectRefInvokeMethodCommand
		if om.Decode(r) != nil || r.Len() != 0 {
			return jdwp.ErrIllegalArgument
		}
		o, ok := vm.objects[om.Object]
		if !ok {
			return jdwp.ErrInvalidObject
		}
		m, counts, field, what = &om, o.Fields, 1, fmt.Sprintf("object %d", om.Object)
	} else {
		var cm jdwp.ClassTypeInvokeMethodCommand
		if cm.Decode(r) != nil || r.Len() != 0 {
			return jdwp.ErrIllegalArgument
		}
		c, ok := vm.classes[cm.Class]
		if !ok {
			return jdwp.ErrInvalidClass
		}
		m, counts, field, what = &cm, c.Statics, 2, fmt.Sprintf("class %d", cm.Class)
	}
	thread, options := m.Invoking()
	t, ok := vm.threads[thread]
	if !ok {
		return jdwp.ErrInvalidThread
	}
	if t.Suspends == 0 {
		return jdwp.ErrThreadNotSuspended
	}
	for _, other := range vm.threads {
		if other == t || options&jdwp.InvokeSingleThreaded == 0 && other.Suspends > 0 {
			vm.nextGeneration(other)
		}
	}
	calls := int32(0)
	if v, ok := counts[field]; ok && v.Tag == jdwp.TagInt {
		calls = int32(v.Bits) + 1
		counts[field] = jdwp.IntValue(calls)
	}
	s := vm.newString(fmt.Sprintf("%s, call %d", what, calls))
	(&jdwp.InvokeMethodReply{Return: jdwp.Value{Tag: jdwp.TagString, Bits: uint64(s)},
		Exception: jdwp.TaggedObjectID{Tag: jdwp.TagObject}}).Encode(w) // no exception: a null object
	return jdwp.ErrNone
}
