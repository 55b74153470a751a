// Package scachetest provides a deterministic model of a Java VM's JDWP agent
// for tests and benchmarks of the Speculator: the same command in the same VM
// state always gets the same reply, and the state changes only through
// commands (RedefineClasses) and the events the test asks for (class prepare
// and unload). It is a test double for what the property tests need to run
// millions of packets; the integration tests use a real HotSpot VM.
package scachetest

import (
	"fmt"
	"sort"

	"github.com/jdwpscache/scache/jdwp"
)

// A ModelVM answers JDWP commands about a small world of classes and threads.
type ModelVM struct {
	Sizes   jdwp.IDSizes
	classes map[jdwp.ReferenceTypeID]*ModelClass
	threads map[jdwp.ObjectID][]ModelFrame
	nextID  jdwp.ReferenceTypeID
	nextEv  uint32
}

// A ModelClass is a loaded class of the model.
type ModelClass struct {
	ID        jdwp.ReferenceTypeID
	Signature string
	Interface bool
	Version   int // incremented by RedefineClasses
	NoSource  bool
	Methods   []jdwp.MethodID
}

// A ModelFrame is a frame of a model thread's stack.
type ModelFrame struct {
	Class  jdwp.ReferenceTypeID
	Method jdwp.MethodID
	Index  uint64
}

// NewModelVM returns a model with the given id sizes and no classes.
func NewModelVM(sizes jdwp.IDSizes) *ModelVM {
	return &ModelVM{Sizes: sizes, classes: map[jdwp.ReferenceTypeID]*ModelClass{},
		threads: map[jdwp.ObjectID][]ModelFrame{}, nextID: 0x100, nextEv: 0x10000000}
}

// Clone returns an independent copy, for a shadow VM that sees no Speculator.
func (vm *ModelVM) Clone() *ModelVM {
	c := *vm
	c.classes = make(map[jdwp.ReferenceTypeID]*ModelClass, len(vm.classes))
	for id, k := range vm.classes {
		kk := *k
		kk.Methods = append([]jdwp.MethodID(nil), k.Methods...)
		c.classes[id] = &kk
	}
	c.threads = make(map[jdwp.ObjectID][]ModelFrame, len(vm.threads))
	for t, f := range vm.threads {
		c.threads[t] = append([]ModelFrame(nil), f...)
	}
	return &c
}

// AddClass loads a class with n methods and returns it (without an event).
func (vm *ModelVM) AddClass(sig string, methods int, iface, noSource bool) *ModelClass {
	id := vm.nextID
	vm.nextID += 0x10
	c := &ModelClass{ID: id, Signature: sig, Interface: iface, NoSource: noSource}
	for i := 0; i < methods; i++ {
		c.Methods = append(c.Methods, jdwp.MethodID(uint64(id)<<8|uint64(i+1)))
	}
	vm.classes[id] = c
	return c
}

// SetThread sets a thread's stack, top frame first.
func (vm *ModelVM) SetThread(t jdwp.ObjectID, frames []ModelFrame) { vm.threads[t] = frames }

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

// Unload unloads every class of a signature and returns the ClassUnload event packet.
func (vm *ModelVM) Unload(sig string) []byte {
	for id, c := range vm.classes {
		if c.Signature == sig {
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
	case jdwp.CmdThreadReferenceFrames:
		var m jdwp.ThreadFramesCommand
		if m.Decode(r) != nil {
			return jdwp.ErrIllegalArgument, nil
		}
		stack, ok := vm.threads[m.Thread]
		if !ok {
			return jdwp.ErrInvalidThread, nil
		}
		var rep jdwp.ThreadFramesReply
		for i, f := range stack {
			if int32(i) < m.StartFrame || (m.Length >= 0 && int32(i) >= m.StartFrame+m.Length) {
				continue
			}
			tag := jdwp.TypeTagClass
			if c, ok := vm.classes[f.Class]; ok && c.Interface {
				tag = jdwp.TypeTagInterface
			}
			rep.Frames = append(rep.Frames, jdwp.Frame{Frame: jdwp.FrameID(i + 1),
				Location: jdwp.Location{TypeTag: tag, Class: f.Class, Method: f.Method, Index: f.Index}})
		}
		rep.Encode(w)
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
	case jdwp.CmdVirtualMachineDispose, jdwp.CmdVirtualMachineResume, jdwp.CmdVirtualMachineSuspend:
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
		w.ReferenceTypeID(0x1)
		return jdwp.ErrNone, w.Bytes()
	case jdwp.CmdReferenceTypeSourceFile, jdwp.CmdReferenceTypeSourceDebugExtension:
		if c.NoSource || cmd == jdwp.CmdReferenceTypeSourceDebugExtension && c.ID%0x20 == 0 {
			return jdwp.ErrAbsentInformation, nil
		}
	}
	if method {
		found := false
		for _, x := range c.Methods {
			found = found || x == m
		}
		if !found {
			return jdwp.ErrInvalidMethodID, nil
		}
	}
	w.String(fmt.Sprintf("%s %s m%x v%d", cmd, c.Signature, m, c.Version))
	return jdwp.ErrNone, w.Bytes()
}
