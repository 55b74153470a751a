package scache

import "github.com/jdwpscache/scache/jdwp"

// Reading the cache by command. The families decide what to ask from what
// the cache already holds: a method's modifiers and variable table, a
// class's fields and superclass, an object's type. A lookup reads a cached
// reply by its typed command, without touching the cache's recency (a
// read of speculation's own is not a use), and decodes it; it changes
// nothing.

// A lookup reads the cache by command (Speculator.lookup).
type lookup struct {
	cache *replyCache
	keys  *jdwp.Writer  // the Speculator's key scratch
	sizes *jdwp.IDSizes // the session's id sizes, as they change
}

// data returns the cached reply to a command, without touching the
// cache's recency: its error code and data. ok is false when not cached.
func (c lookup) data(m jdwp.CommandMessage) (jdwp.ErrorCode, []byte, bool) {
	e, ok := c.cache.lru.Peek(appendKey(c.keys, m, *c.sizes))
	if !ok {
		return 0, nil, false
	}
	h, err := jdwp.ParseHeader(e.reply)
	if err != nil {
		return 0, nil, false
	}
	return h.ErrorCode, jdwp.Data(e.reply), true
}

// reply decodes into reply the cached successful reply to a command,
// without touching the cache's recency. It reports false when none is
// cached, the VM answered an error, or the reply does not decode.
func (c lookup) reply(m jdwp.CommandMessage, reply jdwp.Message) bool {
	code, data, ok := c.data(m)
	return ok && code == jdwp.ErrNone && jdwp.Unmarshal(data, *c.sizes, reply) == nil
}

// methodIsStatic reads a method's modifiers from a cached MethodsWithGeneric
// reply. known is false when no such reply is cached.
func (c lookup) methodIsStatic(class jdwp.ReferenceTypeID, method jdwp.MethodID) (static, known bool) {
	code, data, ok := c.data(&jdwp.RefTypeMethodsWithGenericCommand{RefType: class})
	if !ok {
		return false, false
	}
	if code != jdwp.ErrNone {
		return true, true // nothing to go on: do not guess
	}
	m := jdwp.RefTypeMethodsReply{Generic: true}
	if jdwp.Unmarshal(data, *c.sizes, &m) != nil {
		return true, true
	}
	for _, x := range m.Methods {
		if x.Method == method {
			return x.ModBits&jdwp.ModStatic != 0, true
		}
	}
	return true, true
}

// methodModifiers returns a method's modifiers from a cached successful
// MethodsWithGeneric or Methods reply of its class that lists it.
func (c lookup) methodModifiers(class jdwp.ReferenceTypeID, method jdwp.MethodID) (int32, bool) {
	withGeneric := jdwp.RefTypeMethodsReply{Generic: true}
	var plain jdwp.RefTypeMethodsReply
	for _, r := range []struct {
		cmd   jdwp.CommandMessage
		reply *jdwp.RefTypeMethodsReply
	}{{&jdwp.RefTypeMethodsWithGenericCommand{RefType: class}, &withGeneric}, {&jdwp.RefTypeMethodsCommand{RefType: class}, &plain}} {
		if !c.reply(r.cmd, r.reply) {
			continue
		}
		for _, x := range r.reply.Methods {
			if x.Method == method {
				return x.ModBits, true
			}
		}
	}
	return 0, false
}

// variableTable returns a method's cached variable table. found is false for
// an error reply (no variable information); known is false when nothing is cached.
func (c lookup) variableTable(class jdwp.ReferenceTypeID, method jdwp.MethodID) (vt jdwp.MethodVariableTableReply, found, known bool) {
	code, data, ok := c.data(&jdwp.MethodVariableTableWithGenericCommand{RefType: class, Method: method})
	if !ok {
		return vt, false, false
	}
	vt.Generic = true
	if code != jdwp.ErrNone || jdwp.Unmarshal(data, *c.sizes, &vt) != nil {
		return vt, false, true
	}
	return vt, true, true
}

// fields returns the fields a class declares, from a cached
// FieldsWithGeneric or Fields reply.
func (c lookup) fields(class jdwp.ReferenceTypeID) ([]jdwp.FieldInfo, bool) {
	withGeneric := jdwp.RefTypeFieldsReply{Generic: true}
	if c.reply(&jdwp.RefTypeFieldsWithGenericCommand{RefType: class}, &withGeneric) {
		return withGeneric.Fields, true
	}
	var plain jdwp.RefTypeFieldsReply
	if c.reply(&jdwp.RefTypeFieldsCommand{RefType: class}, &plain) {
		return plain.Fields, true
	}
	return nil, false
}

// superclass returns a class's superclass (0 for Object) from a
// cached reply.
func (c lookup) superclass(class jdwp.ReferenceTypeID) (jdwp.ReferenceTypeID, bool) {
	var m jdwp.ClassTypeSuperclassReply
	if !c.reply(&jdwp.ClassTypeSuperclassCommand{RefType: class}, &m) {
		return 0, false
	}
	return m.Superclass, true
}

// objectType returns the type of an object from a cached reply.
func (c lookup) objectType(obj jdwp.ObjectID) (jdwp.ReferenceTypeID, bool) {
	var m jdwp.ObjectRefReferenceTypeReply
	if !c.reply(&jdwp.ObjectRefReferenceTypeCommand{Object: obj}, &m) {
		return 0, false
	}
	return m.TypeID, true
}

// arrayLength returns the length of an array from a cached reply.
func (c lookup) arrayLength(array jdwp.ObjectID) (int32, bool) {
	var m jdwp.IntReply
	if !c.reply(&jdwp.ArrayRefLengthCommand{Array: array}, &m) {
		return 0, false
	}
	return m.Value, true
}
