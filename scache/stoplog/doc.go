// Package stoplog reads a session's journal (scache.JournalEntry, as a
// Relay's or Proxy's WithJournal gives it) and turns it into the stops the
// debugger lived: where each was, in source terms (Class.method:line and
// the thread's name, from what the debugger asked), how many commands the
// debugger sent and speculation answered, and how long it waited, in round
// trips. It is an observer like any other: it sees only the journal, never
// the Speculator. The example proxies log a line per stop from it (-v), the
// replay names a trace's stops with it, and the benchmarks count round
// trips per stop with it.
package stoplog
