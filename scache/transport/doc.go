// Package transport runs scache's state machines over connections: a
// [Relay] wires a Speculator (or one half of a split proxy) between a
// debugger-side and a VM-side connection, and a [Proxy] accepts debuggers
// and dials the VM for each session. Package scache does no I/O; this
// package holds every goroutine and socket.
//
// Both take scache's one Option type: a Speculator's options (scache.Classic,
// scache.WithCacheBytes, …) for the Speculators they make, scache.WithJournal,
// and this package's own (WithSplit, WithTunnelKey, WithMaxPacketSize,
// WithHandshakeTimeout, WithHandshakeLimits, WithSilenceTimeout,
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
// # Who may reach the near half
//
// JDWP gives whoever connects code execution in the VM: listen on loopback
// (127.0.0.1) unless the network between debugger and proxy is trusted. The
// tunnel carries JDWP too: the same holds for the near half's address.
// WithTunnelKey makes the tunnel TLS 1.3 between halves that hold the same
// key ([GenerateTunnelKey], [LoadTunnelKey]), pinned by its fingerprint:
// the near half reads nothing but the TLS handshake before the far half has
// proved it holds the key, and dials the VM only then. Before any peer has
// finished its handshake, a Proxy holds it within [HandshakeLimits]
// (DefaultHandshakeLimits, as OpenSSH's MaxStartups), so that idle or
// dripping connections cannot keep the real far half or debugger out.
//
// # How a split session ends
//
// Each half sends a heartbeat every third of the silence timeout
// (WithSilenceTimeout, 15 s); one that hears nothing from the other for
// that long ends the session. Every end (the VM or the debugger gone, a reset, ctx done, an
// error) crosses to the other half in an end frame with its reason, which
// [Relay.EndReason] returns and the Proxy logs, and what either half has
// read in full reaches its debugger or VM before that side closes. A lost
// tunnel is [ErrTunnelLost]; a half whose peer holds another key, or none,
// gets [ErrWrongTunnelKey].
//
// # A session that ends with the VM
//
// A VM that exits sends VMDeath and may then reset its connection rather
// than close it (packets left unread in its socket, or written to it once
// closed). A Relay, or either half, that meets the reset reading, or a
// failed write to that connection, reads what the VM sent before it to
// the end, delivers it, and ends the session without an error once what
// it read ended the session (scache.Speculator.Ended: the VM's VMDeath,
// the debugger's Exit or Dispose). A reset before that is an error.
package transport
