package scache

import (
	"slices"
	"time"

	"github.com/jdwpscache/scache/jdwp"
)

// What bytes cost. On a link of little bandwidth (adb over Wi-Fi, 1 to 4
// MB/s; a VPN) a speculated command's reply takes the link for as long as
// its bytes take to cross, and the debugger's next reply waits behind it:
// at 1 MB/s, 10 KB of speculation the debugger does not use delay it by
// 10 ms, half a round trip at 20 ms. So the cost model also estimates, per
// session:
//
//   - the link's bandwidth, from the replies of bigReply bytes or more
//     whose transfer shows: one that waited its turn at the VM arrives
//     after the one before it by the VM's service or its own transfer,
//     whichever is the longer, so a gap of more than twice the service
//     is its transfer; one sent alone arrives a transfer after the link's
//     least round trip, which shows when that is slowBytes or more. Each
//     gives bytes over time, a bound under the link's rate (jitter only
//     slows a reply down), so the estimate is the most of the last samples,
//     as the round trip is the least of its own. A link that never shows a
//     transfer has no estimate, and its bytes are not weighed;
//   - each command's reply size: a moving average per command, from every
//     reply (the debugger's own and speculation's).
//
// Once both are known, a command whose reply takes slowBytes or more to
// cross goes out only if its odds of being used times what it saves pay
// for that time (and the VM's service, on a slow VM; cost.go), and the
// replies in flight of speculated commands are bounded to what the link
// carries in maxWaitBehind: a debugger's command sent now waits behind no
// more. A link fast enough that no reply takes slowBytes to cross weighs
// nothing, as a fast VM does not.

// bigReply is the size from which a reply's transfer is taken as the
// link's, not the VM's service or the scheduler's.
const bigReply = 1 << 10

// slowBytes is the transfer time from which a reply's bytes are weighed:
// below it, they cost less than any link's round trip saves.
const slowBytes = 200 * time.Microsecond

// bandwidthSamples is how many samples the bandwidth estimate needs.
const bandwidthSamples = 2

// replyBytesWeight is the weight of a new reply in its command's moving
// average of reply sizes: the last replies count most.
const replyBytesWeight = 0.25

// bytesModel holds the estimates of what bytes cost.
type bytesModel struct {
	rates     [15]float64 // the last samples of the link's rate, bytes per second
	samples   int         // samples taken, ever
	est       float64     // the most of the last samples, made anew at each (0: too few)
	replySize map[jdwp.Command]float64
	inFlight  int64 // the expected reply bytes of the synthetic commands in flight
	// told is, for a near half, the rate of the tunnel as the far half
	// measures it (0: not told): its pushes cross that link, not the
	// VM's, which is next to it.
	told float64
}

// sample takes a reply of size bytes that took d to cross the link.
func (b *bytesModel) sample(size int, d time.Duration) {
	if size < bigReply || d <= 0 {
		return
	}
	b.rates[b.samples%len(b.rates)] = float64(size) / d.Seconds()
	b.samples++
	if b.samples >= bandwidthSamples {
		b.est = slices.Max(b.rates[:min(b.samples, len(b.rates))])
	}
}

// rate returns the link's estimated rate in bytes per second (0: unknown).
// The cost model asks it for every command it weighs, so the estimate is
// made once per sample.
func (b *bytesModel) rate() float64 {
	if b.told > 0 {
		return b.told
	}
	return b.est
}

// replied learns the size of a reply to cmd.
func (b *bytesModel) replied(cmd jdwp.Command, size int) {
	if b.replySize == nil {
		b.replySize = make(map[jdwp.Command]float64)
	}
	if avg, ok := b.replySize[cmd]; ok {
		b.replySize[cmd] = avg + replyBytesWeight*(float64(size)-avg)
	} else {
		b.replySize[cmd] = float64(size)
	}
}

// expected returns the bytes a reply to cmd is expected to take (0: none
// seen yet).
func (b *bytesModel) expected(cmd jdwp.Command) int64 {
	return int64(b.replySize[cmd])
}

// transfer returns how long n bytes take to cross the link, once its rate
// is known (0 before).
func (b *bytesModel) transfer(n int64) time.Duration {
	r := b.rate()
	if r <= 0 || n <= 0 {
		return 0
	}
	return time.Duration(float64(n) / r * float64(time.Second))
}

// weighed returns the transfer of a reply to cmd if it is slowBytes or
// more, and 0 when its bytes are not worth weighing.
func (b *bytesModel) weighed(cmd jdwp.Command) time.Duration {
	if d := b.transfer(b.expected(cmd)); d >= slowBytes {
		return d
	}
	return 0
}

// room reports whether one more synthetic command, whose reply is expected
// to take n bytes, may go while the others' replies are in flight: what
// is in flight crosses the link within maxWaitBehind; the first always goes.
func (b *bytesModel) room(n int64) bool {
	if b.inFlight == 0 {
		return true
	}
	return b.transfer(b.inFlight+n) <= maxWaitBehind
}
