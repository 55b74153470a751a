package observe

import (
	"sync"

	"github.com/jdwpscache/scache/internal/journal"
	"github.com/jdwpscache/scache/scache"
)

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

// writeAndReset writes the session's timeline to path and forgets it.
func (t *timeline) writeAndReset(path string) error {
	t.mu.Lock()
	recs := t.recs
	t.recs = nil
	t.mu.Unlock()
	return journal.WriteTimelineFile(path, recs)
}
