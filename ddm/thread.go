package ddm

// ThreadNotify turns thread creation and death notifications on or off
// (THEN); the VM answers with THCR for every live thread.
type ThreadNotify struct{ Enable bool }

// ChunkType implements Message.
func (*ThreadNotify) ChunkType() Type    { return TypeTHEN }
func (m *ThreadNotify) encode(w *writer) { w.u1(boolByte(m.Enable)) }
func (m *ThreadNotify) decode(r *reader) { m.Enable = r.Uint8() != 0 }

// ThreadCreated announces a thread (THCR).
type ThreadCreated struct {
	ID   uint32
	Name string
}

// ChunkType implements Message.
func (*ThreadCreated) ChunkType() Type    { return TypeTHCR }
func (m *ThreadCreated) encode(w *writer) { w.u4(m.ID); w.string(m.Name) }
func (m *ThreadCreated) decode(r *reader) { m.ID, m.Name = r.Uint32(), r.string() }

// ThreadRenamed announces a thread's new name (THNM), which ART and Dalvik
// send when a thread with notifications on renames itself. Its layout is
// THCR's.
type ThreadRenamed struct {
	ID   uint32
	Name string
}

// ChunkType implements Message.
func (*ThreadRenamed) ChunkType() Type    { return TypeTHNM }
func (m *ThreadRenamed) encode(w *writer) { w.u4(m.ID); w.string(m.Name) }
func (m *ThreadRenamed) decode(r *reader) { m.ID, m.Name = r.Uint32(), r.string() }

// ThreadDied announces a thread's end (THDE).
type ThreadDied struct{ ID uint32 }

// ChunkType implements Message.
func (*ThreadDied) ChunkType() Type    { return TypeTHDE }
func (m *ThreadDied) encode(w *writer) { w.u4(m.ID) }
func (m *ThreadDied) decode(r *reader) { m.ID = r.Uint32() }

// ThreadStatusInterval asks for thread status every Millis milliseconds (0
// stops), as the document describes the tool's THST.
type ThreadStatusInterval struct{ Millis uint32 }

// ChunkType implements Message.
func (*ThreadStatusInterval) ChunkType() Type    { return TypeTHST }
func (m *ThreadStatusInterval) encode(w *writer) { w.u4(m.Millis) }
func (m *ThreadStatusInterval) decode(r *reader) { m.Millis = r.Uint32() }

// Thread states of THST.
const (
	StateRunning      = 1
	StateSleeping     = 2
	StateMonitor      = 3
	StateWaiting      = 4
	StateInitializing = 5
	StateStarting     = 6
	StateNative       = 7
	StateVMWait       = 8
)

// ThreadInfo is one thread of a THST reply as current VMs send it.
type ThreadInfo struct {
	ID     uint32
	Status uint8
	TID    uint32 // the system thread id
	UTime  uint32 // user time, in clock ticks
	STime  uint32 // system time, in clock ticks
	Daemon bool
}

// threadInfoSize is the entry size of the self-describing THST form.
const threadInfoSize = 18

// ThreadStatus is a THST reply in the self-describing form of current VMs:
// u1 header length, u1 bytes per entry, u2 count, then the entries. Longer
// headers and entries than this package knows are read past.
type ThreadStatus struct{ Threads []ThreadInfo }

// ChunkType implements Message.
func (*ThreadStatus) ChunkType() Type { return TypeTHST }

func (m *ThreadStatus) encode(w *writer) {
	w.u1(4)
	w.u1(threadInfoSize)
	w.u2(uint16(len(m.Threads)))
	for _, t := range m.Threads {
		w.u4(t.ID)
		w.u1(t.Status)
		w.u4(t.TID)
		w.u4(t.UTime)
		w.u4(t.STime)
		w.u1(boolByte(t.Daemon))
	}
}

func (m *ThreadStatus) decode(r *reader) {
	hdr, entry, n := int(r.Uint8()), int(r.Uint8()), int(r.Uint16())
	if r.Err() != nil {
		return
	}
	if hdr < 4 || entry < threadInfoSize {
		r.Bytes(r.Len() + 1) // an impossible layout: fail
		return
	}
	r.Bytes(hdr - 4)
	if n*entry > r.Len() {
		r.Bytes(r.Len() + 1)
		return
	}
	m.Threads = make([]ThreadInfo, n)
	for i := range m.Threads {
		t := &m.Threads[i]
		t.ID, t.Status, t.TID, t.UTime, t.STime, t.Daemon = r.Uint32(), r.Uint8(), r.Uint32(), r.Uint32(), r.Uint32(), r.Uint8() != 0
		r.Bytes(entry - threadInfoSize)
	}
}

// LegacyThreadInfo is one thread of the document's THST form.
type LegacyThreadInfo struct {
	ID        uint32
	State     uint8
	Suspended bool
}

// LegacyThreadStatus is the THST reply as the 2007 document describes it: u4
// count, then id, state and suspended per thread. Decode it only when asked
// to: current VMs send ThreadStatus.
type LegacyThreadStatus struct{ Threads []LegacyThreadInfo }

// ChunkType implements Message.
func (*LegacyThreadStatus) ChunkType() Type { return TypeTHST }

func (m *LegacyThreadStatus) encode(w *writer) {
	w.u4(uint32(len(m.Threads)))
	for _, t := range m.Threads {
		w.u4(t.ID)
		w.u1(t.State)
		w.u1(boolByte(t.Suspended))
	}
}

func (m *LegacyThreadStatus) decode(r *reader) {
	m.Threads = make([]LegacyThreadInfo, r.Count(6))
	for i := range m.Threads {
		m.Threads[i] = LegacyThreadInfo{ID: r.Uint32(), State: r.Uint8(), Suspended: r.Uint8() != 0}
	}
}

// StackRequest asks for a thread's stack (STKL).
type StackRequest struct{ ThreadID uint32 }

// ChunkType implements Message.
func (*StackRequest) ChunkType() Type    { return TypeSTKL }
func (m *StackRequest) encode(w *writer) { w.u4(m.ThreadID) }
func (m *StackRequest) decode(r *reader) { m.ThreadID = r.Uint32() }

// StackElement is one frame of a Stack.
type StackElement struct {
	Class, Method, File string // File is empty when unknown
	Line                int32  // -2 in a native method
}

// Stack is a thread's stack (the STKL reply).
type Stack struct {
	Flags    uint32
	ThreadID uint32
	Frames   []StackElement
}

// ChunkType implements Message.
func (*Stack) ChunkType() Type { return TypeSTKL }

func (m *Stack) encode(w *writer) {
	w.u4(m.Flags)
	w.u4(m.ThreadID)
	w.u4(uint32(len(m.Frames)))
	for _, f := range m.Frames {
		w.string(f.Class)
		w.string(f.Method)
		w.string(f.File)
		w.u4(uint32(f.Line))
	}
}

func (m *Stack) decode(r *reader) {
	m.Flags, m.ThreadID = r.Uint32(), r.Uint32()
	m.Frames = make([]StackElement, r.Count(16))
	for i := range m.Frames {
		m.Frames[i] = StackElement{Class: r.string(), Method: r.string(), File: r.string(), Line: r.Int32()}
	}
}
