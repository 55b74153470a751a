// Package jdwp is a codec for the Java Debug Wire Protocol (JDWP) as of Java 17.
//
// JDWP is the protocol between a debugger (Android Studio, IntelliJ, jdb, any JDI
// client) and the JDWP agent inside a Java VM. After a 14-byte handshake
// (see [Handshake]), both sides exchange packets. Every packet starts with an
// 11-byte header:
//
//	offset size field
//	0      4    length   (of the whole packet, header included; big-endian)
//	4      4    id       (pairs a reply with its command)
//	8      1    flags    (0x80 marks a reply; no other bit is defined)
//	9      1    command set  | error code (u2) in a reply
//	10     1    command      |
//
// # Layers
//
//   - [Header] and [ParseHeader] read the fixed header; [AppendCommand] and
//     [AppendReply] build packets.
//   - [Reader] and [Writer] walk a packet's data: fixed-width integers, ids of the
//     negotiated [IDSizes], strings, locations, tagged values.
//   - Typed messages (VersionReply, FramesCommand, Composite, …) encode and decode
//     the data of one command or reply; each implements [Message].
//   - [Framer] reads and writes whole packets on a connection, bounded by a
//     maximum packet size checked before anything is allocated.
//   - The constants ([CommandSet], [Command], [ErrorCode], [EventKind], [Tag], …)
//     print their names from the specification.
//
// Nothing in this package panics on malformed input: every decoder reports an
// error instead.
package jdwp
