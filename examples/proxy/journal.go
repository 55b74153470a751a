package main

import "github.com/jdwpscache/scache/internal/journal"

// openJournal creates a trace file for the journal of every session.
func openJournal(path string) (*journal.Writer, error) { return journal.Create(path) }
