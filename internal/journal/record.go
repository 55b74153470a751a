// Package journal records JDWP traffic: trace records, a trace file format of
// our own that survives a crash mid-write, a timeline in the Chrome
// trace-event format, and the import of pcap/pcapng captures of JDWP over TCP.
package journal

import (
	"time"

	"github.com/jdwpscache/scache/scache"
)

// A Record is one packet of a trace.
type Record struct {
	Time      time.Time
	Direction scache.Direction // Upstream: towards the VM
	Packet    []byte           // the whole JDWP packet
	Synthetic bool             // a synthetic command of the Speculator, or its reply
	// Hit marks a debugger command answered from the cache (and that answer);
	// Held a debugger command held until a reply in flight answered it.
	Hit, Held bool
}

// FromEntry converts a relay journal entry, copying its packet.
func FromEntry(e scache.JournalEntry) Record {
	return Record{Time: e.Time, Direction: e.Direction, Packet: append([]byte(nil), e.Packet...),
		Synthetic: e.Synthetic, Hit: e.Hit, Held: e.Held}
}
