package scache

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

// A stop's count stays open through an invocation at it (its two epoch
// ends: the command and the reply), and closes at the stop's resume: what
// went out unread there is held back at the next stop of the kind. An
// invocation whose reply never settled holds open only the count of the
// stop it was sent at: the next stop's resume closes that stop's count.
func TestAnInvocationHoldsOpenOnlyItsOwnStopsCount(t *testing.T) {
	status := &jdwp.ThreadStatusCommand{Thread: 2}
	stop := &stopState{}
	l := &learner{stop: stop}
	begin := func() { stop.begin(stopEvent{thread: 1, loc: jdwp.Location{Class: 5}}) }

	begin()
	l.sent(status)
	l.invoked()
	l.endStop(false) // the invocation's command ends the epoch
	stop.end()
	stop.invoked = invocation{back: stopEvent{thread: 1}}
	l.endStop(false) // and its reply, settled
	l.settled()
	require.True(t, l.held, "open through the invocation")
	l.endStop(false) // the resume
	stop.invoked = invocation{}
	require.False(t, l.held)
	begin()
	require.False(t, l.allows(status), "unread at the last stop of the kind: held back")

	for range probeEvery {
		begin()
		l.endStop(false)
		stop.end()
	}
	begin()
	l.sent(status)
	l.invoked() // its reply never settles
	l.endStop(false)
	stop.end()
	begin()          // another stop follows
	l.endStop(false) // its resume
	require.False(t, l.held, "the next stop's resume closes its count")
}
