package ddm_test

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/jdwpscache/scache/ddm"
	"github.com/stretchr/testify/require"
)

func unhex(t *testing.T, s string) []byte {
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	require.NoError(t, err)
	return b
}

// TestHeapExampleOfTheDocument: a heap at 0x10000, 0x2000 bytes long, 8-byte
// units (0x400 units), sent as one piece or as two (0x300 units, then 0x100
// at offset 0x300) unpacks to the same bitmap.
func TestHeapExampleOfTheDocument(t *testing.T) {
	runs := []ddm.Run{
		{Solidity: ddm.SolidityHard, Kind: ddm.KindObject, Units: 0x100},
		{Solidity: ddm.SolidityFree, Units: 0x80},
		{Solidity: ddm.SolidityHard, Kind: ddm.KindArray4, Units: 0x80},
		{Solidity: ddm.SoliditySoft, Kind: ddm.KindClassObject, Units: 0x100},
		{Solidity: ddm.SolidityFree, Units: 0x100},
	}
	one := ddm.HeapSegment{Type: ddm.TypeHPSG, HeapID: 1, UnitSize: 8, Address: 0x10000}
	one.SetRuns(runs)
	require.Equal(t, uint32(0x400), one.Units)

	first := ddm.HeapSegment{Type: ddm.TypeHPSG, HeapID: 1, UnitSize: 8, Address: 0x10000, Offset: 0}
	first.SetRuns(runs[:4]) // 0x300 units
	second := ddm.HeapSegment{Type: ddm.TypeHPSG, HeapID: 1, UnitSize: 8, Address: 0x10000, Offset: 0x300}
	second.SetRuns(runs[4:])
	require.Equal(t, uint32(0x300), first.Units)
	require.Equal(t, uint32(0x100), second.Units)

	// Through the wire, as chunks.
	var pieces []ddm.HeapSegment
	for _, seg := range []*ddm.HeapSegment{&first, &second} {
		var back ddm.HeapSegment
		back.Type = ddm.TypeHPSG
		require.NoError(t, ddm.Decode(ddm.Encode(seg), &back))
		pieces = append(pieces, back)
	}
	a, err := ddm.Bitmap([]ddm.HeapSegment{one})
	require.NoError(t, err)
	b, err := ddm.Bitmap(pieces)
	require.NoError(t, err)
	require.Len(t, a, 0x400)
	require.Equal(t, a, b)
	require.Equal(t, uint8(ddm.SolidityHard|ddm.KindArray4<<3), a[0x180])
	require.Equal(t, uint8(ddm.SolidityFree), a[0x3ff])
}

func TestRunsAndUnitsMustEndTogether(t *testing.T) {
	seg := ddm.HeapSegment{Type: ddm.TypeHPSG, Units: 10, Usage: []byte{0x01, 4}} // 5 of 10 units
	_, err := seg.Runs()
	require.ErrorIs(t, err, ddm.ErrRunsMismatch)
	seg = ddm.HeapSegment{Type: ddm.TypeHPSG, Units: 5, Usage: []byte{0x01, 4, 0x00, 0}} // a run after the units
	_, err = seg.Runs()
	require.ErrorIs(t, err, ddm.ErrRunsMismatch)
	seg = ddm.HeapSegment{Type: ddm.TypeHPSG, Units: 256, Usage: []byte{0x81, 255}} // 255 means 256 units
	runs, err := seg.Runs()
	require.NoError(t, err)
	require.Equal(t, []ddm.Run{{Solidity: 1, Partial: true, Units: 256}}, runs)
}

// TestHelloAsTheDocumentLaysItOut: version, pid, the two lengths in 16-bit
// units, then both strings; then, as current Android adds, the user id.
func TestHelloAsTheDocumentLaysItOut(t *testing.T) {
	data := unhex(t, `
		00000001 00000457 00000002 00000003
		0041 0052
		0061 0070 0070
		0000000a`)
	var h ddm.Hello
	require.NoError(t, ddm.Decode(ddm.Chunk{Type: ddm.TypeHELO, Data: data}, &h))
	require.Equal(t, ddm.Hello{Version: 1, PID: 0x457, VMIdent: "AR", AppName: "app", Fields: 1, UserID: 10, Extra: []byte{}}, h)
	// Without the optional fields (the 2007 form).
	var old ddm.Hello
	require.NoError(t, ddm.Decode(ddm.Chunk{Type: ddm.TypeHELO, Data: data[:26]}, &old))
	require.Equal(t, 0, old.Fields)
	require.Equal(t, "app", old.AppName)
}

func TestLegacyThreadStatusOfTheDocument(t *testing.T) {
	// count 2; thread 1 running, not suspended; thread 9 waiting, suspended.
	data := unhex(t, `00000002 00000001 01 00 00000009 04 01`)
	var s ddm.LegacyThreadStatus
	require.NoError(t, ddm.Decode(ddm.Chunk{Type: ddm.TypeTHST, Data: data}, &s))
	require.Equal(t, []ddm.LegacyThreadInfo{{ID: 1, State: ddm.StateRunning}, {ID: 9, State: ddm.StateWaiting, Suspended: true}}, s.Threads)
}

func TestThreadStatusSkipsLongerHeadersAndEntries(t *testing.T) {
	// header 6 bytes (2 unknown), entries 20 bytes (2 unknown), one thread.
	data := unhex(t, `06 14 0001 beef   00000003 02 00000a0b 00000010 00000020 01 cafe`)
	var s ddm.ThreadStatus
	require.NoError(t, ddm.Decode(ddm.Chunk{Type: ddm.TypeTHST, Data: data}, &s))
	require.Equal(t, []ddm.ThreadInfo{{ID: 3, Status: ddm.StateSleeping, TID: 0xa0b, UTime: 16, STime: 32, Daemon: true}}, s.Threads)
}

func TestStringsAreUTF16WithSurrogatePairs(t *testing.T) {
	c := ddm.Encode(&ddm.ThreadCreated{ID: 1, Name: "a😀"})
	// id, length 3 (units), 'a', then the pair D83D DE00.
	require.Equal(t, unhex(t, `00000001 00000003 0061 d83d de00`), c.Data)
	var back ddm.ThreadCreated
	require.NoError(t, ddm.Decode(c, &back))
	require.Equal(t, "a😀", back.Name)
}

func TestChunksOfAPacket(t *testing.T) {
	p := ddm.AppendCommandPacket(nil, 0x40000001, ddm.Encode(&ddm.HelloRequest{Version: 1}), ddm.Encode(&ddm.Empty{Type: ddm.TypeFEAT}))
	require.True(t, ddm.IsDDM(p))
	chunks, err := ddm.ParseChunks(p[11:])
	require.NoError(t, err)
	require.Len(t, chunks, 2)
	require.Equal(t, "HELO", chunks[0].Type.String())
	require.Equal(t, ddm.TypeFEAT, chunks[1].Type)
	_, err = ddm.ParseChunks([]byte{'H', 'E', 'L', 'O', 0, 0, 0, 9, 1})
	require.ErrorIs(t, err, ddm.ErrShortChunk)
}

func TestZLIBBounds(t *testing.T) {
	_, err := ddm.Decompress(ddm.Chunk{Type: ddm.TypeZLIB, Data: unhex(t, `48454c4f ffffffff 00`)})
	require.ErrorIs(t, err, ddm.ErrTooLarge)
	c := ddm.Compress(ddm.Chunk{Type: ddm.TypeREAL, Data: []byte("hello hello hello")})
	c.Data[7]-- // claims one byte fewer than the stream holds
	_, err = ddm.Decompress(c)
	require.Error(t, err)
}
