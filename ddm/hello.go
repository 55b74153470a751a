package ddm

import "strconv"

// HelloRequest is the tool's HELO: its protocol version.
type HelloRequest struct{ Version uint32 }

// ChunkType implements Message.
func (*HelloRequest) ChunkType() Type    { return TypeHELO }
func (m *HelloRequest) encode(w *writer) { w.u4(m.Version) }
func (m *HelloRequest) decode(r *reader) { m.Version = r.Uint32() }

// Hello is the VM's answer to HELO. The document defines the first four
// fields; Android releases append the others, each present only if the bytes
// remain (Fields counts them), and Extra keeps whatever a newer release adds.
type Hello struct {
	Version uint32
	PID     uint32
	VMIdent string
	AppName string

	Fields           int    // how many of the optional fields below were present (0 to 6)
	UserID           uint32 // 1
	ABI              string // 2: "64-bit (arm64)"
	JVMFlags         string // 3: "CheckJNI=false"
	NativeDebuggable bool   // 4
	PackageName      string // 5
	Stage            uint32 // 6: the boot stage (Android 14 and later)
	Extra            []byte // unknown trailing bytes
}

// ChunkType implements Message.
func (*Hello) ChunkType() Type { return TypeHELO }

func (m *Hello) encode(w *writer) {
	w.u4(m.Version)
	w.u4(m.PID)
	w.u4(units(m.VMIdent))
	w.u4(units(m.AppName))
	w.chars(m.VMIdent)
	w.chars(m.AppName)
	if m.Fields >= 1 {
		w.u4(m.UserID)
	}
	if m.Fields >= 2 {
		w.string(m.ABI)
	}
	if m.Fields >= 3 {
		w.string(m.JVMFlags)
	}
	if m.Fields >= 4 {
		w.u1(boolByte(m.NativeDebuggable))
	}
	if m.Fields >= 5 {
		w.string(m.PackageName)
	}
	if m.Fields >= 6 {
		w.u4(m.Stage)
	}
	w.raw(m.Extra)
}

func (m *Hello) decode(r *reader) {
	m.Version, m.PID = r.Uint32(), r.Uint32()
	identLen, appLen := r.Uint32(), r.Uint32()
	m.VMIdent, m.AppName = r.utf16(identLen), r.utf16(appLen)
	m.Fields = 0
	if r.Err() != nil || r.Len() < 4 {
		m.Extra = r.Rest()
		return
	}
	m.UserID, m.Fields = r.Uint32(), 1
	for _, f := range []func() bool{
		func() bool { m.ABI = r.string(); return true },
		func() bool { m.JVMFlags = r.string(); return true },
		func() bool { m.NativeDebuggable = r.Uint8() != 0; return true },
		func() bool { m.PackageName = r.string(); return true },
		func() bool { m.Stage = r.Uint32(); return true },
	} {
		need := 4
		if m.Fields == 3 {
			need = 1
		}
		if r.Len() < need {
			break
		}
		f()
		if r.Err() != nil {
			return
		}
		m.Fields++
	}
	m.Extra = r.Rest()
}

// Features is the VM's answer to FEAT: the features it supports.
type Features struct{ Names []string }

// ChunkType implements Message.
func (*Features) ChunkType() Type { return TypeFEAT }

func (m *Features) encode(w *writer) {
	w.u4(uint32(len(m.Names)))
	for _, n := range m.Names {
		w.string(n)
	}
}

func (m *Features) decode(r *reader) {
	n := r.Count(4)
	m.Names = make([]string, 0, n)
	for i := 0; i < n && r.Err() == nil; i++ {
		m.Names = append(m.Names, r.string())
	}
}

// Wait says that the VM waits (reason 0: for a debugger).
type Wait struct{ Reason uint8 }

// ChunkType implements Message.
func (*Wait) ChunkType() Type    { return TypeWAIT }
func (m *Wait) encode(w *writer) { w.u1(m.Reason) }
func (m *Wait) decode(r *reader) { m.Reason = r.Uint8() }

// AppName says that the application's name changed (APNM). Newer releases
// append the user id and the package name, as in Hello.
type AppName struct {
	Name        string
	Fields      int // optional fields present: 1 user id, 2 package name
	UserID      uint32
	PackageName string
}

// ChunkType implements Message.
func (*AppName) ChunkType() Type { return TypeAPNM }

func (m *AppName) encode(w *writer) {
	w.string(m.Name)
	if m.Fields >= 1 {
		w.u4(m.UserID)
	}
	if m.Fields >= 2 {
		w.string(m.PackageName)
	}
}

func (m *AppName) decode(r *reader) {
	m.Name, m.Fields = r.string(), 0
	if r.Err() == nil && r.Len() >= 4 {
		m.UserID, m.Fields = r.Uint32(), 1
	}
	if r.Err() == nil && r.Len() >= 4 {
		m.PackageName, m.Fields = r.string(), 2
	}
}

// Stage says which boot stage the app reached (STAG).
type Stage struct{ Stage uint32 }

// ChunkType implements Message.
func (*Stage) ChunkType() Type    { return TypeSTAG }
func (m *Stage) encode(w *writer) { w.u4(m.Stage) }
func (m *Stage) decode(r *reader) { m.Stage = r.Uint32() }

// Fail is the reply to a request the VM could not serve.
type Fail struct {
	Code    uint32
	Message string
}

// ChunkType implements Message.
func (*Fail) ChunkType() Type    { return TypeFAIL }
func (m *Fail) encode(w *writer) { w.u4(m.Code); w.string(m.Message) }
func (m *Fail) decode(r *reader) { m.Code, m.Message = r.Uint32(), r.string() }

// Error makes a Fail an error.
func (m *Fail) Error() string {
	return "ddm: VM failed the request (" + strconv.FormatUint(uint64(m.Code), 10) + "): " + m.Message
}

// Exit makes the VM exit with a status.
type Exit struct{ Status uint32 }

// ChunkType implements Message.
func (*Exit) ChunkType() Type    { return TypeEXIT }
func (m *Exit) encode(w *writer) { w.u4(m.Status) }
func (m *Exit) decode(r *reader) { m.Status = r.Uint32() }

// Empty is the data of chunks that carry none: DBGD, HPGC, HPDS and SPSE
// requests, FEAT, MPRE, MPSE, REAQ, REAL, MPRQ and THST requests.
type Empty struct{ Type Type }

// ChunkType implements Message.
func (m *Empty) ChunkType() Type { return m.Type }
func (*Empty) encode(*writer)    {}
func (*Empty) decode(*reader)    {}
