package scache

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
)

// What the tests of package scache_test may see of the internals: every
// test uses one harness (harness_test.go), whatever it checks.

// DefaultFrameSet is FamilyClass's frame set, in the order it is sent.
var DefaultFrameSet = defaultFrameSet

// AskedFirst reports whether a class command of the frame set waits until
// the debugger asked one.
func AskedFirst(cmd jdwp.Command) bool { return askedFirst[cmd] }

// FamilyEntry is what an entry of the families table says of itself.
type FamilyEntry struct {
	Flag     Family
	Sends    []jdwp.Command // what the family may send
	Triggers []jdwp.Command // the replies that start it
	OnStop   bool           // a stop starts it
}

// Families returns the table, in its order.
func Families() []FamilyEntry {
	var es []FamilyEntry
	for _, f := range families {
		e := FamilyEntry{Flag: f.flag, Sends: f.sends, OnStop: f.onStop != nil}
		for cmd := range f.onReply {
			e.Triggers = append(e.Triggers, cmd)
		}
		es = append(es, e)
	}
	return es
}

// AddStopFamily adds to the table, until the test ends, a family of flag
// whose entries live for a suspension epoch and which, at each stop, asks
// what ask returns about the stopped thread; its entry says it sends sends.
func AddStopFamily(t testing.TB, flag Family, ask func(jdwp.ThreadID) jdwp.CommandMessage, sends ...jdwp.Command) {
	families = append(families, &family{
		flag: flag, life: lifetimeSuspension,
		onStop: func(s *Speculator, stop stopEvent) { s.enqueue(ask(stop.thread), true) },
		sends:  sends,
	})
	t.Cleanup(func() { families = families[:len(families)-1] })
}

// MaxPrepared bounds the classes whose line tables wait (family_prepare.go).
const MaxPrepared = maxPrepared
