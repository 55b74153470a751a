package main

import (
	"sync"

	"github.com/jdwpscache/scache/internal/journal"
	"github.com/jdwpscache/scache/scache"
)

// openJournal creates a journal file for every session: pcapng for a name
// ending in .pcapng (Wireshark reads it), the trace format otherwise.
func openJournal(path string) (journal.Sink, error) { return journal.CreateSink(path) }

// maxTimelineRecords bounds the memory a session's timeline takes; past it
// the timeline keeps the session's beginning.
const maxTimelineRecords = 1 << 20

// timeline collects a session's journal for a timeline file.
type timeline struct {
	mu   sync.Mutex
	recs []journal.Record
}

func (t *timeline) add(e scache.JournalEntry) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.recs) < maxTimelineRecords {
		t.recs = append(t.recs, journal.FromEntry(e))
	}
}

func (t *timeline) writeAndReset(path string) error {
	t.mu.Lock()
	recs := t.recs
	t.recs = nil
	t.mu.Unlock()
	return journal.WriteTimelineFile(path, recs)
}
