package cli

import (
	"context"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/jdwpscache/scache/internal/cli/command"
	"github.com/stretchr/testify/require"
)

// main runs the scache command line args and returns its status, standard
// output and standard error.
func main(args ...string) (int, string, string) {
	var out, errOut strings.Builder
	code := Main(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// scache alone lists the commands on standard error, with status 2; help
// and -h list them on standard output, with status 0.
func TestTheOverviewListsEveryCommand(t *testing.T) {
	code, out, errOut := main()
	require.Equal(t, 2, code)
	require.Empty(t, out)
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}} {
		code, help, _ := main(args...)
		require.Equal(t, 0, code, "%v", args)
		require.Equal(t, errOut, help, "%v: the same overview", args)
	}
	require.True(t, strings.HasPrefix(errOut, "scache makes Java debugging over slow links fast"))
	for _, c := range Commands() {
		require.Contains(t, errOut, "\n  "+c.Name+" ", "the overview lists %s", c.Name)
		require.NotEmpty(t, c.Short, c.Name)
		require.True(t, strings.HasPrefix(c.Example, "scache "+c.Name), "%s's example runs it: %q", c.Name, c.Example)
		require.NoError(t, c.Check(strings.Fields(c.Example)[2:]), "%s's example passes its checks", c.Name)
	}
}

// help COMMAND prints what COMMAND -h prints, on standard output, with
// status 0: the usage line, the summary and the example.
func TestHelpOfEachCommand(t *testing.T) {
	for _, c := range Commands() {
		code, out, errOut := main("help", c.Name)
		require.Equal(t, 0, code, errOut)
		require.True(t, strings.HasPrefix(out, "usage: scache "+c.Name+" [flags]"), "%q", out)
		require.Contains(t, out, command.Wrap(c.Summary))
		for _, line := range strings.Split(out, "\n") {
			if !strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "Example") {
				require.LessOrEqual(t, len(line), 80, "%s -h: %q", c.Name, line)
			}
		}
		require.Contains(t, out, "Example:\n  "+c.Example+"\n")
		code, _, dashH := main(c.Name, "-h")
		require.Equal(t, 0, code)
		require.Equal(t, out, dashH, "%s -h prints the same on standard error", c.Name)
	}
}

// An unknown command, or help about one, is refused with status 2, and
// the commands are named.
func TestAnUnknownCommandIsRefused(t *testing.T) {
	code, _, errOut := main("proxi")
	require.Equal(t, 2, code)
	require.Equal(t, "scache: unknown command \"proxi\"; the commands are proxy, replay, threads, keygen, version (scache help)\n", errOut)
	code, _, errOut = main("help", "proxi")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, `scache help: unknown command "proxi"`)
}

// version and -version print the build in one line; test binaries carry
// the Go version at least.
func TestVersion(t *testing.T) {
	code, out, _ := main("version")
	require.Equal(t, 0, code)
	require.Regexp(t, `^scache \S+ \(.*go1\.\d+.*\)\n$`, out)
	code, dash, _ := main("-version")
	require.Equal(t, 0, code)
	require.Equal(t, out, dash)
	code, _, errOut := main("version", "extra")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, `scache version: unexpected arguments ["extra"]`)
}

// Version names the commit, whether the tree had changes, and when.
func TestVersionNamesTheCommit(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.4.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "8425481abc"}, {Key: "vcs.time", Value: "2026-11-26T18:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	require.Equal(t, "scache v0.4.0 (commit 8425481abc, modified, 2026-11-26T18:00:00Z; go1.26.0)", Version(info))
	require.Equal(t, "scache (devel) (go1.26.0)", Version(&debug.BuildInfo{GoVersion: "go1.26.0"}))
}
