package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jdwpscache/scache/adb"
	"github.com/jdwpscache/scache/adb/adbtest"
	"github.com/jdwpscache/scache/ddm"
	"github.com/jdwpscache/scache/ddm/ddmtest"
	"github.com/jdwpscache/scache/internal/adbservertest"
	"github.com/jdwpscache/scache/internal/jvmtest"
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

// The README's Quick start has exactly the two commands of a fresh
// machine: the main job and the test command, which .ci/run runs.
func TestTheREADMEsQuickStart(t *testing.T) {
	lines := readmeCommands(t, "## Quick start")
	require.Len(t, lines, 2)
	require.True(t, strings.HasPrefix(lines[0], "go run ./benchmarks/replay "), lines[0])
	require.True(t, strings.HasPrefix(lines[1], "make test "), lines[1])
	ci, err := os.ReadFile("../../.ci/run")
	require.NoError(t, err)
	require.Regexp(t, `(?m)^make test$`, string(ci), ".ci/run calls the README's test command")
}

// The README's "Debug through it" commands, run as written with the
// installed scache: the JVM with its agent option, the proxy with its
// flags, jdb attached to the proxy's address. Only what a test must change
// is changed: the ports (free ones in place of 5005 and 8700) and the
// program (the test's debuggee in place of "-cp out Main"). The stop line
// -v prints names the stop in source terms.
func TestTheREADMEsDebugCommandsWork(t *testing.T) {
	lines := readmeCommands(t, "## Debug through it")
	require.Len(t, lines, 3, "three commands: the JVM, the proxy, jdb")

	javaArgs := strings.Fields(lineStarting(t, lines, "java "))
	agent := javaArgs[0]
	require.True(t, strings.HasPrefix(agent, "-agentlib:jdwp="), "the JVM line starts with the agent option: %q", javaArgs)
	vmAddr := regexp.MustCompile(`address=([\d.]+:\d+)`).FindStringSubmatch(agent)
	require.NotNil(t, vmAddr, "the agent listens on an address: %s", agent)
	require.True(t, strings.HasPrefix(vmAddr[1], "127.0.0.1:"), "on loopback: %s", agent)
	vm := jvmtest.StartWithAgent(t, strings.Replace(agent, vmAddr[0], "address=127.0.0.1:0", 1), "Debuggee", "1")

	proxyArgs := strings.Fields(lineStarting(t, lines, "scache proxy "))
	dialed, vmAt := flagValue(t, proxyArgs, "-vm")
	require.Equal(t, vmAddr[1], dialed, "the proxy dials the address the agent listens on")
	listen, _ := flagValue(t, proxyArgs, "-listen")
	proxyArgs[vmAt] = vm.Addr
	require.Contains(t, proxyArgs, "-v", "the README's proxy logs its stops")

	jdbArgs := strings.Fields(lineStarting(t, lines, "jdb "))
	require.Equal(t, []string{"-attach", listen}, jdbArgs, "jdb attaches to the proxy's -listen address")

	proxyAddr, log := startProxy(t, nil, proxyArgs...) // a free port in place of -listen's
	transcript, _ := jvmtest.RunJdb(t, proxyAddr, jvmtest.DriverOptions{Stops: 1})
	stop := fmt.Sprintf("Debuggee.marker(), line=%d", jvmtest.Line("Debuggee.java", "marker"))
	require.Contains(t, transcript, "Breakpoint hit: \"thread=main\", "+stop)
	want := fmt.Sprintf("stop at=Debuggee.marker:%d thread=main ", jvmtest.Line("Debuggee.java", "marker"))
	require.Eventually(t, func() bool { return strings.Contains(log.String(), want) }, 30*time.Second, time.Millisecond,
		"-v logs the breakpoint stop in source terms: %s", log.String())
}

// The README's Android commands, run as written with the installed scache
// against a real adb server (on a private port, given as a user would, in
// ANDROID_ADB_SERVER_PORT) and an emulated device whose app runs a real
// JVM: -list names the app, and a JDI session through -app equals a direct
// one. Only the listen port is changed.
func TestTheREADMEsAndroidCommandsWork(t *testing.T) {
	lines := readmeCommands(t, "## Android")
	require.Len(t, lines, 2, "-list, then -app")
	listArgs := strings.Fields(lineStarting(t, lines, "scache "))
	require.Equal(t, []string{"proxy", "-list"}, listArgs)
	appArgs := strings.Fields(lineStarting(t, lines, "scache proxy -app "))
	app := appArgs[0]

	opts := jvmtest.DriverOptions{Stops: 2}
	direct, _ := jvmtest.RunDriver(t, jvmtest.Start(t, "Debuggee", "2").Addr, opts)
	server := adbservertest.Start(t)
	dev, err := adbtest.Start(adbtest.Config{Product: "p", Model: "m", Device: "d", Features: []string{adb.FeatureTrackApp, adb.FeatureAppInfo}})
	require.NoError(t, err)
	t.Cleanup(func() { dev.Close() })
	server.Connect(t, dev)
	vm := jvmtest.Start(t, "Debuggee", "2")
	dev.AddApp(adbtest.Process{PID: 4242, Addr: vm.Addr, Name: app, Architecture: "x86_64"})
	env := []string{"ANDROID_ADB_SERVER_PORT=" + server.Port}

	var out string
	require.Eventually(t, func() bool {
		var code int
		code, out, _ = scache(t, env, listArgs...)
		return code == 0 && strings.Contains(out, "4242  "+app+"  debuggable  x86_64")
	}, 30*time.Second, 50*time.Millisecond, "-list names the app: %q", out)

	addr, log := startProxy(t, env, append([]string{"-app"}, appArgs...)...)
	got, _ := jvmtest.RunDriver(t, addr, opts)
	require.Equal(t, direct, got)
	require.Contains(t, log.String(), app+" runs as pid 4242")
	require.Contains(t, log.String(), "msg=stop ", "-v logs the stops")
}

// scache threads prints a DDM-aware VM's threads, and refuses a VM that
// is not one.
func TestInstalledThreads(t *testing.T) {
	vm, err := ddmtest.Start(ddmtest.Config{PID: 1, VMIdent: "FakeVM", AppName: "app",
		Threads: []ddmtest.Thread{{ID: 1, Name: "main", Status: ddm.StateRunning}, {ID: 5, Name: "RenderThread", Status: ddm.StateNative}}})
	require.NoError(t, err)
	defer vm.Close()
	code, out, errOut := scache(t, nil, "threads", "-vm", vm.Addr, "-interval", "5ms", "-updates", "2")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "RenderThread")
	require.Contains(t, out, "native")

	hotspot := jvmtest.Start(t, "Debuggee", "1")
	code, _, errOut = scache(t, nil, "threads", "-vm", hotspot.Addr)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "is not DDM-aware")
}
