package scache

// Traffic is a list of packets for each direction, each in the order it must be sent.
type Traffic struct {
	Upstream   [][]byte // towards the VM
	Downstream [][]byte // towards the debugger
}

// Response is what a Speculator decides about one packet.
//
// Edict is what the transport must send now. An organic packet that is not in
// it was answered from the cache or is held until a reply in flight answers
// it. Journal is the coherent view for a tracer: on a cache hit it holds the
// debugger's command upstream and the re-tagged reply downstream, although
// only the reply is sent; synthetic commands and their absorbed replies appear
// in it too.
//
// The slices of a Response, and the packets they hold, are valid until the
// next call in the same direction (OnUpstream or OnDownstream): the Speculator
// reuses them, so that forwarding a packet allocates nothing. A caller that
// keeps a packet copies it.
type Response struct {
	Edict   Traffic
	Journal Traffic
}

// Stats counts what a Speculator did.
type Stats struct {
	PacketsUp       int64 // packets presented to OnUpstream
	PacketsDown     int64 // packets presented to OnDownstream
	Synthetic       int64 // synthetic commands sent to the VM
	Hits            int64 // debugger commands answered from the cache
	Belayed         int64 // debugger commands held and answered from a reply in flight
	Misses          int64 // keyable debugger commands that went to the VM
	Wasted          int64 // synthetic replies evicted, invalidated or dropped without being used
	Held            int64 // debugger commands held right now
	InFlight        int64 // synthetic commands awaiting a reply right now
	CacheEntries    int64
	CacheBytes      int64
	BytesSpeculated int64 // bytes of synthetic replies absorbed
	Enabled         bool
}
