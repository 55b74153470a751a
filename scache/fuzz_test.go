package scache_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
)

var fuzzCommands = []jdwp.Command{
	jdwp.CmdThreadReferenceFrames, jdwp.CmdVirtualMachineIDSizes, jdwp.CmdVirtualMachineAllClasses,
	jdwp.CmdVirtualMachineAllClassesWithGeneric, jdwp.CmdReferenceTypeSourceFile, jdwp.CmdMethodLineTable,
	jdwp.CmdClassTypeSuperclass, jdwp.CmdVirtualMachineRedefineClasses, jdwp.CmdVirtualMachineDispose,
	jdwp.CmdVirtualMachineVersion, jdwp.CmdReferenceTypeMethodsWithGeneric, {Set: 0xC7, Cmd: 1},
	jdwp.CmdEventRequestClear, jdwp.CmdEventRequestSet,
}

// conservation checks, call by call, that every packet the debugger or the VM
// sent is forwarded, answered or held exactly once.
type conservation struct {
	t       *testing.T
	s       *scache.Speculator
	issued  map[uint32]bool // synthetic commands sent and not yet answered
	organic []uint32        // ids of the debugger's commands
	ahead   map[uint32]int  // commands answered ahead whose reply the VM owes
	sets    map[uint32]int  // EventRequest.Set commands forwarded whose reply the VM owes
	held    int64
}

// same reports whether a and b are the same packet (not just equal bytes).
func same(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	return &a[0] == &b[0]
}

// renamed reports whether a is a copy of b whose data may differ: a
// command or a VM packet whose event request ids were renamed.
func renamed(a, b []byte) bool {
	return !same(a, b) && len(a) == len(b) && len(a) >= jdwp.HeaderSize &&
		string(a[:jdwp.HeaderSize]) == string(b[:jdwp.HeaderSize])
}

func cmdOf(p []byte) (jdwp.Header, bool) {
	h, err := jdwp.ParseHeader(p)
	return h, err == nil && !h.IsReply()
}

// newConservation returns a conservation check around a Speculator that
// bounds what it keeps tightly (3 in flight, a cache of 2000 bytes) and
// answers Clears ahead, as the fuzz targets drive it.
func newConservation(t *testing.T) *conservation {
	s := newSpeculator(t, scache.WithMaxInFlight(3), scache.WithCacheBytes(2000), scache.WithAnswerAhead(true))
	return &conservation{t: t, s: s, issued: map[uint32]bool{}, ahead: map[uint32]int{}, sets: map[uint32]int{}}
}

// answerable returns the ids a VM's reply may carry: the synthetic
// commands unanswered, in order, then every command of the debugger's; the
// same input picks the same id in every run.
func (c *conservation) answerable() []uint32 {
	ids := slices.Sorted(maps.Keys(c.issued))
	return append(ids, c.organic...)
}

func (c *conservation) up(p []byte) {
	r := c.s.OnUpstream(p)
	h, isCmd := cmdOf(p)
	forwarded, released := 0, 0
	for _, q := range r.Edict.Upstream {
		switch id := jdwp.PacketID(q); {
		case same(q, p) || (isCmd && h.Cmd() == jdwp.CmdEventRequestClear && renamed(q, p)):
			forwarded++
		case scache.IsSyntheticID(id) && !c.issued[id]:
			c.issued[id] = true // speculation sent behind the command (values after SetValues)
		default:
			released++
		}
	}
	for _, q := range r.Edict.Downstream {
		if c.issued[jdwp.PacketID(q)] {
			c.t.Fatalf("a reply with synthetic id %#x reached the debugger", jdwp.PacketID(q))
		}
	}
	held := c.s.Stats().Held
	newlyHeld := held - c.held + int64(released)
	c.held = held
	if forwarded == 1 && len(r.Edict.Downstream) == 1 && newlyHeld == 0 {
		// Answered ahead: forwarded, and answered with a success: empty, or
		// a Set's request id.
		size := uint32(jdwp.HeaderSize)
		if h.Cmd() == jdwp.CmdEventRequestSet {
			size += 4
		}
		if rh, err := jdwp.ParseHeader(r.Edict.Downstream[0]); err != nil || !rh.IsReply() ||
			rh.ID != jdwp.PacketID(p) || rh.ErrorCode != jdwp.ErrNone || rh.Length != size {
			c.t.Fatalf("a command forwarded and answered, not with its success: %x", r.Edict.Downstream[0])
		}
		if r.Outcome != scache.AnsweredAhead {
			c.t.Fatalf("the Response says %v, the edict shows %v", r.Outcome, scache.AnsweredAhead)
		}
		c.ahead[jdwp.PacketID(p)]++
		return
	}
	if forwarded == 1 && isCmd && h.Cmd() == jdwp.CmdEventRequestSet {
		c.sets[h.ID]++
	}
	if n := forwarded + len(r.Edict.Downstream) + int(newlyHeld); n != 1 {
		c.t.Fatalf("upstream packet forwarded %d, answered %d, held %d times", forwarded, len(r.Edict.Downstream), newlyHeld)
	}
	want := scache.Held
	if forwarded == 1 {
		want = scache.Forwarded
	} else if len(r.Edict.Downstream) == 1 {
		want = scache.Answered
	}
	if r.Outcome != want {
		c.t.Fatalf("the Response says %v, the edict shows %v", r.Outcome, want)
	}
}

func (c *conservation) down(p []byte) {
	wasSynthetic, mayRename := false, false
	h, err := jdwp.ParseHeader(p)
	if err == nil && h.IsReply() && c.ahead[h.ID] > 0 {
		wasSynthetic = true // the reply to a command answered ahead is absorbed as well
		c.ahead[h.ID]--
	} else if err == nil && h.IsReply() && c.issued[h.ID] {
		wasSynthetic = true
		delete(c.issued, h.ID)
	} else if err == nil && h.IsReply() && c.sets[h.ID] > 0 {
		mayRename = true // a Set's reply: its request id may be renamed
		c.sets[h.ID]--
	} else if err == nil && !h.IsReply() {
		mayRename = true // events: their request ids may be renamed
	}
	r := c.s.OnDownstream(p)
	forwarded, answered := 0, 0
	for _, q := range r.Edict.Downstream {
		if same(q, p) || (mayRename && renamed(q, p) && forwarded == 0) {
			forwarded++
			continue
		}
		answered++
		if c.issued[jdwp.PacketID(q)] || scache.IsSyntheticID(jdwp.PacketID(q)) {
			c.t.Fatalf("a synthetic id %#x reached the debugger", jdwp.PacketID(q))
		}
	}
	if wasSynthetic == (forwarded == 1) || forwarded > 1 {
		c.t.Fatalf("downstream packet forwarded %d times (synthetic reply: %v)", forwarded, wasSynthetic)
	}
	if want := map[bool]scache.Outcome{true: scache.Absorbed, false: scache.Forwarded}[wasSynthetic]; r.Outcome != want {
		c.t.Fatalf("the Response says %v, the edict shows %v", r.Outcome, want)
	}
	released := 0
	for _, q := range r.Edict.Upstream {
		if id := jdwp.PacketID(q); scache.IsSyntheticID(id) {
			c.issued[id] = true
		} else {
			released++
		}
	}
	held := c.s.Stats().Held
	if c.held-held != int64(answered+released) {
		c.t.Fatalf("held went from %d to %d but %d answered and %d released", c.held, held, answered, released)
	}
	c.held = held
}

// FuzzSpeculator feeds arbitrary packet sequences in both directions: the
// Speculator never panics and every packet is forwarded, answered or held
// exactly once.
func FuzzSpeculator(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		c := newConservation(t)
		nextID := uint32(1)
		if len(data)%2 == 1 { // a session its transport started with OnHandshake
			for _, q := range c.s.OnHandshake().Edict.Upstream {
				c.issued[jdwp.PacketID(q)] = true
			}
		}
		for len(data) > 0 {
			op := data[0]
			data = data[1:]
			n := min(int(op>>3)*2, len(data))
			chunk := data[:n]
			data = data[n:]
			pick := byte(0)
			if len(chunk) > 0 {
				pick, chunk = chunk[0], chunk[1:]
			}
			switch op & 7 {
			case 0:
				c.up(append([]byte(nil), chunk...))
			case 1:
				c.down(append([]byte(nil), chunk...))
			case 2, 3, 7:
				cmd := fuzzCommands[int(pick)%len(fuzzCommands)]
				id := nextID
				if op&7 == 7 && len(c.organic) > 0 {
					id = c.organic[int(pick)%len(c.organic)] // a reused id
				} else {
					nextID++
				}
				c.organic = append(c.organic, id)
				c.up(jdwp.AppendCommand(nil, id, cmd, chunk))
			case 4, 5:
				ids := c.answerable()
				if len(ids) == 0 {
					continue
				}
				code := jdwp.ErrNone
				if pick&0x80 != 0 {
					code = jdwp.ErrAbsentInformation
				}
				c.down(jdwp.AppendReply(nil, ids[int(pick)%len(ids)], code, chunk))
			case 6:
				c.down(jdwp.AppendCommand(nil, 0x10000000+uint32(pick), jdwp.CmdEventComposite, chunk))
			}
		}
		_ = c.s.Close()
	})
}
