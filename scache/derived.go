package scache

import (
	"github.com/jdwpscache/scache/jdwp"
)

// Derived answers: a debugger command whose reply is a deterministic function
// of a cached reply to another command is answered from that reply, byte for
// byte what the VM would say (derived_test.go compares each with HotSpot's).
//
//   - Frames(t, start, len) and FrameCount(t) from Frames(t, 0, -1) of the
//     same suspension epoch: the VM numbers frames by depth within one.
//   - StackFrame.GetValues of no slot (a debugger at a method's first line,
//     before any local is visible) from a Frames reply of the same epoch
//     that shows the frame: the reply says only that the frame is valid.
//   - Methods, Fields, Signature (of a type) and VariableTable (of a method)
//     from their WithGeneric forms, as long as those are cached (the class's
//     lifetime): the plain reply is the generic one without the generic
//     signatures, in the same order (the agent builds both from one list).
//   - AllClasses from AllClassesWithGeneric of the same epoch with every
//     thread suspended: any event, a class's preparation or unload among
//     them, ends the epoch.
//   - StackFrame.ThisObject of a frame whose method is static or native:
//     the null object (OpenJDK's agent answers so from the modifiers
//     without looking at the frame), when a Frames reply of the epoch
//     showed the frame and the class's methods are cached. The JDK's JDI
//     never asks it; Eclipse's asks it of every frame it shows.
//   - A GetValues of some of a frame's locals, an object's fields, a type's
//     statics or an array's elements from a cached GetValues that read
//     them all (derived_parts.go).

// derived answers a debugger command from a cached reply it is a function
// of, and reports whether it did. (It does not wait for a reply in flight:
// if that turned out not to answer, the command would reach the VM later
// than the debugger sent it.)
func (s *Speculator) derived(r *Response, id uint32, packet []byte, params jdwp.CommandMessage) bool {
	switch m := params.(type) {
	case *jdwp.ThreadFramesCommand:
		start, length := m.StartFrame, m.Length
		if start < 0 || (length < 1 && length != -1) || (start == 0 && length == -1) {
			return false
		}
		return s.fromCached(r, packet, wholeStackCommand(m.Thread), func(whole []byte) ([]byte, bool) {
			return framesPart(whole, s.sizes, start, length, id)
		})
	case *jdwp.ThreadFrameCountCommand:
		return s.fromCached(r, packet, wholeStackCommand(m.Thread), func(whole []byte) ([]byte, bool) {
			return frameCount(whole, s.sizes, id)
		})
	case *jdwp.FrameThisObjectCommand:
		return s.nullThis(r, id, packet, m)
	case *jdwp.FrameGetValuesCommand:
		if len(m.Slots) != 0 {
			return false
		}
		// No slot: the reply says only that the frame is valid. A frame of
		// a Frames reply of this epoch is.
		for _, frames := range []*jdwp.ThreadFramesCommand{wholeStackCommand(m.Thread), topFrameCommand(m.Thread)} {
			if s.fromCached(r, packet, frames, func(reply []byte) ([]byte, bool) {
				return noValues(reply, s.sizes, m.Frame, id)
			}) {
				return true
			}
		}
	}
	if generic := genericFormOf(params); generic != nil {
		cmd := params.Command()
		return s.fromCached(r, packet, generic, func(reply []byte) ([]byte, bool) {
			return plainFromGeneric(cmd, reply, s.sizes, id)
		})
	}
	return false
}

// fromCached answers the debugger's command packet with what build makes of
// the cached reply to source, if there is one and build can.
func (s *Speculator) fromCached(r *Response, packet []byte, source jdwp.CommandMessage, build func(reply []byte) ([]byte, bool)) bool {
	key := s.newKey(source)
	e, ok := s.cache.get(key)
	if !ok {
		return false
	}
	b, ok := build(e.reply)
	if !ok {
		return false
	}
	serve(s, r, key, e)
	s.answerHit(r, packet, b)
	return true
}

// nullThis answers StackFrame.ThisObject m of a frame of a static or
// native method with the null object, and reports whether it did.
func (s *Speculator) nullThis(r *Response, id uint32, packet []byte, m *jdwp.FrameThisObjectCommand) bool {
	loc, ok := s.stop.frameAt(m.Thread, m.Frame)
	if !ok {
		return false
	}
	mods, ok := s.lookup.methodModifiers(loc.Class, loc.Method)
	if !ok || mods&(jdwp.ModStatic|jdwp.ModNative) == 0 {
		return false
	}
	s.stats.Hits++
	reply := appendNullThis(s.scratch.up.buf(jdwp.HeaderSize+1+int(s.sizes.ObjectID)), id, s.sizes)
	s.scratch.up.keep(reply)
	s.answerHit(r, packet, reply)
	return true
}

// appendNullThis appends the reply with id to ThisObject of a frame of a
// static or native method: the null object, tagged as an object.
func appendNullThis(b []byte, id uint32, sizes jdwp.IDSizes) []byte {
	return jdwp.AppendReplyPacket(b, id, &jdwp.TaggedObjectReply{Object: jdwp.TaggedObjectID{Tag: jdwp.TagObject}}, sizes)
}

func wholeStackCommand(t jdwp.ThreadID) *jdwp.ThreadFramesCommand {
	return &jdwp.ThreadFramesCommand{Thread: t, StartFrame: 0, Length: -1}
}

func topFrameCommand(t jdwp.ThreadID) *jdwp.ThreadFramesCommand {
	return &jdwp.ThreadFramesCommand{Thread: t, StartFrame: 0, Length: 1}
}

// noValues builds the reply to StackFrame.GetValues of no slot of frame,
// with the given id, from a successful Frames reply that shows the frame:
// no values.
func noValues(frames []byte, sizes jdwp.IDSizes, frame jdwp.FrameID, id uint32) ([]byte, bool) {
	shown, ok := wholeStack(frames, sizes)
	if !ok {
		return nil, false
	}
	for _, f := range shown {
		if f.Frame == frame {
			return jdwp.AppendReplyPacket(nil, id, &jdwp.ValuesReply{}, sizes), true
		}
	}
	return nil, false
}

// successData returns the data of a successful reply packet.
func successData(reply []byte) ([]byte, bool) {
	h, err := jdwp.ParseHeader(reply)
	if err != nil || h.ErrorCode != jdwp.ErrNone {
		return nil, false
	}
	return jdwp.Data(reply), true
}

// wholeStack decodes a successful reply for a whole stack.
func wholeStack(whole []byte, sizes jdwp.IDSizes) ([]jdwp.Frame, bool) {
	data, ok := successData(whole)
	if !ok {
		return nil, false
	}
	var all jdwp.ThreadFramesReply
	if jdwp.Unmarshal(data, sizes, &all) != nil {
		return nil, false
	}
	return all.Frames, true
}

// frameCount builds the reply to FrameCount with the given id from a
// successful reply for the whole stack: its number of frames.
func frameCount(whole []byte, sizes jdwp.IDSizes, id uint32) ([]byte, bool) {
	all, ok := wholeStack(whole, sizes)
	if !ok {
		return nil, false
	}
	return jdwp.AppendReplyPacket(nil, id, &jdwp.IntReply{Value: int32(len(all))}, sizes), true
}

// framesPart builds the reply to Frames(start, length) with the given id
// from a successful reply for the whole stack, if the part is inside it.
func framesPart(whole []byte, sizes jdwp.IDSizes, start, length int32, id uint32) ([]byte, bool) {
	all, ok := wholeStack(whole, sizes)
	if !ok || int(start) >= len(all) {
		return nil, false
	}
	end := len(all)
	if length != -1 {
		end = int(start) + int(length)
	}
	if end > len(all) {
		return nil, false
	}
	return jdwp.AppendReplyPacket(nil, id, &jdwp.ThreadFramesReply{Frames: all[start:end]}, sizes), true
}

// genericFormOf returns the WithGeneric form of a plain command, or nil.
func genericFormOf(m jdwp.CommandMessage) jdwp.CommandMessage {
	switch m := m.(type) {
	case *jdwp.RefTypeMethodsCommand:
		return &jdwp.RefTypeMethodsWithGenericCommand{RefType: m.RefType}
	case *jdwp.RefTypeFieldsCommand:
		return &jdwp.RefTypeFieldsWithGenericCommand{RefType: m.RefType}
	case *jdwp.RefTypeSignatureCommand:
		return &jdwp.RefTypeSignatureWithGenericCommand{RefType: m.RefType}
	case *jdwp.MethodVariableTableCommand:
		return &jdwp.MethodVariableTableWithGenericCommand{RefType: m.RefType, Method: m.Method}
	case *jdwp.VMAllClassesCommand:
		return &jdwp.VMAllClassesWithGenericCommand{}
	}
	return nil
}

// plainFromGeneric builds the reply with the given id to the plain command
// cmd from a successful reply to its WithGeneric form: the same reply
// without the generic signatures.
func plainFromGeneric(cmd jdwp.Command, reply []byte, sizes jdwp.IDSizes, id uint32) ([]byte, bool) {
	data, ok := successData(reply)
	if !ok {
		return nil, false
	}
	var plain jdwp.Message
	switch cmd {
	case jdwp.CmdReferenceTypeMethods:
		m := &jdwp.RefTypeMethodsReply{Generic: true}
		if jdwp.Unmarshal(data, sizes, m) != nil {
			return nil, false
		}
		m.Generic, plain = false, m
	case jdwp.CmdReferenceTypeFields:
		m := &jdwp.RefTypeFieldsReply{Generic: true}
		if jdwp.Unmarshal(data, sizes, m) != nil {
			return nil, false
		}
		m.Generic, plain = false, m
	case jdwp.CmdReferenceTypeSignature:
		var m jdwp.RefTypeSignatureWithGenericReply
		if jdwp.Unmarshal(data, sizes, &m) != nil {
			return nil, false
		}
		plain = &jdwp.StringReply{Value: m.Signature}
	case jdwp.CmdMethodVariableTable:
		m := &jdwp.MethodVariableTableReply{Generic: true}
		if jdwp.Unmarshal(data, sizes, m) != nil {
			return nil, false
		}
		m.Generic, plain = false, m
	case jdwp.CmdVirtualMachineAllClasses:
		var m jdwp.VMAllClassesWithGenericReply
		if jdwp.Unmarshal(data, sizes, &m) != nil {
			return nil, false
		}
		plain = &jdwp.VMAllClassesReply{Classes: m.Classes}
	default:
		return nil, false
	}
	return jdwp.AppendReplyPacket(nil, id, plain, sizes), true
}
