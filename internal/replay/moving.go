package replay

import (
	"bytes"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
)

// movingStates checks the replies about state that moves while threads run
// (scache.MovingState: a running thread's status, name or group, the thread
// list) against the recording as the Speculator's default promise,
// Sequential, allows.
//
// A recording holds one reply per ask, taken when the debugger asked. A
// worker that sleeps a millisecond at a time may be SLEEPING at one ask of
// its status and RUNNING at the next, in the same stop. Served from
// speculation, the debugger may see the state of either ask: the promise is
// that every reply is the VM's answer in some real state and that the
// states never go back in time, not that they are the ones the recording
// happened to catch. So a reply to a moving command is right when it equals
// one of the replies recorded for the same command in the same suspension
// epoch, at or after the latest of them the debugger already received. Or
// in a later epoch: the simulation times an event by its recorded gap
// after the command that let the VM run, and the debugger's commands by
// the link, so a running thread's event (its next breakpoint) may reach
// the simulated debugger before a command it followed in the recording;
// the state the VM answers then is one the recording shows later, never
// an earlier one. Every other reply must equal its own recorded reply
// byte for byte.
type movingStates struct {
	s *session
	// seen is, per command, the index in session.answers of the latest
	// recorded state the debugger received.
	seen map[scache.Key]int
}

func newMovingStates(s *session) *movingStates {
	return &movingStates{s: s, seen: map[scache.Key]int{}}
}

// accept reports whether reply, delivered to the debugger for command c, is
// one the recording allows, and notes what the debugger has now seen.
func (m *movingStates) accept(c *command, reply []byte) bool {
	exact := bytes.Equal(c.reply, reply)
	if !scache.MovingState(c.cmd) || c.answer < 0 {
		return exact
	}
	seen := m.seen[c.key] // 0 before the first: every recorded state is ahead
	if exact {
		m.seen[c.key] = max(seen, c.answer)
		return true
	}
	h, err := jdwp.ParseHeader(reply)
	if err != nil {
		return false
	}
	answers := m.s.answers[c.key]
	for j := seen; j < len(answers); j++ {
		a := answers[j]
		if a.epoch.epoch < c.epoch.epoch || a.gen != c.gen {
			continue
		}
		if a.code == h.ErrorCode && bytes.Equal(a.data, jdwp.Data(reply)) {
			m.seen[c.key] = j
			return true
		}
	}
	return false
}
