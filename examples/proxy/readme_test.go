package main

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/internal/logtest"
	"github.com/stretchr/testify/require"
)

// readmeCommands returns the lines of the first sh block of the README's
// section titled heading.
func readmeCommands(t *testing.T, heading string) []string {
	b, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	_, section, found := strings.Cut(string(b), "\n"+heading+"\n")
	require.True(t, found, "the README has a section %q", heading)
	section, _, _ = strings.Cut(section, "\n## ")
	_, block, found := strings.Cut(section, "```sh\n")
	require.True(t, found, "%q has a sh block", heading)
	block, _, _ = strings.Cut(block, "```")
	return strings.Split(strings.TrimSpace(block), "\n")
}

// lineStarting returns the one line of lines that starts with prefix, without it.
func lineStarting(t *testing.T, lines []string, prefix string) string {
	for _, l := range lines {
		if rest, ok := strings.CutPrefix(l, prefix); ok {
			return rest
		}
	}
	t.Fatalf("no line starts with %q in %q", prefix, lines)
	return ""
}

// flagValue returns the value of -name in args and its index.
func flagValue(t *testing.T, args []string, name string) (string, int) {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1], i + 1
		}
	}
	t.Fatalf("%s is not in %q", name, args)
	return "", 0
}

// The README's "Debug through it" commands, run as written: the JVM with
// its agent option, the proxy with its flags, jdb attached to the proxy's
// address. Only what a test must change is changed: the ports (free ones
// in place of 5005 and 8700) and the program (the test's debuggee in place
// of "-cp out Main"). The stop line -v prints names the stop in source terms.
func TestTheREADMEsDebugCommandsWork(t *testing.T) {
	log := logtest.CaptureDefault(t)
	lines := readmeCommands(t, "## Debug through it")
	require.Len(t, lines, 3, "three commands: the JVM, the proxy, jdb")

	javaArgs := strings.Fields(lineStarting(t, lines, "java "))
	agent := javaArgs[0]
	require.True(t, strings.HasPrefix(agent, "-agentlib:jdwp="), "the JVM line starts with the agent option: %q", javaArgs)
	vmAddr := regexp.MustCompile(`address=([\d.]+:\d+)`).FindStringSubmatch(agent)
	require.NotNil(t, vmAddr, "the agent listens on an address: %s", agent)
	require.True(t, strings.HasPrefix(vmAddr[1], "127.0.0.1:"), "on loopback: %s", agent)
	vm := jvmtest.StartWithAgent(t, strings.Replace(agent, vmAddr[0], "address=127.0.0.1:0", 1), "Debuggee", "1")

	proxyArgs := strings.Fields(lineStarting(t, lines, "go run ./examples/proxy "))
	dialed, vmAt := flagValue(t, proxyArgs, "-vm")
	require.Equal(t, vmAddr[1], dialed, "the proxy dials the address the agent listens on")
	listen, listenAt := flagValue(t, proxyArgs, "-listen")
	proxyArgs[vmAt], proxyArgs[listenAt] = vm.Addr, "127.0.0.1:0"
	require.Contains(t, proxyArgs, "-v", "the README's proxy logs its stops")

	jdbArgs := strings.Fields(lineStarting(t, lines, "jdb "))
	require.Equal(t, []string{"-attach", listen}, jdbArgs, "jdb attaches to the proxy's -listen address")

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, proxyArgs) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	ready := regexp.MustCompile(`proxy ready"? listen=(\S+)`)
	var proxyAddr string
	require.Eventually(t, func() bool {
		m := ready.FindStringSubmatch(log.String())
		if m != nil {
			proxyAddr = m[1]
		}
		return m != nil
	}, 30*time.Second, time.Millisecond)

	transcript, _ := jvmtest.RunJdb(t, proxyAddr, jvmtest.DriverOptions{Stops: 1})
	stop := fmt.Sprintf("Debuggee.marker(), line=%d", jvmtest.Line("Debuggee.java", "marker"))
	require.Contains(t, transcript, "Breakpoint hit: \"thread=main\", "+stop)
	want := fmt.Sprintf("stop at=Debuggee.marker:%d thread=main ", jvmtest.Line("Debuggee.java", "marker"))
	require.Eventually(t, func() bool { return strings.Contains(log.String(), want) }, 30*time.Second, time.Millisecond,
		"-v logs the breakpoint stop in source terms: %s", log.String())
}
