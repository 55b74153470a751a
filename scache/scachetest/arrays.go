package scachetest

import "github.com/jdwpscache/scache/jdwp"

// Arrays of the model: an object with an element tag, whose elements an
// expanded array in a debugger's variables view reads
// (ArrayReference.Length, GetValues) and a user may edit (SetValues). A
// range past the end is refused as the agent refuses it.

// NewArray makes an array of class whose elements, of tag, are elements,
// with the next object id, and returns its id.
func (vm *ModelVM) NewArray(class jdwp.ReferenceTypeID, tag jdwp.Tag, elements ...jdwp.Value) jdwp.ObjectID {
	vm.nextObj++
	vm.objects[vm.nextObj] = &ModelObject{Class: class, ElementTag: tag, Elements: append([]jdwp.Value(nil), elements...)}
	return vm.nextObj
}

// arrayAnswer answers the ArrayReference commands of the model.
func (vm *ModelVM) arrayAnswer(cmd jdwp.Command, r *jdwp.Reader, w *jdwp.Writer) jdwp.ErrorCode {
	o, ok := vm.objects[r.ObjectID()]
	if !ok {
		return jdwp.ErrInvalidObject
	}
	if o.ElementTag == 0 {
		return jdwp.ErrInvalidArray
	}
	switch cmd {
	case jdwp.CmdArrayReferenceLength:
		w.Int32(int32(len(o.Elements)))
	case jdwp.CmdArrayReferenceGetValues:
		first, length := int(r.Int32()), int(r.Int32())
		if first < 0 || first > len(o.Elements) {
			return jdwp.ErrInvalidIndex
		}
		if length < 0 || first+length > len(o.Elements) {
			return jdwp.ErrInvalidLength
		}
		(&jdwp.ArrayRegionReply{Tag: o.ElementTag, Values: o.Elements[first : first+length]}).Encode(w)
	case jdwp.CmdArrayReferenceSetValues:
		first := int(r.Int32())
		n := r.Count(1)
		if first < 0 || first+n > len(o.Elements) {
			return jdwp.ErrInvalidIndex
		}
		for i := 0; i < n; i++ {
			if o.ElementTag.IsObject() {
				o.Elements[first+i] = jdwp.Value{Tag: o.Elements[first+i].Tag, Bits: uint64(r.ObjectID())}
			} else {
				o.Elements[first+i] = r.UntaggedValue(o.ElementTag)
			}
		}
	}
	if r.Err() != nil {
		return jdwp.ErrIllegalArgument
	}
	return jdwp.ErrNone
}
