// Package scachetest provides a deterministic model of a Java VM's JDWP agent
// for tests and benchmarks of the Speculator: the same command in the same VM
// state always gets the same reply. The state changes only through commands
// (resumes, invokes, SetValues, RedefineClasses) and the steps a test asks
// for: class prepare and unload, threads running for a tick, stop events. It
// is a test double for what property tests need to run thousands of
// sessions; the integration tests use a real HotSpot VM.
package scachetest

import (
	"fmt"
	"sort"

	"github.com/jdwpscache/scache/jdwp"
)

// A ModelVM answers JDWP commands about a small world of classes, threads and objects.
type ModelVM struct {
	Sizes jdwp.IDSizes
	// FrameIDs is how the VM numbers frames from now on (a thread's current
	// frames keep their ids); the zero value numbers them as OpenJDK's
	// agent does.
	FrameIDs FrameIDScheme
	// RefuseRequests is how many of the next EventRequest.Set commands the
	// VM refuses (VM_DEAD, taking no id).
	RefuseRequests int
	// ReferenceAgent: the VM answers Version as OpenJDK's JDWP agent
	// does, and numbers the session's requests from 2, as that agent does.
	ReferenceAgent bool
	// NoFieldWatches: the VM cannot watch fields (its CapabilitiesNew
	// says so, and it refuses watch requests).
	NoFieldWatches bool

	classes map[jdwp.ReferenceTypeID]*ModelClass
	threads map[jdwp.ObjectID]*ModelThread
	objects map[jdwp.ObjectID]*ModelObject
	nextID  jdwp.ReferenceTypeID
	nextObj jdwp.ObjectID
	nextEv  uint32

	requests    map[int32]jdwp.EventKind
	nextRequest int32
}

// A ModelClass is a loaded class of the model.
type ModelClass struct {
	ID        jdwp.ReferenceTypeID
	Signature string
	Interface bool
	Version   int // incremented by RedefineClasses
	NoSource  bool
	Methods   []jdwp.MethodID
	// Superclass is the class's superclass (0: one the model does not
	// hold, 0x1); Interfaces, the interfaces it declares.
	Superclass jdwp.ClassID
	Interfaces []jdwp.InterfaceID
	// Statics are the class's static field values, by field id (1 and 2):
	// threads that run in the class change them, as do invokes and
	// ClassType.SetValues.
	Statics map[jdwp.FieldID]jdwp.Value
}

// A ModelFrame is a frame of a model thread's stack.
type ModelFrame struct {
	Class  jdwp.ReferenceTypeID
	Method jdwp.MethodID
	Index  uint64
	Locals map[int32]jdwp.Value // by slot
	This   jdwp.ObjectID
}

// A ModelThread is a thread of the model.
type ModelThread struct {
	ID         jdwp.ObjectID
	Name       string
	Status     jdwp.ThreadStatus
	Suspends   int           // suspend count
	Generation int           // incremented each time it resumes: frame ids change
	FrameIDs   FrameIDScheme // how its current generation's frames are numbered
	Frames     []ModelFrame
}

// A ModelObject is an object of the model: a string when String is set,
// an array when ElementTag is (arrays.go).
type ModelObject struct {
	Class  jdwp.ReferenceTypeID
	Fields map[jdwp.FieldID]jdwp.Value
	String *string
	// ElementTag and Elements are an array's: the tag of its component
	// type, and its elements.
	ElementTag jdwp.Tag
	Elements   []jdwp.Value
}

// stringClass is the reference type id of java.lang.String in the model.
const stringClass jdwp.ReferenceTypeID = 0x10

// NewModelVM returns a model with the given id sizes and no classes.
func NewModelVM(sizes jdwp.IDSizes) *ModelVM {
	return &ModelVM{Sizes: sizes, classes: map[jdwp.ReferenceTypeID]*ModelClass{},
		threads: map[jdwp.ObjectID]*ModelThread{}, objects: map[jdwp.ObjectID]*ModelObject{},
		nextID: 0x100, nextObj: 0x5000, nextEv: 0x10000000}
}

// Clone returns an independent copy, for a shadow VM that sees no Speculator.
func (vm *ModelVM) Clone() *ModelVM {
	c := *vm
	c.classes = make(map[jdwp.ReferenceTypeID]*ModelClass, len(vm.classes))
	for id, k := range vm.classes {
		kk := *k
		kk.Methods = append([]jdwp.MethodID(nil), k.Methods...)
		kk.Statics = cloneValues(k.Statics)
		c.classes[id] = &kk
	}
	c.threads = make(map[jdwp.ObjectID]*ModelThread, len(vm.threads))
	for id, t := range vm.threads {
		tt := *t
		tt.Frames = make([]ModelFrame, len(t.Frames))
		for i, f := range t.Frames {
			f.Locals = cloneValues(f.Locals)
			tt.Frames[i] = f
		}
		c.threads[id] = &tt
	}
	c.requests = make(map[int32]jdwp.EventKind, len(vm.requests))
	for id, k := range vm.requests {
		c.requests[id] = k
	}
	c.objects = make(map[jdwp.ObjectID]*ModelObject, len(vm.objects))
	for id, o := range vm.objects {
		oo := *o
		oo.Fields = make(map[jdwp.FieldID]jdwp.Value, len(o.Fields))
		for k, v := range o.Fields {
			oo.Fields[k] = v
		}
		oo.Elements = append([]jdwp.Value(nil), o.Elements...)
		c.objects[id] = &oo
	}
	return &c
}

func cloneValues[K comparable](m map[K]jdwp.Value) map[K]jdwp.Value {
	out := make(map[K]jdwp.Value, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// AddClass loads a class with n methods and returns it (without an event).
func (vm *ModelVM) AddClass(sig string, methods int, iface, noSource bool) *ModelClass {
	id := vm.nextID
	vm.nextID += 0x10
	c := &ModelClass{ID: id, Signature: sig, Interface: iface, NoSource: noSource,
		Statics: map[jdwp.FieldID]jdwp.Value{1: jdwp.IntValue(int32(id)), 2: jdwp.IntValue(0)}}
	for i := 0; i < methods; i++ {
		c.Methods = append(c.Methods, jdwp.MethodID(uint64(id)<<8|uint64(i+1)))
	}
	vm.classes[id] = c
	return c
}

// SetThread creates (or replaces) a suspended thread with the given stack,
// top frame first. Frames without locals get the locals their method's
// variable table describes, and an object as this.
func (vm *ModelVM) SetThread(t jdwp.ObjectID, frames []ModelFrame) *ModelThread {
	th := &ModelThread{ID: t, Name: fmt.Sprintf("thread-%d", t), Status: jdwp.ThreadStatusRunning, Suspends: 1,
		FrameIDs: vm.FrameIDs}
	for _, f := range frames {
		if f.Locals == nil {
			f.Locals = vm.newLocals(f.Method, uint64(t))
		}
		if f.This == 0 {
			f.This = vm.newObject(f.Class, int64(t))
		}
		th.Frames = append(th.Frames, f)
	}
	vm.threads[t] = th
	return th
}

// Thread returns a thread of the model.
func (vm *ModelVM) Thread(t jdwp.ObjectID) *ModelThread { return vm.threads[t] }

// Threads returns the threads ordered by id.
func (vm *ModelVM) Threads() []*ModelThread {
	out := make([]*ModelThread, 0, len(vm.threads))
	for _, t := range vm.threads {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// NewObject creates an object of class, with the id after the last
// object's, as a VM gives an object its id when it first shows it to the
// debugger, and returns the id. Its fields 1 and 2 hold ints; a test may
// give it more (see Object).
func (vm *ModelVM) NewObject(class jdwp.ReferenceTypeID) jdwp.ObjectID {
	return vm.newLeaf(class, int64(vm.nextObj))
}

// NewHolder creates an object of class whose field HeldField holds
// another, new, object (made first, with the id before it), and returns
// its id: a chain for a debugger to walk.
func (vm *ModelVM) NewHolder(class jdwp.ReferenceTypeID) jdwp.ObjectID {
	return vm.newObject(class, int64(vm.nextObj))
}

// newObject makes an object whose fields 1 and 2 hold ints and field 3
// (HeldField) another object, with fields 1 and 2 only: a chain for a
// debugger to walk.
func (vm *ModelVM) newObject(class jdwp.ReferenceTypeID, seed int64) jdwp.ObjectID {
	held := vm.newLeaf(class, seed+1)
	obj := vm.newLeaf(class, seed)
	vm.objects[obj].Fields[HeldField] = jdwp.ObjectValue(jdwp.TagObject, held)
	return obj
}

// HeldField is the field of a model object that holds another object.
const HeldField jdwp.FieldID = 3

// newLeaf makes an object whose fields 1 and 2 hold ints.
func (vm *ModelVM) newLeaf(class jdwp.ReferenceTypeID, seed int64) jdwp.ObjectID {
	vm.nextObj++
	vm.objects[vm.nextObj] = &ModelObject{Class: class, Fields: map[jdwp.FieldID]jdwp.Value{
		1: jdwp.IntValue(int32(seed)), 2: jdwp.IntValue(int32(seed * 3))}}
	return vm.nextObj
}

// NewString makes a string object with the next id and returns it.
func (vm *ModelVM) NewString(s string) jdwp.ObjectID { return vm.newString(s) }

func (vm *ModelVM) newString(s string) jdwp.ObjectID {
	vm.nextObj++
	vm.objects[vm.nextObj] = &ModelObject{Class: stringClass, String: &s}
	return vm.nextObj
}

// Classes returns the loaded classes ordered by id.
func (vm *ModelVM) Classes() []*ModelClass {
	out := make([]*ModelClass, 0, len(vm.classes))
	for _, c := range vm.classes {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Class returns a loaded class by id.
func (vm *ModelVM) Class(id jdwp.ReferenceTypeID) (*ModelClass, bool) {
	c, ok := vm.classes[id]
	return c, ok
}

func (vm *ModelVM) event(m *jdwp.Composite) []byte {
	vm.nextEv++
	return jdwp.AppendCommandPacket(nil, vm.nextEv, m, vm.Sizes)
}

// Prepare loads a new class and returns it with its ClassPrepare event packet.
func (vm *ModelVM) Prepare(sig string, methods int) (*ModelClass, []byte) {
	c := vm.AddClass(sig, methods, false, false)
	return c, vm.event(&jdwp.Composite{SuspendPolicy: jdwp.SuspendPolicyNone, Events: []jdwp.Event{
		&jdwp.ClassPrepareEvent{RequestID: 1, Thread: 1, TypeTag: jdwp.TypeTagClass, TypeID: c.ID,
			Signature: sig, Status: jdwp.ClassStatusPrepared | jdwp.ClassStatusVerified}}})
}

// Unload unloads every class of a signature that no thread has a frame in
// (a class with a live frame is reachable: a VM never unloads it) and returns
// the ClassUnload event packet.
func (vm *ModelVM) Unload(sig string) []byte {
	live := map[jdwp.ReferenceTypeID]bool{}
	for _, t := range vm.threads {
		for _, f := range t.Frames {
			live[f.Class] = true
		}
	}
	for id, c := range vm.classes {
		if c.Signature == sig && !live[id] {
			delete(vm.classes, id)
		}
	}
	return vm.event(&jdwp.Composite{SuspendPolicy: jdwp.SuspendPolicyNone, Events: []jdwp.Event{
		&jdwp.ClassUnloadEvent{RequestID: 2, Signature: sig}}})
}

// Handle answers a command packet with a reply packet carrying its id.
// It never fails: what it cannot read gets an error reply, as a VM would.
func (vm *ModelVM) Handle(cmd []byte) []byte {
	h, err := jdwp.ParseHeader(cmd)
	if err != nil || h.IsReply() {
		return nil
	}
	code, data := vm.answer(h.Cmd(), jdwp.Data(cmd))
	return jdwp.AppendReply(nil, h.ID, code, data)
}

func (vm *ModelVM) answer(cmd jdwp.Command, data []byte) (jdwp.ErrorCode, []byte) {
	r := jdwp.NewReader(data, vm.Sizes)
	w := jdwp.NewWriter(vm.Sizes)
	if code, ok := vm.stateAnswer(cmd, r, w); ok {
		return code, w.Bytes()
	}
	if code, ok := vm.requestAnswer(cmd, r, w); ok {
		return code, w.Bytes()
	}
	switch cmd {
	case jdwp.CmdVirtualMachineIDSizes:
		(&jdwp.VMIDSizesReply{Sizes: vm.Sizes}).Encode(w)
	case jdwp.CmdVirtualMachineAllClasses, jdwp.CmdVirtualMachineAllClassesWithGeneric:
		var infos []jdwp.ClassInfo
		for _, c := range vm.Classes() {
			tag := jdwp.TypeTagClass
			if c.Interface {
				tag = jdwp.TypeTagInterface
			}
			infos = append(infos, jdwp.ClassInfo{TypeTag: tag, TypeID: c.ID, Signature: c.Signature, Status: 7})
		}
		if cmd == jdwp.CmdVirtualMachineAllClasses {
			(&jdwp.VMAllClassesReply{Classes: infos}).Encode(w)
		} else {
			(&jdwp.VMAllClassesWithGenericReply{Classes: infos}).Encode(w)
		}
	case jdwp.CmdVirtualMachineClassesBySignature:
		var m jdwp.VMClassesBySignatureCommand
		if m.Decode(r) != nil {
			return jdwp.ErrIllegalArgument, nil
		}
		var reply jdwp.VMClassesBySignatureReply
		for _, c := range vm.Classes() {
			if c.Signature == m.Signature {
				tag := jdwp.TypeTagClass
				if c.Interface {
					tag = jdwp.TypeTagInterface
				}
				reply.Classes = append(reply.Classes, jdwp.TypeStatus{TypeTag: tag, TypeID: c.ID, Status: 7})
			}
		}
		reply.Encode(w)
	case jdwp.CmdVirtualMachineRedefineClasses:
		var m jdwp.VMRedefineClassesCommand
		if m.Decode(r) != nil {
			return jdwp.ErrIllegalArgument, nil
		}
		for _, d := range m.Classes {
			if c, ok := vm.classes[d.RefType]; ok {
				c.Version++
			}
		}
	case jdwp.CmdVirtualMachineCapabilitiesNew:
		// 32 booleans, the first two canWatchFieldModification and
		// canWatchFieldAccess; the model claims the rest.
		for i := 0; i < 32; i++ {
			w.Bool(i > 1 || !vm.NoFieldWatches)
		}
	case jdwp.CmdVirtualMachineVersion:
		if !vm.ReferenceAgent {
			w.String(fmt.Sprintf("%s(%x)", cmd, data))
			break
		}
		(&jdwp.VMVersionReply{Description: "Java Debug Wire Protocol (Reference Implementation) version 17.0\nJVM Debug Interface version 17.0\nJVM version 17 (Model VM)",
			JDWPMajor: 17, VMVersion: "17", VMName: "Model VM"}).Encode(w)
	case jdwp.CmdVirtualMachineDispose:
	case jdwp.CmdObjectReferenceInvokeMethod, jdwp.CmdClassTypeInvokeMethod:
		return vm.invoke(cmd, r, w), w.Bytes()
	default:
		if c, ok := keyableCommands[cmd]; ok {
			return vm.classAnswer(cmd, c, r, w)
		}
		// Any other command: a reply that depends on the command and its data.
		w.String(fmt.Sprintf("%s(%x)", cmd, data))
	}
	return jdwp.ErrNone, w.Bytes()
}

// keyableCommands maps the class metadata commands of the model to whether
// they name a method.
var keyableCommands = map[jdwp.Command]bool{
	jdwp.CmdClassTypeSuperclass: false, jdwp.CmdReferenceTypeSourceFile: false,
	jdwp.CmdReferenceTypeSourceDebugExtension: false, jdwp.CmdReferenceTypeInterfaces: false,
	jdwp.CmdReferenceTypeMethodsWithGeneric: false, jdwp.CmdReferenceTypeSignature: false,
	jdwp.CmdReferenceTypeMethods: false, jdwp.CmdReferenceTypeFields: false,
	jdwp.CmdReferenceTypeFieldsWithGeneric: false, jdwp.CmdReferenceTypeSignatureWithGeneric: false,
	jdwp.CmdMethodLineTable: true, jdwp.CmdMethodIsObsolete: true, jdwp.CmdMethodVariableTableWithGeneric: true,
	jdwp.CmdMethodVariableTable: true, jdwp.CmdMethodBytecodes: true,
}

func (vm *ModelVM) classAnswer(cmd jdwp.Command, method bool, r *jdwp.Reader, w *jdwp.Writer) (jdwp.ErrorCode, []byte) {
	id := r.ReferenceTypeID()
	var m jdwp.MethodID
	if method {
		m = r.MethodID()
	}
	if r.Err() != nil || r.Len() != 0 {
		return jdwp.ErrIllegalArgument, nil
	}
	c, ok := vm.classes[id]
	if !ok {
		return jdwp.ErrInvalidClass, nil
	}
	switch cmd {
	case jdwp.CmdClassTypeSuperclass:
		if c.Interface {
			return jdwp.ErrInvalidClass, nil
		}
		super := c.Superclass
		if super == 0 {
			super = 0x1
		}
		w.ReferenceTypeID(super)
		return jdwp.ErrNone, w.Bytes()
	case jdwp.CmdReferenceTypeInterfaces:
		(&jdwp.RefTypeInterfacesReply{Interfaces: c.Interfaces}).Encode(w)
		return jdwp.ErrNone, w.Bytes()
	case jdwp.CmdReferenceTypeSourceFile, jdwp.CmdReferenceTypeSourceDebugExtension:
		if c.NoSource || cmd == jdwp.CmdReferenceTypeSourceDebugExtension && c.ID%0x20 == 0 {
			return jdwp.ErrAbsentInformation, nil
		}
	case jdwp.CmdReferenceTypeMethodsWithGeneric, jdwp.CmdReferenceTypeMethods:
		// As a real VM: the plain forms are the generic ones without the
		// generic signatures.
		reply := jdwp.RefTypeMethodsReply{Generic: cmd == jdwp.CmdReferenceTypeMethodsWithGeneric}
		for i, x := range c.Methods {
			reply.Methods = append(reply.Methods, jdwp.MethodInfo{Method: x, Name: fmt.Sprintf("m%x_v%d", x, c.Version),
				Signature: "()V", Generic: modelGeneric(i), ModBits: ModelModBits(x)})
		}
		reply.Encode(w)
		return jdwp.ErrNone, w.Bytes()
	case jdwp.CmdReferenceTypeFieldsWithGeneric, jdwp.CmdReferenceTypeFields:
		reply := jdwp.RefTypeFieldsReply{Generic: cmd == jdwp.CmdReferenceTypeFieldsWithGeneric}
		for i, sig := range modelFieldSignatures {
			reply.Fields = append(reply.Fields, jdwp.FieldInfo{Field: jdwp.FieldID(i + 1),
				Name: fmt.Sprintf("f%d", i+1), Signature: sig, Generic: modelGeneric(i), ModBits: 2})
		}
		reply.Encode(w)
		return jdwp.ErrNone, w.Bytes()
	case jdwp.CmdReferenceTypeSignatureWithGeneric:
		(&jdwp.RefTypeSignatureWithGenericReply{Signature: c.Signature, Generic: modelGeneric(int(c.ID))}).Encode(w)
		return jdwp.ErrNone, w.Bytes()
	case jdwp.CmdReferenceTypeSignature:
		w.String(c.Signature)
		return jdwp.ErrNone, w.Bytes()
	}
	if method {
		found := false
		for _, x := range c.Methods {
			found = found || x == m
		}
		if !found {
			return jdwp.ErrInvalidMethodID, nil
		}
		if cmd == jdwp.CmdMethodLineTable {
			t := ModelLineTable(m, c.Version)
			t.Encode(w)
			return jdwp.ErrNone, w.Bytes()
		}
		if cmd == jdwp.CmdMethodVariableTableWithGeneric || cmd == jdwp.CmdMethodVariableTable {
			if c.NoSource {
				return jdwp.ErrAbsentInformation, nil
			}
			vt := ModelVariableTable(m)
			vt.Generic = cmd == jdwp.CmdMethodVariableTableWithGeneric
			for i := range vt.Slots {
				vt.Slots[i].Name += fmt.Sprintf("_v%d", c.Version)
			}
			vt.Encode(w)
			return jdwp.ErrNone, w.Bytes()
		}
	}
	w.String(fmt.Sprintf("%s %s m%x v%d", cmd, c.Signature, m, c.Version))
	return jdwp.ErrNone, w.Bytes()
}

// modelGeneric returns the generic signature of the i-th member of a model
// class: empty (not generic) for every other one.
func modelGeneric(i int) string {
	if i%2 == 0 {
		return ""
	}
	return "Ljava/util/List<TT;>;"
}

// modelFieldSignatures are the signatures of the fields every model class
// declares, ids 1 on: 1 and 2 ints, HeldField an object.
var modelFieldSignatures = []string{"I", "I", "Ljava/util/List;"}

// ModelLineTable returns the line table of a model method in the given
// version of its class: code indexes 0 to 19 (more for some methods), a
// line every 4, from line 10 + 100 × version.
func ModelLineTable(m jdwp.MethodID, version int) jdwp.MethodLineTableReply {
	t := jdwp.MethodLineTableReply{Start: 0, End: 19 + int64(m%4)*4}
	for i := int64(0); i <= t.End; i += 4 {
		t.Lines = append(t.Lines, jdwp.LineEntry{CodeIndex: uint64(i), LineNumber: int32(10 + 100*version + int(i/4))})
	}
	return t
}

// ModelModBits returns the modifiers of a model method: every third is static.
func ModelModBits(m jdwp.MethodID) int32 {
	if m%3 == 0 {
		return jdwp.ModStatic | 1
	}
	return 1
}

// ModelVariableTable returns the variable table of a model method: a few
// variables of kinds int, object and string, with scopes that start at
// different code indexes, and an inner variable hiding an outer one.
func ModelVariableTable(m jdwp.MethodID) jdwp.MethodVariableTableReply {
	n := int(m%4) + 1
	vt := jdwp.MethodVariableTableReply{Generic: true, ArgCount: 1}
	sigs := []string{"I", "Ljava/lang/Object;", "Ljava/lang/String;"}
	for j := 0; j < n; j++ {
		vt.Slots = append(vt.Slots, jdwp.VariableSlot{CodeIndex: uint64(j * 2), Name: fmt.Sprintf("x%d", j),
			Signature: sigs[j%3], Length: int32(40 - j*2), Slot: int32(j)})
	}
	if m%2 == 0 {
		// x0 again in an inner scope, in another slot: it hides the outer one there.
		vt.Slots = append(vt.Slots, jdwp.VariableSlot{CodeIndex: 6, Name: "x0", Signature: "I", Length: 6, Slot: int32(n)})
	}
	if m%3 != 0 {
		vt.Slots = append(vt.Slots, jdwp.VariableSlot{CodeIndex: 0, Name: "this", Signature: "LThis;", Length: 50, Slot: 99})
	}
	return vt
}

// newLocals gives a frame of method m a value in every slot of its variable table.
func (vm *ModelVM) newLocals(m jdwp.MethodID, seed uint64) map[int32]jdwp.Value {
	locals := map[int32]jdwp.Value{}
	for _, v := range ModelVariableTable(m).Slots {
		if v.Name == "this" {
			continue
		}
		locals[v.Slot] = vm.newValue(v.Signature, seed+uint64(v.Slot))
	}
	return locals
}

func (vm *ModelVM) newValue(sig string, seed uint64) jdwp.Value {
	switch sig {
	case "I":
		return jdwp.IntValue(int32(seed))
	case "Ljava/lang/String;":
		return jdwp.ObjectValue(jdwp.TagString, vm.newString(fmt.Sprintf("s%d", seed)))
	default:
		if seed%5 == 0 {
			return jdwp.ObjectValue(jdwp.TagObject, 0)
		}
		return jdwp.ObjectValue(jdwp.TagObject, vm.newObject(0x100, int64(seed)))
	}
}

// Object returns the object with the given id, or nil: a test may give it
// fields (an object-valued field makes a chain for a debugger to walk).
func (vm *ModelVM) Object(id jdwp.ObjectID) *ModelObject { return vm.objects[id] }
