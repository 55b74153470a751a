package scachetest

import (
	"fmt"

	"github.com/jdwpscache/scache/jdwp"
)

// The model's mutable state: threads that run when not suspended, frames,
// locals and objects that change, and the commands that read and write them.

// FrameIDScheme says how a model VM numbers frames.
type FrameIDScheme uint8

const (
	// FrameIDsByGeneration numbers a frame by its thread's generation and its
	// depth, as OpenJDK's JDWP agent (and ART's, which is the same agent) does:
	// ids change whenever the thread resumes and are predictable.
	FrameIDsByGeneration FrameIDScheme = iota
	// FrameIDsRandom gives every frame of every suspension an id that looks
	// random: nothing can be predicted.
	FrameIDsRandom
)

// nextGeneration moves a thread to its next frame generation (it ran): its
// frames get new ids, numbered as the VM numbers frames now.
func (vm *ModelVM) nextGeneration(t *ModelThread) {
	t.Generation++
	t.FrameIDs = vm.FrameIDs
}

// FrameID returns the id the VM gives the frame at depth of thread t while
// the thread is in the given generation, as the wire carries it (cut to the
// VM's frame id size). Frames are numbered as the VM numbered them when the
// thread's current generation began: a VM never renumbers a suspended
// thread's frames.
func (vm *ModelVM) FrameID(t *ModelThread, generation, depth int) jdwp.FrameID {
	id := uint64(generation)<<16 | uint64(depth)
	if t.FrameIDs == FrameIDsRandom {
		// splitmix64 of the thread, generation and depth.
		z := uint64(t.ID)<<40 ^ uint64(generation)<<20 ^ uint64(depth) + 0x9e3779b97f4a7c15
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		id = z ^ z>>31
	}
	if n := vm.Sizes.FrameID; n < 8 {
		id &= 1<<(8*uint(n)) - 1
	}
	return jdwp.FrameID(id)
}

func (vm *ModelVM) frame(t *ModelThread, id jdwp.FrameID) (*ModelFrame, jdwp.ErrorCode) {
	for depth := range t.Frames {
		if vm.FrameID(t, t.Generation, depth) == id {
			return &t.Frames[depth], jdwp.ErrNone
		}
	}
	return nil, jdwp.ErrInvalidFrameID
}

// suspendedThread reads a thread id and checks that the thread is suspended.
func (vm *ModelVM) suspendedThread(r *jdwp.Reader) (*ModelThread, jdwp.ErrorCode) {
	t, ok := vm.threads[r.ObjectID()]
	if !ok {
		return nil, jdwp.ErrInvalidThread
	}
	if t.Suspends == 0 {
		return nil, jdwp.ErrThreadNotSuspended
	}
	return t, jdwp.ErrNone
}

func (vm *ModelVM) resume(t *ModelThread) {
	if t.Suspends > 0 {
		t.Suspends--
		if t.Suspends == 0 {
			vm.nextGeneration(t)
		}
	}
}

// stateAnswer answers the commands about threads, frames and objects; ok is
// false for other commands.
func (vm *ModelVM) stateAnswer(cmd jdwp.Command, r *jdwp.Reader, w *jdwp.Writer) (code jdwp.ErrorCode, ok bool) {
	switch cmd {
	case jdwp.CmdVirtualMachineAllThreads:
		var m jdwp.ObjectIDsReply
		for _, t := range vm.Threads() {
			m.IDs = append(m.IDs, t.ID)
		}
		m.Encode(w)
	case jdwp.CmdVirtualMachineTopLevelThreadGroups, jdwp.CmdThreadGroupReferenceName,
		jdwp.CmdThreadGroupReferenceParent, jdwp.CmdThreadGroupReferenceChildren, jdwp.CmdThreadReferenceThreadGroup:
		return vm.groupAnswer(cmd, r, w), true
	case jdwp.CmdVirtualMachineSuspend:
		for _, t := range vm.threads {
			t.Suspends++
		}
	case jdwp.CmdVirtualMachineResume:
		for _, t := range vm.threads {
			vm.resume(t)
		}
	case jdwp.CmdThreadReferenceSuspend, jdwp.CmdThreadReferenceResume, jdwp.CmdThreadReferenceName,
		jdwp.CmdThreadReferenceStatus, jdwp.CmdThreadReferenceSuspendCount:
		t, found := vm.threads[r.ObjectID()]
		if !found {
			return jdwp.ErrInvalidThread, true
		}
		switch cmd {
		case jdwp.CmdThreadReferenceSuspend:
			t.Suspends++
		case jdwp.CmdThreadReferenceResume:
			vm.resume(t)
		case jdwp.CmdThreadReferenceName:
			w.String(t.Name)
		case jdwp.CmdThreadReferenceSuspendCount:
			w.Int32(int32(t.Suspends))
		default:
			suspended := int32(0)
			if t.Suspends > 0 {
				suspended = jdwp.SuspendStatusSuspended
			}
			(&jdwp.ThreadStatusReply{Status: t.Status, SuspendStatus: suspended}).Encode(w)
		}
	case jdwp.CmdThreadReferenceFrames:
		t, code := vm.suspendedThread(r)
		if code != jdwp.ErrNone {
			return code, true
		}
		start, length := int(r.Int32()), int(r.Int32())
		if length == -1 {
			length = len(t.Frames) - start
		}
		if start < 0 || start >= len(t.Frames) || length < 0 || start+length > len(t.Frames) {
			return jdwp.ErrInvalidIndex, true
		}
		var m jdwp.ThreadFramesReply
		for i := start; i < start+length; i++ {
			f := t.Frames[i]
			tag := jdwp.TypeTagClass
			if c, ok := vm.classes[f.Class]; ok && c.Interface {
				tag = jdwp.TypeTagInterface
			}
			m.Frames = append(m.Frames, jdwp.Frame{Frame: vm.FrameID(t, t.Generation, i),
				Location: jdwp.Location{TypeTag: tag, Class: f.Class, Method: f.Method, Index: f.Index}})
		}
		m.Encode(w)
	case jdwp.CmdThreadReferenceFrameCount:
		t, code := vm.suspendedThread(r)
		if code != jdwp.ErrNone {
			return code, true
		}
		w.Int32(int32(len(t.Frames)))
	case jdwp.CmdStackFrameThisObject, jdwp.CmdStackFrameGetValues, jdwp.CmdStackFrameSetValues:
		return vm.frameAnswer(cmd, r, w), true
	case jdwp.CmdStackFramePopFrames:
		return vm.popFrames(r), true
	case jdwp.CmdObjectReferenceReferenceType, jdwp.CmdStringReferenceValue, jdwp.CmdObjectReferenceGetValues,
		jdwp.CmdObjectReferenceSetValues:
		return vm.objectAnswer(cmd, r, w), true
	case jdwp.CmdReferenceTypeGetValues, jdwp.CmdClassTypeSetValues:
		return vm.staticsAnswer(cmd, r, w), true
	case jdwp.CmdArrayReferenceLength, jdwp.CmdArrayReferenceGetValues, jdwp.CmdArrayReferenceSetValues:
		return vm.arrayAnswer(cmd, r, w), true
	case jdwp.CmdClassTypeInvokeMethod:
		// The invoked method changes objects and, unless single-threaded, lets
		// the other threads run meanwhile; it returns an int. Every thread
		// that ran gets new frame ids.
		r.ReferenceTypeID()
		t, code := vm.suspendedThread(r)
		if code != jdwp.ErrNone {
			return code, true
		}
		r.MethodID()
		for n := r.Int32(); n > 0 && r.Err() == nil; n-- {
			r.Value()
		}
		single := r.Int32()&jdwp.InvokeSingleThreaded != 0
		seed := uint64(len(vm.objects))
		for _, x := range vm.Threads() {
			if single && x != t {
				continue // INVOKE_SINGLE_THREADED: the others stay as they are
			}
			vm.nextGeneration(x)
			if x == t {
				if len(x.Frames) == 0 {
					continue
				}
				if o, ok := vm.objects[x.Frames[0].This]; ok {
					o.Fields[2] = jdwp.IntValue(int32(seed))
					if _, holds := o.Fields[HeldField]; holds {
						o.Fields[HeldField] = jdwp.ObjectValue(jdwp.TagObject, vm.newLeaf(o.Class, int64(seed)))
					}
				}
				if c, ok := vm.classes[x.Frames[0].Class]; ok {
					c.Statics[2] = jdwp.IntValue(int32(seed))
				}
				continue
			}
			vm.run(x, seed+uint64(x.ID))
		}
		w.Value(jdwp.IntValue(int32(seed)))
		w.TaggedObjectID(jdwp.TaggedObjectID{Tag: jdwp.TagObject})
	default:
		return 0, false
	}
	return jdwp.ErrNone, true
}

// The model's thread groups: SystemGroup, whose one child group is
// MainGroup, which holds every thread.
const (
	SystemGroup jdwp.ThreadGroupID = 0x60
	MainGroup   jdwp.ThreadGroupID = 0x61
)

func (vm *ModelVM) groupAnswer(cmd jdwp.Command, r *jdwp.Reader, w *jdwp.Writer) jdwp.ErrorCode {
	if cmd == jdwp.CmdVirtualMachineTopLevelThreadGroups {
		(&jdwp.ObjectIDsReply{IDs: []jdwp.ObjectID{SystemGroup}}).Encode(w)
		return jdwp.ErrNone
	}
	id := r.ObjectID()
	if cmd == jdwp.CmdThreadReferenceThreadGroup {
		if _, ok := vm.threads[id]; !ok {
			return jdwp.ErrInvalidThread
		}
		w.ObjectID(MainGroup)
		return jdwp.ErrNone
	}
	if id != SystemGroup && id != MainGroup {
		return jdwp.ErrInvalidThreadGroup
	}
	switch cmd {
	case jdwp.CmdThreadGroupReferenceName:
		w.String(map[jdwp.ThreadGroupID]string{SystemGroup: "system", MainGroup: "main"}[id])
	case jdwp.CmdThreadGroupReferenceParent:
		w.ObjectID(map[jdwp.ThreadGroupID]jdwp.ThreadGroupID{MainGroup: SystemGroup}[id])
	default:
		var m jdwp.ThreadGroupChildrenReply
		if id == SystemGroup {
			m.Groups = []jdwp.ThreadGroupID{MainGroup}
		} else {
			for _, t := range vm.Threads() {
				m.Threads = append(m.Threads, t.ID)
			}
		}
		m.Encode(w)
	}
	return jdwp.ErrNone
}

func (vm *ModelVM) frameAnswer(cmd jdwp.Command, r *jdwp.Reader, w *jdwp.Writer) jdwp.ErrorCode {
	t, code := vm.suspendedThread(r)
	if code != jdwp.ErrNone {
		return code
	}
	f, code := vm.frame(t, r.FrameID())
	if code != jdwp.ErrNone {
		return code
	}
	switch cmd {
	case jdwp.CmdStackFrameThisObject:
		this := jdwp.TaggedObjectID{Tag: jdwp.TagObject}
		if ModelModBits(f.Method)&jdwp.ModStatic == 0 {
			this.ID = f.This
		}
		w.TaggedObjectID(this)
	case jdwp.CmdStackFrameGetValues:
		n := r.Count(5)
		var m jdwp.ValuesReply
		for i := 0; i < n; i++ {
			slot, _ := r.Int32(), r.Tag()
			v, ok := f.Locals[slot]
			if !ok {
				return jdwp.ErrInvalidSlot
			}
			m.Values = append(m.Values, v)
		}
		m.Encode(w)
	case jdwp.CmdStackFrameSetValues:
		n := r.Count(5)
		for i := 0; i < n; i++ {
			slot, v := r.Int32(), r.Value()
			if _, ok := f.Locals[slot]; !ok {
				return jdwp.ErrInvalidSlot
			}
			f.Locals[slot] = v
		}
	}
	if r.Err() != nil {
		return jdwp.ErrIllegalArgument
	}
	return jdwp.ErrNone
}

func (vm *ModelVM) objectAnswer(cmd jdwp.Command, r *jdwp.Reader, w *jdwp.Writer) jdwp.ErrorCode {
	id := r.ObjectID()
	o, ok := vm.objects[id]
	if t := vm.threads[id]; !ok && t != nil && cmd == jdwp.CmdObjectReferenceSetValues {
		return vm.setThreadFields(t, r)
	}
	if !ok {
		return jdwp.ErrInvalidObject
	}
	switch cmd {
	case jdwp.CmdObjectReferenceReferenceType:
		tag := jdwp.TypeTagClass
		if o.ElementTag != 0 {
			tag = jdwp.TypeTagArray
		}
		w.TypeTag(tag)
		w.ReferenceTypeID(o.Class)
	case jdwp.CmdStringReferenceValue:
		if o.String == nil {
			return jdwp.ErrInvalidString
		}
		w.String(*o.String)
	case jdwp.CmdObjectReferenceGetValues:
		n := r.Count(1)
		var m jdwp.ValuesReply
		for i := 0; i < n; i++ {
			v, ok := o.Fields[r.FieldID()]
			if !ok {
				return jdwp.ErrInvalidFieldID
			}
			m.Values = append(m.Values, v)
		}
		m.Encode(w)
	case jdwp.CmdObjectReferenceSetValues:
		n := r.Count(1)
		for i := 0; i < n; i++ {
			f := r.FieldID()
			old, ok := o.Fields[f]
			if !ok {
				return jdwp.ErrInvalidFieldID
			}
			o.Fields[f] = r.UntaggedValue(old.Tag)
		}
	}
	if r.Err() != nil {
		return jdwp.ErrIllegalArgument
	}
	return jdwp.ErrNone
}

// ThreadNameField is the field of a thread object that holds its name, as
// java.lang.Thread's name field does: ObjectReference.SetValues of a string
// there renames the thread (ThreadReference.Name reads the field). It is
// the one field of a thread object the model knows, and only to set.
const ThreadNameField jdwp.FieldID = 0x7e

func (vm *ModelVM) setThreadFields(t *ModelThread, r *jdwp.Reader) jdwp.ErrorCode {
	n := r.Count(1)
	for i := 0; i < n; i++ {
		if r.FieldID() != ThreadNameField {
			return jdwp.ErrInvalidFieldID
		}
		o, ok := vm.objects[r.ObjectID()]
		if !ok || o.String == nil {
			return jdwp.ErrTypeMismatch
		}
		if r.Err() == nil {
			t.Name = *o.String
		}
	}
	if r.Err() != nil {
		return jdwp.ErrIllegalArgument
	}
	return jdwp.ErrNone
}

func (vm *ModelVM) staticsAnswer(cmd jdwp.Command, r *jdwp.Reader, w *jdwp.Writer) jdwp.ErrorCode {
	c, ok := vm.classes[r.ReferenceTypeID()]
	if !ok {
		return jdwp.ErrInvalidClass
	}
	n := r.Count(1)
	var m jdwp.ValuesReply
	for i := 0; i < n; i++ {
		f := r.FieldID()
		old, ok := c.Statics[f]
		if !ok {
			return jdwp.ErrInvalidFieldID
		}
		if cmd == jdwp.CmdClassTypeSetValues {
			c.Statics[f] = r.UntaggedValue(old.Tag)
		} else {
			m.Values = append(m.Values, old)
		}
	}
	if r.Err() != nil {
		return jdwp.ErrIllegalArgument
	}
	if cmd == jdwp.CmdReferenceTypeGetValues {
		m.Encode(w)
	}
	return jdwp.ErrNone
}

// Tick lets every thread that is not suspended run a little: its top frame
// moves on, its locals and its this's fields change, its status changes;
// sometimes it calls a method, returns, or renames itself. seed makes the
// change deterministic: the same seed on two clones changes them alike.
func (vm *ModelVM) Tick(seed uint64) {
	for _, t := range vm.Threads() {
		if t.Suspends == 0 {
			vm.run(t, seed+uint64(t.ID))
		}
	}
}

func (vm *ModelVM) run(t *ModelThread, seed uint64) {
	t.Status = []jdwp.ThreadStatus{jdwp.ThreadStatusRunning, jdwp.ThreadStatusSleeping, jdwp.ThreadStatusWait}[seed%3]
	if seed%7 == 0 {
		t.Name = fmt.Sprintf("thread-%d-%d", t.ID, seed%100)
	}
	if len(t.Frames) == 0 {
		return
	}
	top := &t.Frames[0]
	top.Index = (top.Index + seed%5 + 1) % 40
	for slot, v := range top.Locals {
		if v.Tag == jdwp.TagInt {
			top.Locals[slot] = jdwp.IntValue(int32(v.Int()) + int32(seed%11) + 1)
		} else if v.Tag == jdwp.TagString && seed%2 == 0 {
			top.Locals[slot] = jdwp.ObjectValue(jdwp.TagString, vm.newString(fmt.Sprintf("s%d", seed)))
		}
	}
	if o, ok := vm.objects[top.This]; ok {
		o.Fields[1] = jdwp.IntValue(int32(seed))
		if _, holds := o.Fields[HeldField]; holds && seed%5 == 0 {
			o.Fields[HeldField] = jdwp.ObjectValue(jdwp.TagObject, vm.newLeaf(o.Class, int64(seed)))
		}
	}
	if c, ok := vm.classes[top.Class]; ok && seed%3 == 0 {
		c.Statics[1] = jdwp.IntValue(int32(seed))
	}
	switch seed % 4 {
	case 1: // a call
		c := vm.anyClass(seed)
		if c != nil && len(c.Methods) > 0 {
			m := c.Methods[seed%uint64(len(c.Methods))]
			t.Frames = append([]ModelFrame{{Class: c.ID, Method: m, Index: seed % 30,
				Locals: vm.newLocals(m, seed), This: vm.newObject(c.ID, int64(seed))}}, t.Frames...)
		}
	case 2: // a return
		if len(t.Frames) > 1 {
			t.Frames = t.Frames[1:]
		}
	}
}

func (vm *ModelVM) anyClass(seed uint64) *ModelClass {
	cs := vm.Classes()
	if len(cs) == 0 {
		return nil
	}
	return cs[seed%uint64(len(cs))]
}

// Stop makes a running thread hit a breakpoint with a suspend policy and
// returns the event packet; ok is false if the thread is suspended (it cannot
// reach a breakpoint) or has no frames.
func (vm *ModelVM) Stop(id jdwp.ObjectID, policy jdwp.SuspendPolicy) ([]byte, bool) {
	t := vm.threads[id]
	if t == nil || t.Suspends > 0 || len(t.Frames) == 0 {
		return nil, false
	}
	switch policy {
	case jdwp.SuspendPolicyAll:
		for _, x := range vm.threads {
			x.Suspends++
		}
	case jdwp.SuspendPolicyEventThread:
		t.Suspends++
	}
	f := t.Frames[0]
	return vm.event(&jdwp.Composite{SuspendPolicy: policy, Events: []jdwp.Event{
		&jdwp.LocationEvent{EventKind: jdwp.EventBreakpoint, RequestID: 3, Thread: t.ID,
			Location: jdwp.Location{TypeTag: jdwp.TypeTagClass, Class: f.Class, Method: f.Method, Index: f.Index}}}}), true
}
