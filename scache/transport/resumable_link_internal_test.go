package transport

import (
	"bytes"
	"io"
	"log/slog"
	"net"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jdwpscache/scache/scache/internal/tunnel"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// loopbackPair returns the two ends of a loopback TCP connection.
func loopbackPair(t testing.TB) (net.Conn, net.Conn) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	a, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	b := <-accepted
	require.NotNil(t, b)
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// testLinks returns two resumable links over a loopback connection, each
// reading the other's stream into a buffer of its own.
func testLinks(t testing.TB, maxKept int, within time.Duration) (x, y *resumableLink, readX, readY *lockedBuffer) {
	a, b := loopbackPair(t)
	cfg := &resumeConfig{within: within, maxKept: maxKept, log: slog.New(slog.NewTextHandler(io.Discard, nil)), timeout: time.Second, endWait: 50 * time.Millisecond,
		register: func(tunnel.Token, *resumableLink) {}, forget: func(tunnel.Token) {}}
	// Both links take the near half's part: neither dials.
	x = newResumableLink(a, cfg, NearHalf, 0, newToken(), nil)
	y = newResumableLink(b, cfg, NearHalf, 0, newToken(), nil)
	t.Cleanup(func() { x.Close(); y.Close() })
	readX, readY = &lockedBuffer{}, &lockedBuffer{}
	go func() { _, _ = io.Copy(readX, x) }()
	go func() { _, _ = io.Copy(readY, y) }()
	return x, y, readX, readY
}

// A lockedBuffer collects what a link reads, and says when it has n bytes.
type lockedBuffer struct {
	mu   sync.Mutex
	b    bytes.Buffer
	cond *sync.Cond
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cond == nil {
		b.cond = sync.NewCond(&b.mu)
	}
	b.b.Write(p)
	b.cond.Broadcast()
	return len(p), nil
}

// await returns the first n bytes read, once they are there, or what
// there is after a minute.
func (b *lockedBuffer) await(n int) []byte {
	deadline := time.AfterFunc(time.Minute, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.cond != nil {
			b.cond.Broadcast()
		}
	})
	defer deadline.Stop()
	start := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cond == nil {
		b.cond = sync.NewCond(&b.mu)
	}
	for b.b.Len() < n && time.Since(start) < time.Minute {
		b.cond.Wait()
	}
	return append([]byte(nil), b.b.Bytes()...)
}

// cutAndResume takes both links down and brings them back on a new
// connection, each telling the other what it received, as the hellos do.
func cutAndResume(t testing.TB, x, y *resumableLink) {
	x.drop(io.ErrUnexpectedEOF)
	y.drop(io.ErrUnexpectedEOF)
	a, b := loopbackPair(t)
	gotX, gotY := x.receivedBytes(), y.receivedBytes()
	errs := make(chan error, 2)
	go func() { errs <- x.resume(a, gotY, 0, 0, nil, func() {}) }()
	go func() { errs <- y.resume(b, gotX, 0, 0, nil, func() {}) }()
	require.NoError(t, <-errs)
	require.NoError(t, <-errs)
}

// cutAndResumePipelined is cutAndResume as a far half (x) resumes a near
// half (y): x sends again everything y has not acknowledged before it
// reads y's answer, and y drops what of it had arrived (resumeNear).
func cutAndResumePipelined(t testing.TB, x, y *resumableLink) {
	x.drop(io.ErrUnexpectedEOF)
	y.drop(io.ErrUnexpectedEOF)
	a, b := loopbackPair(t)
	x.mu.Lock()
	from, again, written := x.acked, x.kept, x.sent
	x.mu.Unlock()
	y.mu.Lock()
	token := y.token
	y.mu.Unlock()
	_, err := a.Write(again) // before the answer, as resumeFar does
	require.NoError(t, err)
	near := make(chan error, 1)
	go func() {
		near <- y.resumeNear(b, tunnel.Hello{Resume: true, Token: token, Received: x.receivedBytes(), From: from, To: written})
	}()
	_, err = tunnel.ReadNearHello(a)
	require.NoError(t, err)
	theirs, _, err := tunnel.ReadResumeAnswer(a)
	require.NoError(t, err)
	require.NoError(t, x.resume(a, theirs, written, int64(len(again)), nil, func() {}))
	require.NoError(t, <-near)
}

// Whatever each side writes, and wherever the link is cut, each side reads
// the other's stream exactly: every byte once, in order.
func TestTheLinkDeliversEveryByteOnceAcrossCuts(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		x, y, readX, readY := testLinks(t, 1<<20, time.Minute)
		var sentX, sentY []byte
		steps := rapid.IntRange(1, 30).Draw(rt, "steps")
		for i := range steps {
			switch rapid.IntRange(0, 3).Draw(rt, "op") {
			case 0, 1:
				n := rapid.IntRange(1, 5000).Draw(rt, "bytes")
				p := bytes.Repeat([]byte{byte(i)}, n)
				from, to := x, &sentX
				if rapid.Bool().Draw(rt, "from y") {
					from, to = y, &sentY
				}
				_, err := from.Write(p)
				require.NoError(rt, err)
				*to = append(*to, p...)
			case 2:
				if rapid.Bool().Draw(rt, "pipelined") {
					cutAndResumePipelined(t, x, y)
				} else {
					cutAndResume(t, x, y)
				}
			case 3:
				// Each says what it received, as the 'K' frames do.
				x.acknowledged(y.receivedBytes())
				y.acknowledged(x.receivedBytes())
			}
		}
		require.Equal(rt, sentX, readY.await(len(sentX)), "what x wrote, y read")
		require.Equal(rt, sentY, readX.await(len(sentY)), "what y wrote, x read")
	})
}

// What a half keeps for the other is bounded: while the link is down, a
// write past the bound ends the link (and the session) with why.
func TestAFullKeepEndsTheLink(t *testing.T) {
	x, _, _, _ := testLinks(t, 1024, time.Minute)
	x.drop(io.ErrUnexpectedEOF)
	_, err := x.Write(make([]byte, 1000))
	require.NoError(t, err, "kept while down")
	_, err = x.Write(make([]byte, 100))
	require.ErrorIs(t, err, ErrTunnelLost)
	require.ErrorContains(t, err, "passed 1024 bytes")
	_, err = x.Read(make([]byte, 1))
	require.ErrorIs(t, err, ErrTunnelLost, "reads end too")
}

// A link that stays down past its grace time gives up, and says so.
func TestALinkDownPastItsGraceGivesUp(t *testing.T) {
	x, _, _, _ := testLinks(t, 1024, 10*time.Millisecond)
	x.drop(io.ErrUnexpectedEOF)
	_, err := x.Read(make([]byte, 1))
	require.ErrorIs(t, err, ErrTunnelLost)
	require.ErrorContains(t, err, "did not come back within 10ms")
}

// A resume that names a count of the stream outside what the half keeps is
// refused: the other half's state cannot be matched.
func TestAResumeOutsideTheKeptBytesIsRefused(t *testing.T) {
	x, _, _, _ := testLinks(t, 1024, time.Minute)
	_, err := x.Write([]byte("hello"))
	require.NoError(t, err)
	x.drop(io.ErrUnexpectedEOF)
	a, _ := loopbackPair(t)
	require.ErrorIs(t, x.resume(a, 6, 0, 0, nil, func() {}), errResumeRefused)
	x.acknowledged(3)
	require.ErrorIs(t, x.resume(a, 2, 0, 0, nil, func() {}), errResumeRefused)
}

// A resume that a newer one began after (the far half gave its connection
// up and dialled again while the near half still wrote its answer) never
// brings its connection up: the link reads the newer one only. (The near half's Proxy serves each
// connection on its own goroutine, so the two can overlap.)
func TestAStaleResumeGivesWayToANewerOne(t *testing.T) {
	x, _, readX, _ := testLinks(t, 1<<20, time.Minute)
	x.drop(io.ErrUnexpectedEOF)
	answer := func(received uint64) ([]byte, error) { return []byte("answer"), nil }
	olderNear, olderFar := net.Pipe() // a write blocks until the far end reads it
	defer olderFar.Close()
	older := make(chan error, 1)
	go func() { older <- x.resume(olderNear, 0, 0, 0, answer, func() {}) }()
	first := make([]byte, 1)
	_, err := io.ReadFull(olderFar, first) // the older resume writes its answer, holding the link's writes
	require.NoError(t, err)

	newerNear, newerFar := loopbackPair(t)
	newer := make(chan error, 1)
	go func() { newer <- x.resume(newerNear, 0, 0, 0, answer, func() {}) }()
	require.Eventually(t, func() bool {
		x.mu.Lock()
		defer x.mu.Unlock()
		return x.attempts == 2
	}, time.Minute, time.Millisecond, "the newer resume began")

	go func() { _, _ = io.Copy(io.Discard, olderFar) }() // the rest of the older answer
	require.ErrorIs(t, <-older, errStaleResume, "the older resume gives way")
	require.NoError(t, <-newer)
	got := make([]byte, len("answer"))
	_, err = io.ReadFull(newerFar, got)
	require.NoError(t, err)
	_, err = newerFar.Write([]byte("on the newer one"))
	require.NoError(t, err)
	require.Equal(t, "on the newer one", string(readX.await(len("on the newer one"))))
	require.Equal(t, uint64(len("on the newer one")), x.receivedBytes())
}

// A write that waits for room while the link is up, holding the link's
// writes, does not stall a resume that comes meanwhile (the far half saw
// the loss first): it decides again, and a keep that is full while the
// link is down ends the link, as any write would.
func TestAWriteWaitingForRoomDoesNotStallAResume(t *testing.T) {
	x, _, _, _ := testLinks(t, 1024, time.Minute)
	_, err := x.Write(make([]byte, 1000))
	require.NoError(t, err)
	wrote := make(chan error, 1)
	go func() {
		_, err := x.Write(make([]byte, 100)) // waits for a 'K' frame that never comes
		wrote <- err
	}()
	require.Eventually(t, func() bool {
		if x.writeMu.TryLock() {
			x.writeMu.Unlock()
			return false
		}
		return true // the second write holds the writes: it waits for room
	}, time.Minute, time.Millisecond)
	a, _ := loopbackPair(t)
	resumed := make(chan error, 1)
	go func() { resumed <- x.resume(a, 0, 0, 0, nil, func() {}) }()
	err = <-wrote
	require.ErrorIs(t, err, ErrTunnelLost)
	require.ErrorContains(t, err, "passed 1024 bytes")
	require.ErrorIs(t, <-resumed, ErrTunnelLost, "the resume finds the link given up")
}

// A near half whose end frame left, and whose link went before the far
// half said it arrived, waits for a resume only briefly (endWait, not the
// grace time), and then ends quietly: the session had ended.
func TestANearHalfThatSentItsEndWaitsBriefly(t *testing.T) {
	x, _, _, _ := testLinks(t, 1024, time.Hour)
	_, err := x.Write([]byte("the end frame"))
	require.NoError(t, err)
	x.endSent = func() bool { return true }
	x.drop(io.ErrUnexpectedEOF) // not a clean close: the 'K' frame may have been cut
	require.True(t, x.down(), "it waits for the far half a while")
	_, err = x.Read(make([]byte, 1))
	require.ErrorIs(t, err, net.ErrClosed, "then ends as a session that ended")
	require.NotErrorIs(t, err, ErrTunnelLost)
}

// A half whose end frame is queued, but not yet in the stream, owes it: a
// cut then is a cut, even though the other half said it received all that
// came before (CI saw a near half end quietly there, its end frame never
// sent, and the far half's resume refused).
func TestAnEndFrameOnlyQueuedIsOwed(t *testing.T) {
	x, y, _, readY := testLinks(t, 1024, time.Hour)
	x.cfg.endWait = time.Hour
	_, err := x.Write([]byte("a reply"))
	require.NoError(t, err)
	readY.await(len("a reply"))
	x.acknowledged(uint64(len("a reply")))
	x.endSent = func() bool { return true } // queued, not written
	x.drop(syscall.ECONNRESET)
	require.True(t, x.down(), "it waits for the other half to come back")
	_, err = x.Write([]byte("the end frame"))
	require.NoError(t, err)
	closed := make(chan error, 1)
	go func() { closed <- x.CloseWrite() }()
	cutAndResume(t, x, y)
	require.NoError(t, <-closed)
	require.Equal(t, "a replythe end frame", string(readY.await(len("a replythe end frame"))), "the end frame arrived after the resume")
}

// A half whose end frame is in the stream, and whose link is closed by the
// other half cleanly before CloseWrite marks it so (the writer sent it, the
// other half read it and closed), ends at that CloseWrite: it waits for no
// resume.
func TestAnEndFrameReadBeforeCloseWriteEndsTheLink(t *testing.T) {
	x, _, _, readY := testLinks(t, 1024, time.Hour)
	x.cfg.endWait = time.Hour
	x.endSent = func() bool { return true }
	_, err := x.Write([]byte("the end frame"))
	require.NoError(t, err)
	readY.await(len("the end frame"))
	x.drop(io.EOF) // the other half closed after reading it
	require.True(t, x.down(), "before CloseWrite the end frame may not be in the stream")
	require.ErrorIs(t, x.CloseWrite(), net.ErrClosed)
	require.False(t, x.down())
	_, err = x.Read(make([]byte, 1))
	require.ErrorIs(t, err, net.ErrClosed, "the session ended")
}
