package tunnel

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// A ResumeHello carries the token, the bytes received and where what
// follows it starts and ends; ReadFarHello,
// which opens sessions, refuses it, and ReadHello reads both kinds.
func TestTheResumeHelloCarriesTheTokenAndTheCount(t *testing.T) {
	var token Token
	for i := range token {
		token[i] = byte(i * 7)
	}
	h, err := ReadHello(bytes.NewReader(ResumeHello(Resume|Deflate, token, 1<<40+3, 1<<39+5, 1<<39+70)))
	require.NoError(t, err)
	require.Equal(t, Hello{Features: Resume | Deflate, Resume: true, Token: token, Received: 1<<40 + 3, From: 1<<39 + 5, To: 1<<39 + 70}, h)

	h, err = ReadHello(bytes.NewReader(FarHello(Resume)))
	require.NoError(t, err)
	require.Equal(t, Hello{Features: Resume}, h)

	_, err = ReadFarHello(bytes.NewReader(ResumeHello(Resume, token, 0, 0, 0)))
	require.ErrorContains(t, err, "asks to resume a session where one opens")

	cut := ResumeHello(Resume, token, 9, 2, 4)
	_, err = ReadHello(bytes.NewReader(cut[:len(cut)-3]))
	require.ErrorIs(t, err, ErrTunnel)
	require.ErrorContains(t, err, "of its")

	next := Token{1, 2, 3}
	got, tok, err := ReadResumeAnswer(bytes.NewReader(ResumeAnswer(77, next)))
	require.NoError(t, err)
	require.Equal(t, uint64(77), got)
	require.Equal(t, next, tok)
	_, _, err = ReadResumeAnswer(bytes.NewReader(ResumeAnswer(77, next)[:20]))
	require.ErrorIs(t, err, ErrTunnel)
}

// A 'K' frame carries eight bytes, and no other length parses.
func TestTheReceivedFrameParses(t *testing.T) {
	f, err := ParseFrame(ReceivedFrame(123456789))
	require.NoError(t, err)
	require.Equal(t, Received, f.Type)
	require.Equal(t, uint64(123456789), ReceivedOf(f.Payload))
	_, err = ParseFrame(NewFrame(Received, []byte{1, 2, 3}))
	require.ErrorContains(t, err, "a received frame of 3 bytes")
}
