package scache

import (
	"fmt"
	"strings"

	"github.com/jdwpscache/scache/jdwp"
)

// A Key names a command's reply in the cache: the command and its parameter
// bytes as the VM receives them, encoded with the session's id sizes. Two
// commands with the same key get the same reply while the reply's lifetime
// lasts. Its bytes are private to this file: use Command, Message and
// AppendCommand.
type Key string

// KeyOf returns the key of a command packet; ok is false if packet is not a
// command.
func KeyOf(packet []byte) (k Key, ok bool) {
	var h jdwp.Header
	if h.Parse(packet) != nil || h.IsReply() {
		return "", false
	}
	return keyOf(h, packet), true
}

// keyOf returns the key of a command packet whose header is h.
func keyOf(h jdwp.Header, packet []byte) Key {
	data := jdwp.Data(packet)
	b := make([]byte, 2, 2+len(data))
	b[0], b[1] = byte(h.CommandSet), h.Command
	return Key(append(b, data...))
}

// NewKey returns the key of a typed command.
func NewKey(m jdwp.CommandMessage, sizes jdwp.IDSizes) Key {
	var w jdwp.Writer
	return appendKey(&w, m, sizes)
}

// appendKey builds the key of m in w, a scratch writer.
func appendKey(w *jdwp.Writer, m jdwp.CommandMessage, sizes jdwp.IDSizes) Key {
	w.Reset(sizes)
	c := m.Command()
	w.Uint8(uint8(c.Set))
	w.Uint8(c.Cmd)
	m.Encode(w)
	return Key(w.Bytes())
}

// Command returns the key's command.
func (k Key) Command() jdwp.Command {
	if len(k) < 2 {
		return jdwp.Command{}
	}
	return jdwp.Command{Set: jdwp.CommandSet(k[0]), Cmd: k[1]}
}

// Params returns the key's parameter bytes (a copy), encoded with the
// session's id sizes: the command's data as the VM receives it.
func (k Key) Params() []byte {
	if len(k) < 2 {
		return nil
	}
	return []byte(k[2:])
}

// Message decodes the key's parameters as its command's typed message. It
// fails for a command jdwp has no typed message for, or parameters that do
// not decode exactly.
func (k Key) Message(sizes jdwp.IDSizes) (jdwp.CommandMessage, error) {
	m := jdwp.NewCommandMessage(k.Command())
	if m == nil || len(k) < 2 {
		return nil, fmt.Errorf("scache: no typed message for the key of %s", k.Command())
	}
	return m, jdwp.Unmarshal(k.Params(), sizes, m)
}

// Class returns the class a key of class metadata is about (whose unload or
// redefinition ends its reply's truth); ok is false for other keys.
func (k Key) Class(sizes jdwp.IDSizes) (jdwp.ReferenceTypeID, bool) {
	if spec, ok := keyable[k.Command()]; !ok || spec.life != lifetimeClass {
		return 0, false
	}
	m, err := k.Message(sizes)
	if err != nil {
		return 0, false
	}
	return classOf(m), true
}

// AppendCommand appends a command packet with the key's command and
// parameters and the given id to b.
func (k Key) AppendCommand(b []byte, id uint32) []byte {
	c := k.Command()
	b = jdwp.AppendHeader(b, jdwp.Header{Length: uint32(jdwp.HeaderSize + len(k) - 2), ID: id,
		CommandSet: c.Set, Command: c.Cmd})
	return append(b, k[2:]...)
}

// thread returns the thread a key of the ThreadReference set names (every
// command of that set names its thread first); ok is false for other keys.
// It reads the key's bytes in place: it runs for every state command a
// debugger asks at a stop.
func (k Key) thread(sizes jdwp.IDSizes) (t jdwp.ThreadID, ok bool) {
	n := int(sizes.ObjectID)
	if k.Command().Set != jdwp.SetThreadReference || n == 0 || n > 8 || len(k) < 2+n {
		return 0, false
	}
	for i := 2; i < 2+n; i++ {
		t = t<<8 | jdwp.ThreadID(k[i])
	}
	return t, true
}

// withThread returns a ThreadReference key with its thread replaced by t.
func (k Key) withThread(t jdwp.ThreadID, sizes jdwp.IDSizes) Key {
	n := int(sizes.ObjectID)
	var b strings.Builder
	b.Grow(len(k))
	b.WriteString(string(k[:2]))
	for i := n - 1; i >= 0; i-- {
		b.WriteByte(byte(t >> (8 * i)))
	}
	b.WriteString(string(k[2+n:]))
	return Key(b.String())
}

// A key of stoppedThread is a command of the ThreadReference set asked of
// the thread a stop stopped, whichever it is: every command of that set
// names its thread first, and the key keeps thread id 0 (never a thread's)
// in its place.
const stoppedThread jdwp.ThreadID = 0

// ofStoppedThread returns k as a key of stoppedThread if it is a thread's
// command about the stopped thread t, else k.
func (k Key) ofStoppedThread(t jdwp.ThreadID, sizes jdwp.IDSizes) Key {
	if kt, ok := k.thread(sizes); ok && kt == t && t != stoppedThread {
		return k.withThread(stoppedThread, sizes)
	}
	return k
}

// ofThread returns k about thread t if it is a key of stoppedThread, else k.
func (k Key) ofThread(t jdwp.ThreadID, sizes jdwp.IDSizes) Key {
	if kt, ok := k.thread(sizes); ok && kt == stoppedThread {
		return k.withThread(t, sizes)
	}
	return k
}

// idMask returns the mask of an id of size bytes.
func idMask(size int) uint64 {
	if size >= 8 || size <= 0 {
		return ^uint64(0)
	}
	return 1<<(8*uint(size)) - 1
}
