// Package transport runs scache's state machines over connections: a
// [Relay] wires a Speculator (or one half of a split proxy) between a
// debugger-side and a VM-side connection, and a [Proxy] accepts debuggers
// and dials the VM for each session. Package scache does no I/O; this
// package holds every goroutine and socket.
//
// Both take scache's one Option type: a Speculator's options (scache.Classic,
// scache.WithCacheBytes, …) for the Speculators they make, scache.WithJournal,
// and this package's own (WithSplit, WithMaxPacketSize, WithHandshakeTimeout,
// WithSessionEnded, WithSpeculator).
//
// # Split mode
//
// WithSplit makes a Relay or a Proxy one half of a split proxy (see
// scache.Near and scache.Far): the near half next to the VM accepts the far
// half's tunnel and dials the VM, the far half next to the debugger accepts
// debuggers and dials the near half. Each half's session reads its two
// connections in a goroutine each and writes each through a bounded queue
// (queueWriter), so the near half's pushes never wait on the far half's
// reading while the VM's packets wait behind them.
//
// JDWP gives whoever connects code execution in the VM: listen on loopback
// (127.0.0.1) unless the network between debugger and proxy is trusted. The
// tunnel carries JDWP too: the same holds for the near half's address.
package transport
