package share

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// world is a session's mux with a model VM serving its queue one command at
// a time, and a shadow VM answering each client's commands when sent.
type world struct {
	t       *rapid.T
	m       *mux
	vm      *scachetest.ModelVM
	shadow  *scachetest.ModelVM
	queue   [][]byte
	got     map[ClientID][][]byte
	nextID  map[ClientID]uint32
	want    map[ClientID]map[uint32][]byte
	owns    map[ClientID][]int32        // request ids each client has in force, in order
	ever    map[ClientID]map[int32]bool // request ids each client ever created
	classes []*scachetest.ModelClass
}

func newWorld(t *rapid.T, clients int, opts ...scache.Option) *world {
	vm := scachetest.NewModelVM(jdwp.DefaultIDSizes)
	spec, err := scache.New(opts...)
	require.NoError(t, err)
	w := &world{t: t, m: newMux(spec), vm: vm, got: map[ClientID][][]byte{},
		nextID: map[ClientID]uint32{}, want: map[ClientID]map[uint32][]byte{}, owns: map[ClientID][]int32{},
		ever: map[ClientID]map[int32]bool{}}
	for i := 0; i < 3; i++ {
		w.classes = append(w.classes, vm.AddClass("LC"+string(rune('A'+i))+";", 2, false, false))
	}
	vm.SetThread(1, []scachetest.ModelFrame{{Class: w.classes[0].ID, Method: w.classes[0].Methods[0]}})
	w.shadow = vm.Clone()
	for c := ClientID(1); c <= ClientID(clients); c++ {
		w.m.join(c)
		w.nextID[c] = 1 // every client counts from 1: ids collide across clients
		w.want[c] = map[uint32][]byte{}
		w.ever[c] = map[int32]bool{}
	}
	return w
}

func (w *world) apply(outs []out) {
	for _, o := range outs {
		if o.toVM {
			w.queue = append(w.queue, o.packet)
		} else {
			w.got[o.client] = append(w.got[o.client], o.packet)
		}
	}
}

func (w *world) send(c ClientID, cmd jdwp.CommandMessage) {
	id := w.nextID[c]
	w.nextID[c]++
	p := jdwp.AppendCommandPacket(nil, id, cmd, jdwp.DefaultIDSizes)
	want := w.shadow.Handle(p)
	w.want[c][id] = want
	if cmd.Command() == jdwp.CmdEventRequestSet {
		var r jdwp.IntReply
		require.NoError(w.t, jdwp.Unmarshal(jdwp.Data(want), jdwp.DefaultIDSizes, &r))
		w.owns[c] = append(w.owns[c], r.Value)
		w.ever[c][r.Value] = true
	}
	w.apply(w.m.fromClient(c, p))
}

func (w *world) step() bool {
	if len(w.queue) == 0 {
		return false
	}
	p := w.queue[0]
	w.queue = w.queue[1:]
	if reply := w.vm.Handle(p); reply != nil {
		w.apply(w.m.fromVM(reply))
	}
	return true
}

// TestClientsGetTheirOwnRepliesAndEvents: with two or three clients
// interleaving commands (all counting ids from 1), event requests and
// events, every client receives exactly one reply per command, the one the
// VM would have given it, and only events of its own requests (or VM-wide ones).
func TestClientsGetTheirOwnRepliesAndEvents(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(2, 3).Draw(t, "clients")
		w := newWorld(t, n)
		kinds := []jdwp.EventKind{jdwp.EventBreakpoint, jdwp.EventThreadStart, jdwp.EventClassUnload}
		for i := rapid.IntRange(5, 80).Draw(t, "steps"); i > 0; i-- {
			c := ClientID(rapid.IntRange(1, n).Draw(t, "client"))
			k := w.classes[rapid.IntRange(0, len(w.classes)-1).Draw(t, "class")]
			switch rapid.IntRange(0, 7).Draw(t, "action") {
			case 0:
				w.send(c, &jdwp.RefTypeSourceFileCommand{RefType: k.ID})
			case 1:
				w.send(c, &jdwp.MethodLineTableCommand{RefType: k.ID, Method: k.Methods[0]})
			case 2:
				w.send(c, &jdwp.ThreadFramesCommand{Thread: 1, StartFrame: 0, Length: -1})
			case 3:
				w.send(c, &jdwp.VMVersionCommand{})
			case 4:
				w.send(c, &jdwp.EventRequestSetCommand{EventKind: rapid.SampledFrom(kinds).Draw(t, "kind"),
					SuspendPolicy: jdwp.SuspendPolicyNone})
			case 5:
				if len(w.owns[c]) > 0 {
					i := rapid.IntRange(0, len(w.owns[c])-1).Draw(t, "cleared")
					id := w.owns[c][i]
					w.owns[c] = append(w.owns[c][:i], w.owns[c][i+1:]...)
					w.send(c, &jdwp.EventRequestClearCommand{EventKind: jdwp.EventBreakpoint, RequestID: id})
				}
			case 6:
				// Events happen when the VM has nothing queued, for some requests.
				for w.step() {
				}
				ids := w.vm.Requests()
				var fire []int32
				for _, id := range ids {
					if rapid.Bool().Draw(t, "fire") {
						fire = append(fire, id)
					}
				}
				if rapid.IntRange(0, 5).Draw(t, "vmWide") == 0 {
					fire = append(fire, 0)
				}
				if len(fire) > 0 {
					ev := w.vm.Fire(fire)
					require.Equal(t, ev, w.shadow.Fire(fire))
					w.apply(w.m.fromVM(ev))
				}
			default:
				for k := rapid.IntRange(1, 4).Draw(t, "vmSteps"); k > 0 && w.step(); k-- {
				}
			}
		}
		for w.step() {
		}
		for c := ClientID(1); c <= ClientID(n); c++ {
			replies := map[uint32]int{}
			for _, p := range w.got[c] {
				h, err := jdwp.ParseHeader(p)
				require.NoError(t, err)
				if h.IsReply() {
					replies[h.ID]++
					want, ok := w.want[c][h.ID]
					require.True(t, ok, "client %d got a reply to id %d it never sent", c, h.ID)
					require.Equal(t, want, p, "client %d, reply to id %d", c, h.ID)
					continue
				}
				var comp jdwp.Composite
				require.NoError(t, jdwp.Unmarshal(jdwp.Data(p), jdwp.DefaultIDSizes, &comp))
				require.NotEmpty(t, comp.Events)
				for _, e := range comp.Events {
					if e.Request() != 0 {
						require.True(t, w.ever[c][e.Request()], "client %d got an event of request %d", c, e.Request())
					}
				}
			}
			for id := range w.want[c] {
				require.Equal(t, 1, replies[id], "client %d: replies to id %d", c, id)
			}
		}
	})
}
