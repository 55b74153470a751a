package scache_test

import (
	"fmt"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"pgregory.net/rapid"
)

var modelKeyable = []jdwp.Command{
	jdwp.CmdClassTypeSuperclass, jdwp.CmdReferenceTypeSourceFile, jdwp.CmdReferenceTypeSourceDebugExtension,
	jdwp.CmdReferenceTypeInterfaces, jdwp.CmdReferenceTypeMethodsWithGeneric, jdwp.CmdReferenceTypeSignature,
	jdwp.CmdReferenceTypeMethods, jdwp.CmdMethodLineTable, jdwp.CmdMethodIsObsolete,
	jdwp.CmdMethodVariableTableWithGeneric, jdwp.CmdMethodVariableTable, jdwp.CmdReferenceTypeFields,
	jdwp.CmdReferenceTypeFieldsWithGeneric, jdwp.CmdReferenceTypeSignatureWithGeneric,
}

// script is the debugger's side of a random session: it draws commands as a
// debugger would, from what it knows of the VM (view), and hands each
// command packet to emit.
type script struct {
	t       *rapid.T
	view    *scachetest.ModelVM // the VM as the debugger sees it
	emit    func(packet []byte)
	nextID  uint32
	classes []*scachetest.ModelClass // every class ever loaded, unloaded ones too
	threads []jdwp.ObjectID
	nsig    int
	stopped jdwp.ObjectID // the thread of the last stop event
	// watches are what the debugger's views show at every stop, drawn at
	// its first: the fields of the stopped thread's this then, its class's
	// statics, the threads, another thread's name. The same bytes at every
	// stop, as a debugger's views ask them (and, apart, the fields of each
	// stop's this).
	watches []jdwp.CommandMessage
}

// newWorld draws id sizes, a frame numbering, classes and threads, and
// returns the model VM with a script about it (view and emit still unset).
func newWorld(t *rapid.T) (*scachetest.ModelVM, *script) {
	sizes := jdwp.IDSizes{
		FieldID: rapid.IntRange(1, 8).Draw(t, "fieldSize"), MethodID: rapid.IntRange(3, 8).Draw(t, "methodSize"),
		ObjectID: rapid.IntRange(1, 8).Draw(t, "objectSize"), ReferenceTypeID: rapid.IntRange(2, 8).Draw(t, "refSize"),
		FrameID: rapid.IntRange(1, 8).Draw(t, "frameSize")}
	vm := scachetest.NewModelVM(sizes)
	if rapid.Bool().Draw(t, "randomFrameIDs") {
		vm.FrameIDs = scachetest.FrameIDsRandom
	}
	d := &script{t: t, nextID: 1}
	for i := rapid.IntRange(2, 6).Draw(t, "classes"); i > 0; i-- {
		d.classes = append(d.classes, vm.AddClass(d.newSignature(), rapid.IntRange(1, 3).Draw(t, "methods"),
			rapid.Bool().Draw(t, "interface"), rapid.Bool().Draw(t, "noSource")))
	}
	d.drawSupertypes()
	for i := rapid.IntRange(1, 4).Draw(t, "threads"); i > 0; i-- {
		thread := jdwp.ObjectID(len(d.threads) + 1)
		d.threads = append(d.threads, thread)
		vm.SetThread(thread, d.stack())
	}
	return vm, d
}

// drawSupertypes gives classes superclasses and interfaces among the
// world's types, for the debugger's walks up the hierarchy.
func (d *script) drawSupertypes() {
	var classes, interfaces []*scachetest.ModelClass
	for _, c := range d.classes {
		if c.Interface {
			interfaces = append(interfaces, c)
		} else {
			classes = append(classes, c)
		}
	}
	for _, c := range d.classes {
		if !c.Interface && rapid.Bool().Draw(d.t, "hasSuperclass") {
			c.Superclass = rapid.SampledFrom(classes).Draw(d.t, "superclass").ID
		}
		for _, i := range interfaces {
			if i != c && rapid.Bool().Draw(d.t, "implements") {
				c.Interfaces = append(c.Interfaces, i.ID)
			}
		}
	}
}

func (d *script) newSignature() string {
	d.nsig++
	// A few signatures repeat: class loaders load the same name more than once.
	return fmt.Sprintf("LC%d;", d.nsig%5)
}

func (d *script) stack() []scachetest.ModelFrame {
	var frames []scachetest.ModelFrame
	for i := rapid.IntRange(1, 6).Draw(d.t, "depth"); i > 0; i-- {
		c := rapid.SampledFrom(d.classes).Draw(d.t, "frameClass")
		m := rapid.SampledFrom(c.Methods).Draw(d.t, "frameMethod")
		if rapid.IntRange(0, 9).Draw(d.t, "obsolete") == 0 {
			m = 0
		}
		frames = append(frames, scachetest.ModelFrame{Class: c.ID, Method: m, Index: uint64(i)})
	}
	return frames
}

// send sends a typed debugger command.
func (d *script) send(cmd jdwp.CommandMessage) {
	id := d.nextID
	d.nextID++
	d.emit(jdwp.AppendCommandPacket(nil, id, cmd, d.view.Sizes))
}

// sendRaw sends a command without a typed message.
func (d *script) sendRaw(cmd jdwp.Command, params func(w *jdwp.Writer)) {
	w := jdwp.NewWriter(d.view.Sizes)
	params(w)
	id := d.nextID
	d.nextID++
	d.emit(jdwp.AppendCommand(nil, id, cmd, w.Bytes()))
}

func (d *script) keyableCommand() jdwp.CommandMessage {
	cmd := rapid.SampledFrom(modelKeyable).Draw(d.t, "cmd")
	c := rapid.SampledFrom(d.classes).Draw(d.t, "class")
	m := rapid.SampledFrom(append([]jdwp.MethodID{0x7777}, c.Methods...)).Draw(d.t, "method")
	switch cmd {
	case jdwp.CmdMethodLineTable:
		return &jdwp.MethodLineTableCommand{RefType: c.ID, Method: m}
	case jdwp.CmdMethodIsObsolete:
		return &jdwp.MethodIsObsoleteCommand{RefType: c.ID, Method: m}
	case jdwp.CmdMethodVariableTableWithGeneric:
		return &jdwp.MethodVariableTableWithGenericCommand{RefType: c.ID, Method: m}
	case jdwp.CmdMethodVariableTable:
		return &jdwp.MethodVariableTableCommand{RefType: c.ID, Method: m}
	case jdwp.CmdClassTypeSuperclass:
		return &jdwp.ClassTypeSuperclassCommand{RefType: c.ID}
	case jdwp.CmdReferenceTypeSourceFile:
		return &jdwp.RefTypeSourceFileCommand{RefType: c.ID}
	case jdwp.CmdReferenceTypeSourceDebugExtension:
		return &jdwp.RefTypeSourceDebugExtensionCommand{RefType: c.ID}
	case jdwp.CmdReferenceTypeInterfaces:
		return &jdwp.RefTypeInterfacesCommand{RefType: c.ID}
	case jdwp.CmdReferenceTypeMethodsWithGeneric:
		return &jdwp.RefTypeMethodsWithGenericCommand{RefType: c.ID}
	case jdwp.CmdReferenceTypeSignature:
		return &jdwp.RefTypeSignatureCommand{RefType: c.ID}
	case jdwp.CmdReferenceTypeSignatureWithGeneric:
		return &jdwp.RefTypeSignatureWithGenericCommand{RefType: c.ID}
	case jdwp.CmdReferenceTypeFields:
		return &jdwp.RefTypeFieldsCommand{RefType: c.ID}
	case jdwp.CmdReferenceTypeFieldsWithGeneric:
		return &jdwp.RefTypeFieldsWithGenericCommand{RefType: c.ID}
	default:
		return &jdwp.RefTypeMethodsCommand{RefType: c.ID}
	}
}

// metadataCommand sends a class command, a Frames command, AllClasses,
// Version or a hot swap.
func (d *script) metadataCommand() {
	switch rapid.IntRange(0, 6).Draw(d.t, "metaCmd") {
	case 0, 1, 2:
		d.send(d.keyableCommand())
	case 3:
		d.send(&jdwp.ThreadFramesCommand{Thread: rapid.SampledFrom(d.threads).Draw(d.t, "thread"),
			StartFrame: 0, Length: int32(rapid.IntRange(-1, 1).Draw(d.t, "length"))})
	case 4:
		if rapid.Bool().Draw(d.t, "generic") {
			d.send(&jdwp.VMAllClassesWithGenericCommand{})
		} else {
			d.send(&jdwp.VMAllClassesCommand{})
		}
	case 5:
		d.send(&jdwp.VMVersionCommand{})
	default:
		c := rapid.SampledFrom(d.classes).Draw(d.t, "redefined")
		d.send(&jdwp.VMRedefineClassesCommand{Classes: []jdwp.ClassDef{{RefType: c.ID, ClassFile: []byte{1}}}})
	}
}

// thread draws a thread as a debugger does: mostly the one that stopped
// last, else any, now and then one that does not exist.
func (d *script) thread() jdwp.ObjectID {
	switch n := rapid.IntRange(0, 15).Draw(d.t, "whichThread"); {
	case n == 0:
		return 0x999
	case n < 8 && d.stopped != 0:
		return d.stopped
	}
	return rapid.SampledFrom(d.threads).Draw(d.t, "thread")
}

// frame draws a frame id of a thread as the debugger would know it: mostly
// valid now, sometimes from an earlier suspension.
func (d *script) frame(t jdwp.ObjectID) jdwp.FrameID {
	th := d.view.Thread(t)
	if th == nil {
		return 1
	}
	gen := th.Generation
	if rapid.IntRange(0, 7).Draw(d.t, "staleFrame") == 0 && gen > 0 {
		gen--
	}
	depth := 0 // mostly the top frame, as a debugger's variables view
	if rapid.IntRange(0, 2).Draw(d.t, "deeper") == 0 {
		depth = rapid.IntRange(0, len(th.Frames)).Draw(d.t, "depth")
	}
	return d.view.FrameID(th, gen, depth)
}

// frameAt returns the frame a frame id names now, if any.
func (d *script) frameAt(t jdwp.ObjectID, f jdwp.FrameID) (scachetest.ModelFrame, bool) {
	th := d.view.Thread(t)
	if th == nil {
		return scachetest.ModelFrame{}, false
	}
	for depth, fr := range th.Frames {
		if d.view.FrameID(th, th.Generation, depth) == f {
			return fr, true
		}
	}
	return scachetest.ModelFrame{}, false
}

// object draws an object the debugger has seen: a local, a this, or a made-up id.
func (d *script) object() jdwp.ObjectID {
	var ids []jdwp.ObjectID
	if th := d.view.Thread(d.stopped); th != nil && len(th.Frames) > 0 && rapid.Bool().Draw(d.t, "topObject") {
		ids = append(ids, th.Frames[0].This)
		for _, v := range th.Frames[0].Locals {
			if v.Tag.IsObject() && v.Bits != 0 {
				ids = append(ids, v.ObjectID())
			}
		}
		return rapid.SampledFrom(ids).Draw(d.t, "object")
	}
	for _, th := range d.view.Threads() {
		for _, f := range th.Frames {
			ids = append(ids, f.This)
			for _, v := range f.Locals {
				if v.Tag.IsObject() {
					ids = append(ids, v.ObjectID())
				}
			}
		}
	}
	ids = append(ids, 0x4242)
	return rapid.SampledFrom(ids).Draw(d.t, "object")
}

// watch asks, at a stop, what the debugger's views show: each watch most of
// the time.
func (d *script) watch() {
	if d.watches == nil {
		th := d.view.Thread(d.stopped)
		if th == nil || len(th.Frames) == 0 {
			return
		}
		top := th.Frames[0]
		d.watches = []jdwp.CommandMessage{
			&jdwp.ObjectRefGetValuesCommand{Object: top.This, Fields: []jdwp.FieldID{1, 2}},
			&jdwp.RefTypeGetValuesCommand{RefType: top.Class, Fields: []jdwp.FieldID{1, 2}},
			&jdwp.VMAllThreadsCommand{},
			&jdwp.ThreadNameCommand{Thread: d.thread()},
			// jdb's threads: the group tree.
			&jdwp.VMTopLevelThreadGroupsCommand{},
			&jdwp.ThreadGroupChildrenCommand{Group: scachetest.SystemGroup},
			&jdwp.ThreadGroupChildrenCommand{Group: scachetest.MainGroup},
			&jdwp.ThreadGroupNameCommand{Group: scachetest.MainGroup},
		}
	}
	for _, m := range d.watches {
		if rapid.IntRange(0, 3).Draw(d.t, "watched") > 0 {
			d.send(m)
		}
	}
	// The expanded this of the stop, whichever object it is now.
	if th := d.view.Thread(d.stopped); th != nil && len(th.Frames) > 0 && rapid.Bool().Draw(d.t, "thisExpanded") {
		d.send(&jdwp.ObjectRefReferenceTypeCommand{Object: th.Frames[0].This})
		d.send(&jdwp.ObjectRefGetValuesCommand{Object: th.Frames[0].This, Fields: []jdwp.FieldID{2, 1}})
		// And the object it holds, as jdb's dump of a field asks it: one
		// field at a time, first none.
		var held jdwp.Value
		if o := d.view.Object(th.Frames[0].This); o != nil {
			held = o.Fields[scachetest.HeldField]
		}
		if held.Tag == jdwp.TagObject && rapid.Bool().Draw(d.t, "heldExpanded") {
			d.send(&jdwp.ObjectRefGetValuesCommand{Object: th.Frames[0].This, Fields: []jdwp.FieldID{scachetest.HeldField}})
			held := held.ObjectID()
			for _, f := range [][]jdwp.FieldID{nil, {1}, {2}} {
				d.send(&jdwp.ObjectRefGetValuesCommand{Object: held, Fields: f})
			}
		}
	}
}

// staticsClass draws a class whose statics the debugger reads or writes:
// mostly the class the stopped thread is in, as a debugger shows it.
func (d *script) staticsClass() jdwp.ReferenceTypeID {
	if th := d.view.Thread(d.stopped); th != nil && len(th.Frames) > 0 && rapid.IntRange(0, 3).Draw(d.t, "otherStatics") > 0 {
		return th.Frames[0].Class
	}
	return rapid.SampledFrom(d.classes).Draw(d.t, "staticsOf").ID
}

// stateCommand sends a command about threads, frames or objects, most of
// them the ones a debugger asks at a stop.
func (d *script) stateCommand() {
	t := d.thread()
	switch rapid.IntRange(0, 11).Draw(d.t, "stateCmd") {
	case 0:
		d.send(&jdwp.ThreadFramesCommand{Thread: t, StartFrame: 0, Length: -1})
	case 1:
		d.send(&jdwp.ThreadFramesCommand{Thread: t, StartFrame: int32(rapid.IntRange(0, 3).Draw(d.t, "start")),
			Length: int32(rapid.IntRange(-1, 3).Draw(d.t, "len"))})
	case 2:
		d.send(&jdwp.ThreadFrameCountCommand{Thread: t})
	case 3:
		d.send(&jdwp.ThreadNameCommand{Thread: t})
	case 4:
		if rapid.IntRange(0, 3).Draw(d.t, "suspendCount") == 0 {
			d.send(&jdwp.ThreadSuspendCountCommand{Thread: t})
			return
		}
		d.send(&jdwp.ThreadStatusCommand{Thread: t})
	case 5:
		d.send(&jdwp.FrameThisObjectCommand{Thread: t, Frame: d.frame(t)})
	case 6:
		// The variables a debugger shows, computed as JDI does, a random
		// slot, or none (a method's first line: the frame's validity alone).
		f := d.frame(t)
		var slots []jdwp.SlotRequest
		switch fr, ok := d.frameAt(t, f); {
		case ok && rapid.Bool().Draw(d.t, "visible"):
			slots = scache.VisibleSlots(scachetest.ModelVariableTable(fr.Method), fr.Index)
		case rapid.IntRange(0, 3).Draw(d.t, "noSlot") == 0:
		default:
			slots = []jdwp.SlotRequest{{Slot: int32(rapid.IntRange(0, 5).Draw(d.t, "slot")), Tag: jdwp.TagInt}}
		}
		d.send(&jdwp.FrameGetValuesCommand{Thread: t, Frame: f, Slots: slots})
	case 7:
		d.send(&jdwp.ObjectRefReferenceTypeCommand{Object: d.object()})
	case 8:
		d.send(&jdwp.StringRefValueCommand{Object: d.object()})
	case 9:
		switch rapid.IntRange(0, 4).Draw(d.t, "threadsCmd") {
		case 0:
			d.send(&jdwp.VMAllThreadsCommand{})
		case 1:
			d.send(&jdwp.VMTopLevelThreadGroupsCommand{})
		case 2:
			d.send(&jdwp.ThreadGroupChildrenCommand{Group: rapid.SampledFrom([]jdwp.ThreadGroupID{
				scachetest.SystemGroup, scachetest.MainGroup, 0x77}).Draw(d.t, "group")})
		case 3:
			d.send(&jdwp.ThreadGroupParentCommand{Group: scachetest.MainGroup})
		default:
			d.send(&jdwp.ThreadGroupOfCommand{Thread: t})
		}
	case 10:
		d.send(&jdwp.RefTypeGetValuesCommand{RefType: d.staticsClass(), Fields: []jdwp.FieldID{1, 2}})
	default:
		// Both orders: a watch asks them as 2, 1.
		first := jdwp.FieldID(rapid.IntRange(1, 2).Draw(d.t, "firstField"))
		d.send(&jdwp.ObjectRefGetValuesCommand{Object: d.object(), Fields: []jdwp.FieldID{first, 3 - first}})
	}
}

// controlCommand sends a command that lets threads run or changes state:
// resumes, suspends, SetValues, invokes, clearing an event request. It reports false, sending
// nothing, when the draw says the VM should act instead.
func (d *script) controlCommand() bool {
	t := d.thread()
	switch rapid.IntRange(0, 13).Draw(d.t, "control") {
	case 0:
		d.send(&jdwp.VMResumeCommand{})
	case 1:
		d.sendRaw(jdwp.CmdThreadReferenceResume, func(w *jdwp.Writer) { w.ObjectID(t) })
	case 2:
		d.send(&jdwp.VMSuspendCommand{})
	case 3:
		d.sendRaw(jdwp.CmdThreadReferenceSuspend, func(w *jdwp.Writer) { w.ObjectID(t) })
	case 4:
		// Change a variable the debugger shows (or slot 0).
		f := d.frame(t)
		slot := int32(0)
		if fr, ok := d.frameAt(t, f); ok {
			if vis := scache.VisibleSlots(scachetest.ModelVariableTable(fr.Method), fr.Index); len(vis) > 0 {
				slot = rapid.SampledFrom(vis).Draw(d.t, "setSlot").Slot
			}
		}
		value := int32(rapid.IntRange(-5, 5).Draw(d.t, "newValue"))
		d.sendRaw(jdwp.CmdStackFrameSetValues, func(w *jdwp.Writer) {
			w.ObjectID(t)
			w.FrameID(f)
			w.Int32(1)
			w.Int32(slot)
			w.Value(jdwp.IntValue(value))
		})
	case 5:
		obj := d.object()
		value := int32(rapid.IntRange(-5, 5).Draw(d.t, "newField"))
		d.sendRaw(jdwp.CmdObjectReferenceSetValues, func(w *jdwp.Writer) {
			w.ObjectID(obj)
			w.Int32(1)
			w.FieldID(1)
			w.Int32(value)
		})
	case 6:
		c := rapid.SampledFrom(d.classes).Draw(d.t, "invokedClass")
		options := int32(0) // the other threads run meanwhile, or (single-threaded) stay where they are
		if rapid.IntRange(0, 3).Draw(d.t, "staticSingleThreaded") == 0 {
			options = jdwp.InvokeSingleThreaded
		}
		d.sendRaw(jdwp.CmdClassTypeInvokeMethod, func(w *jdwp.Writer) {
			w.ReferenceTypeID(c.ID)
			w.ObjectID(t)
			w.MethodID(c.Methods[0])
			w.Int32(0)
			w.Int32(options)
		})
	case 7:
		// Clear a request, as a debugger does at each step event (answered ahead).
		kind := rapid.SampledFrom([]jdwp.EventKind{jdwp.EventSingleStep, jdwp.EventBreakpoint, jdwp.EventClassPrepare}).Draw(d.t, "clearKind")
		d.send(&jdwp.EventRequestClearCommand{EventKind: kind, RequestID: int32(rapid.IntRange(0, 5).Draw(d.t, "cleared"))})
	case 8:
		d.stepRequest(t)
	case 10:
		// A renderer's toString of an object the debugger was shown, in a
		// thread (single-threaded now and then); its reply is followed by
		// what a debugger asks after it (the frames, then the string).
		options := int32(0)
		if rapid.Bool().Draw(d.t, "singleThreaded") {
			options = jdwp.InvokeSingleThreaded
		}
		c := rapid.SampledFrom(d.classes).Draw(d.t, "renderedClass")
		d.send(&jdwp.ObjectRefInvokeMethodCommand{Object: d.object(), Class: c.ID,
			MethodCall: jdwp.MethodCall{Thread: t, Method: c.Methods[0], Options: options}})
	case 9:
		c := d.staticsClass()
		value := int32(rapid.IntRange(-5, 5).Draw(d.t, "newStatic"))
		d.sendRaw(jdwp.CmdClassTypeSetValues, func(w *jdwp.Writer) {
			w.ReferenceTypeID(c)
			w.Int32(1)
			w.FieldID(2)
			w.Int32(value)
		})
	default:
		return false
	}
	return true
}

// stepRequest makes a step request of thread t, as a debugger does at each
// step (answered ahead); now and then one the agent refuses.
func (d *script) stepRequest(t jdwp.ObjectID) {
	count := int32(1)
	if rapid.IntRange(0, 7).Draw(d.t, "badCount") == 0 {
		count = 0
	}
	d.send(&jdwp.EventRequestSetCommand{EventKind: jdwp.EventSingleStep, SuspendPolicy: jdwp.SuspendPolicyAll,
		Modifiers: []jdwp.Modifier{
			&jdwp.StepModifier{Thread: t, Size: jdwp.StepSizeLine, Depth: jdwp.StepDepth(rapid.IntRange(0, 2).Draw(d.t, "depth"))},
			&jdwp.CountModifier{Count: count}, &jdwp.ClassExcludeModifier{Pattern: "java.*"}}})
}

// runningThread returns a thread that is not suspended and has frames (one
// that can reach a breakpoint), else the drawn thread t.
func (d *script) runningThread(vm *scachetest.ModelVM, t jdwp.ObjectID) jdwp.ObjectID {
	for _, th := range vm.Threads() {
		if th.Suspends == 0 && len(th.Frames) > 0 {
			return th.ID
		}
	}
	return t
}
