package scache

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/stretchr/testify/require"
)

// TestStopLocationMetadataGoesOutWithTheStop: the event names the top
// frame's class and method, so their metadata goes to the VM with the
// stop's first commands, not one reply behind the frames; Classic waits
// for the frames, as the original did.
func TestStopLocationMetadataGoesOutWithTheStop(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []Option
		want int // class metadata commands sent with the event
	}{{"default", nil, len(defaultFrameSet)}, {"classic", []Option{Classic()}, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			sizes := jdwp.DefaultIDSizes
			vm := scachetest.NewModelVM(sizes)
			c := vm.AddClass("LStop;", 1, false, false)
			vm.SetThread(1, []scachetest.ModelFrame{{Class: c.ID, Method: c.Methods[0], Index: 3}})
			s, err := New(tc.opts...)
			require.NoError(t, err)
			id := uint32(1)
			ask := func(m jdwp.CommandMessage) {
				r := s.OnUpstream(jdwp.AppendCommandPacket(nil, id, m, sizes))
				id++
				for _, p := range r.Edict.Upstream {
					s.OnDownstream(vm.Handle(p))
				}
			}
			ask(&jdwp.VMIDSizesCommand{})
			ask(&jdwp.VMResumeCommand{})
			ev, ok := vm.Stop(1, jdwp.SuspendPolicyAll)
			require.True(t, ok)
			r := s.OnDownstream(ev)
			about := 0
			for _, p := range r.Edict.Upstream {
				h, err := jdwp.ParseHeader(p)
				require.NoError(t, err)
				for _, cmd := range defaultFrameSet {
					if h.Cmd() == cmd {
						about++
					}
				}
			}
			require.Equal(t, tc.want, about)
		})
	}
}
