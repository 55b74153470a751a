// Package ddm implements the Dalvik Debug Monitor protocol: chunks carried in
// JDWP packets of the vendor command set 0xC7 (command 0x01), which tools use
// to watch threads, heaps and allocations of Android VMs without switching
// them into debugging mode.
//
// A DDM packet holds one or more chunks, each an 8-byte header (a 4-character
// type such as "HELO" and a u4 length) followed by its data. Integers are
// big-endian (except in NHGT), strings are UTF-16BE with a u4 length in 16-bit
// units. Every chunk type of the protocol document has a typed message here
// (Hello, ThreadStatus, HeapSegment, RecentAllocations, …) that encodes and
// decodes its data; a chunk of an unknown type stays a raw Chunk.
//
// Conn is the tool side (the document's "server"): it says HELO after the
// JDWP handshake, pairs requests with replies by JDWP id (from 0x40000000,
// the range ddmlib uses), and routes the chunks the VM sends to handlers
// registered per type. ddmtest is the VM side, for tests and emulators.
package ddm
