package scache_test

import (
	"encoding/binary"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

// renaming is the oracle's view of event request ids: a Set answered ahead
// may carry another id than the VM gave (request_ids.go), provided the
// debugger's ids and the VM's stay a one-to-one renaming, applied to the
// VM's events too.
type renaming struct {
	t          tb
	toDebugger map[int32]int32
	toVM       map[int32]int32
}

func newRenaming(t tb) *renaming {
	return &renaming{t: t, toDebugger: map[int32]int32{}, toVM: map[int32]int32{}}
}

// requestIDs checks a Set reply the debugger got against the VM's, and
// reports whether both gave an id (then they need not be equal).
func (n *renaming) requestIDs(want, got []byte) bool {
	wh, _ := jdwp.ParseHeader(want)
	gh, _ := jdwp.ParseHeader(got)
	if wh.ErrorCode != jdwp.ErrNone || gh.ErrorCode != jdwp.ErrNone || len(jdwp.Data(want)) != 4 || len(jdwp.Data(got)) != 4 {
		return false
	}
	vm, d := int32(binary.BigEndian.Uint32(jdwp.Data(want))), int32(binary.BigEndian.Uint32(jdwp.Data(got)))
	if old, ok := n.toDebugger[vm]; ok {
		require.Equal(n.t, old, d, "the VM's request %d has one name", vm)
	}
	if old, ok := n.toVM[d]; ok {
		require.Equal(n.t, old, vm, "the debugger's request %d is one of the VM's", d)
	}
	n.toDebugger[vm], n.toVM[d] = d, vm
	return true
}

// events returns an event packet of the VM as the debugger must see it.
func (n *renaming) events(packet []byte, sizes jdwp.IDSizes) []byte {
	offsets, err := jdwp.EventRequestOffsets(jdwp.Data(packet), sizes)
	require.NoError(n.t, err)
	out := append([]byte(nil), packet...)
	for _, off := range offsets {
		at := jdwp.HeaderSize + off
		if d, ok := n.toDebugger[int32(binary.BigEndian.Uint32(out[at:]))]; ok {
			binary.BigEndian.PutUint32(out[at:], uint32(d))
		}
	}
	return out
}
