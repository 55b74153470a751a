package scache

import "github.com/jdwpscache/scache/jdwp"

// traits is what the Speculator needs to know of a command, gathered once
// from the tables that state it (keyable, letRun, epochEnders,
// valueChangers), so that a packet costs one lookup.
type traits struct {
	spec          keySpec
	keyable       bool
	letRun        bool // see letRun
	endsEpoch     bool // lets threads run, or see epochEnders
	changesValues bool // see valueChangers
}

// commandTraits holds the traits of every command any table names.
var commandTraits = buildTraits()

func buildTraits() map[jdwp.Command]traits {
	t := map[jdwp.Command]traits{}
	for cmd, spec := range keyable {
		tr := t[cmd]
		tr.spec, tr.keyable = spec, true
		t[cmd] = tr
	}
	for cmd := range letRun {
		tr := t[cmd]
		tr.letRun, tr.endsEpoch = true, true
		t[cmd] = tr
	}
	for cmd := range epochEnders {
		tr := t[cmd]
		tr.endsEpoch = true
		t[cmd] = tr
	}
	for cmd := range valueChangers {
		tr := t[cmd]
		tr.changesValues = true
		t[cmd] = tr
	}
	return t
}

// ChangesDebuggee reports whether a debugger command changes the debuggee
// (its values, code or stacks) rather than inspecting it: the SetValues
// commands, VirtualMachine.RedefineClasses, StackFrame.PopFrames and
// ThreadReference.ForceEarlyReturn, Stop and Interrupt. Invokes run code
// but are how debuggers read much of what they show (toString, a getter):
// they count as inspection.
func ChangesDebuggee(cmd jdwp.Command) bool {
	switch cmd {
	case jdwp.CmdVirtualMachineRedefineClasses, jdwp.CmdStackFramePopFrames,
		jdwp.CmdThreadReferenceForceEarlyReturn, jdwp.CmdThreadReferenceStop, jdwp.CmdThreadReferenceInterrupt:
		return true
	}
	return ChangesValues(cmd)
}

// Invokes reports whether cmd is an invocation: it runs a method in a
// suspended thread and suspends it again before it replies
// (ObjectReference.InvokeMethod, ClassType.InvokeMethod and NewInstance,
// InterfaceType.InvokeMethod).
func Invokes(cmd jdwp.Command) bool { return invokes[cmd] }

// namesObject reports whether cmd is about the object an id of its
// parameters names: an error reply to it may only mean that the VM had not
// given the id out yet when it read it.
func namesObject(cmd jdwp.Command) bool {
	switch cmd.Set {
	case jdwp.SetObjectReference, jdwp.SetStringReference, jdwp.SetArrayReference:
		return true
	}
	return false
}
