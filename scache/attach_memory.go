package scache

import (
	"errors"
	"sync"

	"github.com/jdwpscache/scache/scache/internal/option"
)

// maxRemembered bounds the classes an AttachMemory keeps.
const maxRemembered = 256

// An AttachMemory remembers, from one debugging session to the next, the
// classes whose methods the debugger listed itself, by signature: an IDE
// attaching lists them to set its breakpoints, and a user who attaches
// again (the program restarted, the debugger reconnected) sets the same
// ones. At the next session, once the debugger's class list
// (VirtualMachine.AllClasses) maps those signatures to the new VM's class
// ids, their methods, source names and line tables go out before the
// debugger asks (FamilyPrepare). A Proxy gives one to its sessions; give
// one to the Speculators of sessions that follow each other, with
// WithAttachMemory. It keeps the last 256 classes listed, and is safe for
// concurrent use.
type AttachMemory struct {
	mu   sync.Mutex
	sigs []string // oldest first
	has  map[string]bool
}

// NewAttachMemory returns an empty AttachMemory.
func NewAttachMemory() *AttachMemory {
	return &AttachMemory{has: make(map[string]bool)}
}

// remember notes that the debugger listed the methods of the class of
// signature sig.
func (m *AttachMemory) remember(sig string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.has[sig] {
		return
	}
	if len(m.sigs) == maxRemembered {
		delete(m.has, m.sigs[0])
		m.sigs = m.sigs[1:]
	}
	m.sigs = append(m.sigs, sig)
	m.has[sig] = true
}

// signatures returns the signatures remembered, oldest first.
func (m *AttachMemory) signatures() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.sigs...)
}

// Len returns how many classes it remembers.
func (m *AttachMemory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sigs)
}

// WithAttachMemory makes the Speculator remember in m the classes whose
// methods the debugger lists, and ask them ahead from what m remembers of
// the sessions before (see AttachMemory). A Proxy gives its sessions one of
// its own unless given this option.
func WithAttachMemory(m *AttachMemory) Option {
	return option.New("WithAttachMemory", option.All, func(st *option.Settings) error {
		if m == nil {
			return errors.New("a nil AttachMemory")
		}
		st.AttachMemory = m
		return nil
	})
}
