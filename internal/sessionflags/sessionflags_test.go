package sessionflags

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/jdwpscache/scache/scache/transport"
	"github.com/stretchr/testify/require"
)

// parse registers the session flags on a new flag set and parses args.
func parse(t *testing.T, args ...string) *Flags {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := Register(fs)
	require.NoError(t, fs.Parse(args))
	return f
}

// The defaults: loopback, speculation, one proxy.
func TestTheDefaults(t *testing.T) {
	s, err := parse(t).Check()
	require.NoError(t, err)
	require.Equal(t, DefaultListen, s.Listen)
	require.Equal(t, "scache", s.Mode)
	require.Equal(t, transport.Whole, s.Half)
	require.Nil(t, s.Key)
}

// A split half with a key: the half and the key are in the session, and
// each adds its option.
func TestASplitHalfWithAKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k")
	key, err := transport.GenerateTunnelKey(path)
	require.NoError(t, err)
	plain, err := parse(t).Check()
	require.NoError(t, err)
	s, err := parse(t, "-split", "near", "-listen", "0.0.0.0:0", "-key", path).Check()
	require.NoError(t, err, "beyond loopback with a key")
	require.Equal(t, transport.NearHalf, s.Half)
	require.Equal(t, key.Fingerprint(), s.Key.Fingerprint())
	require.Len(t, s.Options, len(plain.Options)+3, "the split's, the resume's and the key's options")
	require.Equal(t, transport.DefaultResumeWithin, s.ResumeWithin)
}

// -resume-within goes to a split half, on a command's channel too: a near
// half on standard input and output (-stdio) waits, when the channel dies,
// in the rendezvous directory, where the far half's next run of the
// command finds it.
func TestResumeWithin(t *testing.T) {
	names := func(s *Session) string { return fmt.Sprint(s.Options) }
	s, err := parse(t, "-split", "far", "-resume-within", "20s").Check()
	require.NoError(t, err)
	require.Contains(t, names(s), "WithResume(20s)")
	s, err = parse(t, "-split", "far", "-via", "ssh h scache proxy -split near -stdio").Check()
	require.NoError(t, err)
	require.Contains(t, names(s), "WithResume(3m0s)")
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
	s, err = parse(t, "-split", "near", "-stdio").Check()
	require.NoError(t, err)
	require.Contains(t, names(s), `WithRendezvous("/run/user/1000/scache")`)
	s, err = parse(t, "-split", "near", "-stdio", "-resume-within", "0").Check()
	require.NoError(t, err)
	require.Contains(t, names(s), "WithResume(0s)")
	require.NotContains(t, names(s), "WithRendezvous")
	_, err = parse(t, "-split", "near", "-resume-within", "-1s").Check()
	require.ErrorContains(t, err, "-resume-within -1s: 0 or a positive time")
}

// Flags that do not go together are refused, each with its reason.
func TestFlagsThatDoNotGoTogether(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-mode", "fast"}, "-mode: "},
		{[]string{"-split", "middle"}, "near or far"},
		{[]string{"-share", "-v", "-timeline", "t.json"}, "-share with -timeline, -v: "},
		{[]string{"-share", "-split", "far"}, "-share and -split"},
		{[]string{"-via", "ssh h", "-split", "near"}, "-via reaches the near half from the far half"},
		{[]string{"-stdio"}, "-stdio serves the near half's end"},
		{[]string{"-key", "k"}, "-key keys the tunnel of a split proxy"},
		{[]string{"-key", "k", "-split", "far", "-via", "ssh h"}, "-key with -via or -stdio"},
		{[]string{"-split", "near", "-listen", "0.0.0.0:8701"}, "beyond loopback anyone who reaches the port would run code in the VM"},
	} {
		_, err := parse(t, tc.args...).Check()
		require.ErrorContains(t, err, tc.want, "%v", tc.args)
	}
	_, err := parse(t, "-split", "near", "-stdio", "-listen", "0.0.0.0:8701").Check()
	require.NoError(t, err, "-stdio listens nowhere: -listen does not matter")
}
