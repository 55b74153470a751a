package scache_test

import (
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
	"slices"
)

// harness connects a scripted debugger, a Speculator and a model VM that
// serves its queue one command at a time, as a real VM does.
type harness struct {
	t          tb
	s          *scache.Speculator
	vm         *scachetest.ModelVM
	vmQueue    [][]byte // commands the VM has received and not answered yet
	toDebugger [][]byte // every packet the debugger received, in order
	toVM       [][]byte // every packet the VM received, in order
	nextID     uint32
}

func newHarness(t tb, vm *scachetest.ModelVM, opts ...scache.Option) *harness {
	return &harness{t: t, s: newSpeculator(t, opts...), vm: vm, nextID: 1}
}

// newSpeculator returns a Speculator with valid options.
func newSpeculator(t require.TestingT, opts ...scache.Option) *scache.Speculator {
	s, err := scache.New(opts...)
	require.NoError(t, err)
	return s
}

// tb is what the harness needs of *testing.T and *rapid.T.
type tb interface {
	require.TestingT
	Helper()
}

func clone(p []byte) []byte { return append([]byte(nil), p...) }

func (h *harness) apply(r scache.Response) {
	for _, p := range r.Edict.Upstream {
		h.vmQueue = append(h.vmQueue, clone(p))
		h.toVM = append(h.toVM, clone(p))
	}
	for _, p := range r.Edict.Downstream {
		h.toDebugger = append(h.toDebugger, clone(p))
	}
}

// send sends a debugger command and returns its id.
func (h *harness) send(cmd jdwp.CommandMessage) uint32 {
	id := h.nextID
	h.nextID++
	h.apply(h.s.OnUpstream(jdwp.AppendCommandPacket(nil, id, cmd, h.vm.Sizes)))
	return id
}

// sendRaw sends a debugger packet as it is.
func (h *harness) sendRaw(p []byte) scache.Response {
	r := h.s.OnUpstream(p)
	h.apply(r)
	return r
}

// step lets the VM answer the oldest queued command; false when the queue is empty.
func (h *harness) step() bool {
	if len(h.vmQueue) == 0 {
		return false
	}
	cmd := h.vmQueue[0]
	h.vmQueue = h.vmQueue[1:]
	if reply := h.vm.Handle(cmd); reply != nil {
		h.apply(h.s.OnDownstream(reply))
	}
	return true
}

func (h *harness) drain() {
	for h.step() {
	}
}

// reachedVM counts the packets the VM received with one of the ids.
func (h *harness) reachedVM(ids ...uint32) int {
	n := 0
	for _, p := range h.toVM {
		if slices.Contains(ids, jdwp.PacketID(p)) {
			n++
		}
	}
	return n
}

// event delivers a VM command (an event) through the Speculator.
func (h *harness) event(p []byte) { h.apply(h.s.OnDownstream(p)) }

// syntheticSent returns the commands of the synthetic packets the VM
// received, in order.
func (h *harness) syntheticSent() []jdwp.Command {
	var cmds []jdwp.Command
	for _, p := range h.toVM {
		ph, err := jdwp.ParseHeader(p)
		require.NoError(h.t, err)
		if !ph.IsReply() && scache.IsSyntheticID(ph.ID) {
			cmds = append(cmds, ph.Cmd())
		}
	}
	return cmds
}

// replyTo returns the debugger's reply to id, failing unless exactly one arrived.
func (h *harness) replyTo(id uint32) []byte {
	h.t.Helper()
	var found []byte
	n := 0
	for _, p := range h.toDebugger {
		ph, err := jdwp.ParseHeader(p)
		require.NoError(h.t, err)
		if ph.IsReply() && ph.ID == id {
			found = p
			n++
		}
	}
	require.Equal(h.t, 1, n, "replies to id %d", id)
	return found
}

// vmCommands counts the commands of a kind the VM received, and how many of them were synthetic.
func (h *harness) vmCommands(cmd jdwp.Command) (total, synthetic int) {
	for _, p := range h.toVM {
		ph, _ := jdwp.ParseHeader(p)
		if !ph.IsReply() && ph.Cmd() == cmd {
			total++
			if scache.IsSyntheticID(ph.ID) {
				synthetic++
			}
		}
	}
	return
}
