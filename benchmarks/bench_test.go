package benchmarks

import (
	"bytes"
	"testing"

	"github.com/jdwpscache/scache/internal/replay"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
)

// feed presents a trace's packets to a Speculator in recorded order and
// answers each synthetic command at once from the recorded replies of the
// same command (or with an error reply when the trace has none).
type feed struct {
	packets [][]byte
	answers map[string][]byte // command key → recorded reply data with its error code
}

func newFeed(tb testing.TB) feed {
	traces, err := replay.Embedded()
	require.NoError(tb, err)
	f := feed{answers: map[string][]byte{}}
	cmds := map[uint32][]byte{}
	for _, r := range traces[0].Records {
		f.packets = append(f.packets, r.Packet)
		h, err := jdwp.ParseHeader(r.Packet)
		require.NoError(tb, err)
		if !h.IsReply() && r.Direction == scache.Upstream {
			cmds[h.ID] = r.Packet
		} else if c, ok := cmds[h.ID]; ok && h.IsReply() {
			f.answers[string(c[9:])] = r.Packet[9:]
			delete(cmds, h.ID)
		}
	}
	return f
}

// run feeds every packet once and returns how many packets the Speculator saw.
func (f feed) run(s *scache.Speculator, up []bool) int {
	n := 0
	var synthetic [][]byte
	for i, p := range f.packets {
		var r scache.Response
		if up[i] {
			r = s.OnUpstream(p)
		} else {
			r = s.OnDownstream(p)
		}
		n++
		synthetic = synthetic[:0]
		for _, q := range r.Edict.Upstream {
			if scache.IsSyntheticID(jdwp.PacketID(q)) {
				// A copy: the Response's packets are reused by the next call.
				synthetic = append(synthetic, append([]byte(nil), q...))
			}
		}
		for len(synthetic) > 0 {
			q := synthetic[0]
			synthetic = synthetic[1:]
			body, ok := f.answers[string(q[9:])]
			var reply []byte
			if ok {
				reply = jdwp.AppendReply(nil, jdwp.PacketID(q), jdwp.ErrorCode(uint16(body[0])<<8|uint16(body[1])), body[2:])
			} else {
				reply = jdwp.AppendReply(nil, jdwp.PacketID(q), jdwp.ErrAbsentInformation, nil)
			}
			rr := s.OnDownstream(reply)
			n++
			for _, x := range rr.Edict.Upstream {
				if scache.IsSyntheticID(jdwp.PacketID(x)) {
					synthetic = append(synthetic, append([]byte(nil), x...))
				}
			}
		}
	}
	return n
}

func directions(tb testing.TB) []bool {
	traces, err := replay.Embedded()
	require.NoError(tb, err)
	up := make([]bool, len(traces[0].Records))
	for i, r := range traces[0].Records {
		up[i] = r.Direction == scache.Upstream
	}
	return up
}

// BenchmarkBaseline frames and copies every packet of the trace, as a proxy
// that does nothing else would.
func BenchmarkBaseline(b *testing.B) {
	f := newFeed(b)
	var stream bytes.Buffer
	for _, p := range f.packets {
		stream.Write(p)
	}
	data := stream.Bytes()
	buf := make([]byte, 0, 1<<16)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fr := jdwp.NewFramer(nil, bytes.NewReader(data))
		for {
			p, err := fr.ReadPacket()
			if err != nil {
				break
			}
			buf = append(buf[:0], p...)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(f.packets)), "ns/packet")
}

func benchmarkMode(b *testing.B, mode replay.Mode) {
	f := newFeed(b)
	up := directions(b)
	opts, err := mode.Options()
	require.NoError(b, err)
	packets := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := scache.New(opts...)
		require.NoError(b, err)
		packets += f.run(s, up)
		_ = s.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(packets), "ns/packet")
	b.ReportMetric(float64(testing.AllocsPerRun(1, func() {
		s, _ := scache.New(opts...)
		f.run(s, up)
	}))/float64(packets/b.N), "allocs/packet")
}

func BenchmarkModeOff(b *testing.B)     { benchmarkMode(b, replay.ModeOff) }
func BenchmarkModeClassic(b *testing.B) { benchmarkMode(b, replay.ModeClassic) }
func BenchmarkModeScache(b *testing.B)  { benchmarkMode(b, replay.ModeScache) }

// TestFeedAnswersEveryDebuggerCommand keeps the benchmark honest: replaying
// the trace directly answers every debugger command exactly once.
func TestFeedAnswersEveryDebuggerCommand(t *testing.T) {
	f := newFeed(t)
	up := directions(t)
	for _, mode := range replay.Modes {
		opts, _ := mode.Options()
		s, err := scache.New(opts...)
		require.NoError(t, err)
		require.Greater(t, f.run(s, up), len(f.packets)-1)
		st := s.Stats()
		require.Zero(t, st.Held, "%s", mode)
		require.True(t, st.Enabled || mode == replay.ModeOff, "%s", mode)
	}
}
