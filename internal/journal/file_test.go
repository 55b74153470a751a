package journal_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/journal"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func drawRecords(t *rapid.T) []journal.Record {
	n := rapid.IntRange(0, 20).Draw(t, "n")
	recs := make([]journal.Record, n)
	for i := range recs {
		recs[i] = journal.Record{
			Time:      time.Unix(0, rapid.Int64Range(0, 1<<62).Draw(t, "ns")),
			Direction: scache.Direction(rapid.IntRange(0, 1).Draw(t, "dir")),
			Packet:    rapid.SliceOfN(rapid.Byte(), 0, 100).Draw(t, "packet"),
			Synthetic: rapid.Bool().Draw(t, "synthetic"),
			Hit:       rapid.Bool().Draw(t, "hit"),
			Held:      rapid.Bool().Draw(t, "held"),
		}
	}
	return recs
}

func encode(t require.TestingT, recs []journal.Record) []byte {
	var buf bytes.Buffer
	w, err := journal.NewWriter(&buf)
	require.NoError(t, err)
	for _, r := range recs {
		require.NoError(t, w.Append(r))
	}
	return buf.Bytes()
}

func TestTraceFileRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		recs := drawRecords(t)
		got, err := journal.ReadAll(bytes.NewReader(encode(t, recs)))
		require.NoError(t, err)
		require.Len(t, got, len(recs))
		for i := range recs {
			require.True(t, recs[i].Time.Equal(got[i].Time))
			got[i].Time = recs[i].Time
			if len(recs[i].Packet) == 0 {
				got[i].Packet = recs[i].Packet
			}
		}
		if len(recs) > 0 {
			require.Equal(t, recs, got)
		}
	})
}

// TestTruncatedLastRecordIsSkipped: a file cut anywhere inside its last
// record (a crash mid-write) yields every earlier record and ErrTruncated.
func TestTruncatedLastRecordIsSkipped(t *testing.T) {
	recs := []journal.Record{
		{Time: time.Unix(1, 0), Packet: []byte{0, 0, 0, 11, 0, 0, 0, 1, 0, 1, 1}},
		{Time: time.Unix(2, 0), Direction: scache.Downstream, Packet: []byte{0, 0, 0, 11, 0, 0, 0, 1, 0x80, 0, 0}},
	}
	full := encode(t, recs)
	whole := len(encode(t, recs[:1]))
	for cut := whole + 1; cut < len(full); cut++ {
		got, err := journal.ReadAll(bytes.NewReader(full[:cut]))
		require.ErrorIs(t, err, journal.ErrTruncated, "cut at %d", cut)
		require.Len(t, got, 1)
	}
}

func TestNotATrace(t *testing.T) {
	_, err := journal.ReadAll(bytes.NewReader([]byte("GET / HTTP/1.1\r\n\r\n")))
	require.ErrorIs(t, err, journal.ErrNotATrace)
	_, err = journal.ReadAll(bytes.NewReader(nil))
	require.ErrorIs(t, err, journal.ErrNotATrace)
}

func TestHugeRecordLengthIsRejectedBeforeAllocating(t *testing.T) {
	b := encode(t, nil)
	b = append(b, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	rd, err := journal.NewReader(bytes.NewReader(b))
	require.NoError(t, err)
	_, err = rd.Next()
	require.ErrorIs(t, err, journal.ErrRecordTooLarge)
}

func TestCreateAppendsToAFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sctrace")
	w, err := journal.Create(path)
	require.NoError(t, err)
	w.Write(scache.JournalEntry{Time: time.Unix(5, 0), Direction: scache.Upstream, Packet: []byte{1, 2}, Hit: true})
	require.NoError(t, w.Close())
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rd, err := journal.NewReader(f)
	require.NoError(t, err)
	r, err := rd.Next()
	require.NoError(t, err)
	require.Equal(t, []byte{1, 2}, r.Packet)
	require.True(t, r.Hit)
	_, err = rd.Next()
	require.Equal(t, io.EOF, err)
}
