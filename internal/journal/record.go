// Package journal records JDWP traffic: trace records, a trace file format of
// our own that survives a crash mid-write, a timeline in the Chrome
// trace-event format, and the import of pcap/pcapng captures of JDWP over TCP.
package journal

import (
	"github.com/jdwpscache/scache/scache"
)

// A Record is one packet of a trace: the Speculator's journal entry, with a
// packet of its own.
type Record = scache.JournalEntry

// FromEntry converts a relay journal entry, copying its packet.
func FromEntry(e scache.JournalEntry) Record {
	e.Packet = append([]byte(nil), e.Packet...)
	return e
}
