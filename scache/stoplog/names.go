package stoplog

import (
	"fmt"
	"strings"

	"github.com/jdwpscache/scache/jdwp"
)

// Stops in source terms. A debugger names what it shows: at a stop it asks
// the class's signature, its methods and the method's line table (JDI
// resolves every Location to a line; jdb prints "Loop.step(), line=6"), and
// the thread's name. A Log reads those replies as they pass and names
// each stop as Class.method:line in its thread, as the user knows it, with
// no command of its own.

// maxNamed bounds each table of names a Log keeps: a session that loads
// more classes than that names the first ones it met.
const maxNamed = 4096

// methodRef names a method by its class and id (method ids are unique only
// within their class).
type methodRef struct {
	class  jdwp.ReferenceTypeID
	method jdwp.MethodID
}

// sourceNames holds what the debugger learned of names: class signatures,
// method names, line tables and thread names.
type sourceNames struct {
	asks    map[uint32]jdwp.CommandMessage // the debugger's naming commands awaiting their replies
	classes map[jdwp.ReferenceTypeID]string
	methods map[methodRef]string
	lines   map[methodRef][]jdwp.LineEntry
	threads map[jdwp.ThreadID]string
}

// names reports whether the debugger's command cmd asks a name.
func names(cmd jdwp.Command) bool {
	switch cmd {
	case jdwp.CmdReferenceTypeSignature, jdwp.CmdReferenceTypeSignatureWithGeneric,
		jdwp.CmdReferenceTypeMethods, jdwp.CmdReferenceTypeMethodsWithGeneric,
		jdwp.CmdMethodLineTable, jdwp.CmdThreadReferenceName:
		return true
	}
	return false
}

// command notes the debugger's naming command with id, whose parameters
// are data.
func (n *sourceNames) command(id uint32, cmd jdwp.Command, data []byte, sizes jdwp.IDSizes) {
	if !names(cmd) || len(n.asks) >= maxTimed {
		return
	}
	m := jdwp.NewCommandMessage(cmd)
	if m == nil || jdwp.Unmarshal(data, sizes, m) != nil {
		return
	}
	if n.asks == nil {
		n.asks = make(map[uint32]jdwp.CommandMessage)
	}
	n.asks[id] = m
}

// reply learns the names in the reply with id to a naming command.
func (n *sourceNames) reply(id uint32, errorCode jdwp.ErrorCode, data []byte, sizes jdwp.IDSizes) {
	m, ok := n.asks[id]
	if !ok {
		return
	}
	delete(n.asks, id)
	if errorCode != jdwp.ErrNone {
		return
	}
	switch m := m.(type) {
	case *jdwp.RefTypeSignatureCommand:
		var r jdwp.StringReply
		if jdwp.Unmarshal(data, sizes, &r) == nil {
			n.class(m.RefType, r.Value)
		}
	case *jdwp.RefTypeSignatureWithGenericCommand:
		var r jdwp.RefTypeSignatureWithGenericReply
		if jdwp.Unmarshal(data, sizes, &r) == nil {
			n.class(m.RefType, r.Signature)
		}
	case *jdwp.RefTypeMethodsCommand:
		n.methodsOf(m.RefType, false, data, sizes)
	case *jdwp.RefTypeMethodsWithGenericCommand:
		n.methodsOf(m.RefType, true, data, sizes)
	case *jdwp.MethodLineTableCommand:
		var r jdwp.MethodLineTableReply
		ref := methodRef{m.RefType, m.Method}
		if _, known := n.lines[ref]; (known || len(n.lines) < maxNamed) && jdwp.Unmarshal(data, sizes, &r) == nil {
			if n.lines == nil {
				n.lines = make(map[methodRef][]jdwp.LineEntry)
			}
			n.lines[ref] = r.Lines
		}
	case *jdwp.ThreadNameCommand:
		var r jdwp.StringReply
		if jdwp.Unmarshal(data, sizes, &r) == nil {
			if _, known := n.threads[m.Thread]; known || len(n.threads) < maxNamed {
				if n.threads == nil {
					n.threads = make(map[jdwp.ThreadID]string)
				}
				n.threads[m.Thread] = r.Value
			}
		}
	}
}

// class learns a class's signature (from a reply or a ClassPrepare event).
func (n *sourceNames) class(id jdwp.ReferenceTypeID, signature string) {
	if _, known := n.classes[id]; !known && len(n.classes) >= maxNamed {
		return
	}
	if n.classes == nil {
		n.classes = make(map[jdwp.ReferenceTypeID]string)
	}
	n.classes[id] = signature
}

// methodsOf learns the method names of a Methods reply.
func (n *sourceNames) methodsOf(class jdwp.ReferenceTypeID, generic bool, data []byte, sizes jdwp.IDSizes) {
	r := jdwp.RefTypeMethodsReply{Generic: generic}
	if jdwp.Unmarshal(data, sizes, &r) != nil {
		return
	}
	if n.methods == nil {
		n.methods = make(map[methodRef]string)
	}
	for _, x := range r.Methods {
		ref := methodRef{class, x.Method}
		if _, known := n.methods[ref]; known || len(n.methods) < maxNamed {
			n.methods[ref] = x.Name
		}
	}
}

// where names loc as Class.method:line, as far as the names are known:
// ids stand in for what is not.
func (n *sourceNames) where(loc jdwp.Location) string {
	class := fmt.Sprintf("class %#x", uint64(loc.Class))
	if sig, ok := n.classes[loc.Class]; ok {
		class = ClassName(sig)
	}
	ref := methodRef{loc.Class, loc.Method}
	method, ok := n.methods[ref]
	if !ok {
		return fmt.Sprintf("%s method %#x index %d", class, uint64(loc.Method), loc.Index)
	}
	if line, ok := lineAt(n.lines[ref], loc.Index); ok {
		return fmt.Sprintf("%s.%s:%d", class, method, line)
	}
	return fmt.Sprintf("%s.%s index %d", class, method, loc.Index)
}

// lineAt returns the line of the code index in a line table: the line of
// the last entry that starts at or before it.
func lineAt(table []jdwp.LineEntry, index uint64) (int32, bool) {
	line, found, at := int32(0), false, uint64(0)
	for _, e := range table {
		if e.CodeIndex <= index && (!found || e.CodeIndex >= at) {
			line, found, at = e.LineNumber, true, e.CodeIndex
		}
	}
	return line, found
}

// primitiveNames are the Java names of the primitive types' signatures.
var primitiveNames = map[string]string{"Z": "boolean", "B": "byte", "C": "char", "S": "short", "I": "int",
	"J": "long", "F": "float", "D": "double", "V": "void"}

// ClassName returns the Java name of a class's JNI signature
// ("Lcom/example/Loop;" is com.example.Loop, "[I" is int[]); a signature it
// does not know comes back as it is.
func ClassName(signature string) string {
	dims := 0
	for strings.HasPrefix(signature[dims:], "[") {
		dims++
	}
	base := signature[dims:]
	name, ok := primitiveNames[base]
	if !ok {
		if !strings.HasPrefix(base, "L") || !strings.HasSuffix(base, ";") {
			return signature
		}
		name = strings.ReplaceAll(base[1:len(base)-1], "/", ".")
	}
	return name + strings.Repeat("[]", dims)
}
