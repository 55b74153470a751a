// Package jvmtest starts real Java VMs with the JDWP agent for tests: it
// compiles the Java sources shipped in java/ with javac, starts
// `java -agentlib:jdwp=transport=dt_socket,server=y,suspend=y,address=127.0.0.1:0`,
// reads the port the agent prints, and stops the VM when the test ends.
//
// The README's test command installs a JDK 17 when it is missing, so these
// tests run everywhere; Require fails (not skips) a test when java is absent.
package jvmtest

import (
	"bufio"
	"embed"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

//go:embed java/*.java java/v2/*.java
var sources embed.FS

// Source returns the text of a shipped Java source file, such as "Debuggee.java".
func Source(name string) string {
	b, err := sources.ReadFile("java/" + name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// Line returns the 1-based line of the source file tagged "// LINE:tag".
func Line(file, tag string) int {
	for i, l := range strings.Split(Source(file), "\n") {
		if strings.HasSuffix(strings.TrimSpace(l), "// LINE:"+tag) {
			return i + 1
		}
	}
	panic(fmt.Sprintf("jvmtest: no line tagged %q in %s", tag, file))
}

// Require fails the test if the JDK tools are missing.
func Require(t testing.TB) {
	t.Helper()
	for _, tool := range []string{"java", "javac"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not found: run the README's test command (make test), which installs OpenJDK 17", tool)
		}
	}
}

// noPerfData is the JVM flag that keeps a JVM from writing its performance
// counters to the temp dir (hsperfdata_USER/PID, left behind by every JVM a
// test kills), behind prefix: "-J" for the JDK's tools (javac, jdb), ""
// for java.
func noPerfData(prefix string) string { return prefix + "-XX:-UsePerfData" }

// Main runs a package's tests (call it from TestMain: os.Exit(jvmtest.Main(m)))
// and then removes the classes Compile made, so that a test run leaves the
// temp dir as it found it.
func Main(m *testing.M) int {
	code := m.Run()
	if madeDir != "" {
		if err := os.RemoveAll(madeDir); err != nil {
			fmt.Fprintf(os.Stderr, "jvmtest: removing the compiled classes: %v\n", err)
			return max(code, 1)
		}
	}
	return code
}

var (
	compileOnce sync.Once
	classDir    string
	madeDir     string // the folder Compile made, whether or not compiling succeeded
	compileErr  error
)

// Compile compiles every shipped Java source once per test binary and returns
// the directory of the classes.
func Compile(t testing.TB) string {
	t.Helper()
	Require(t)
	compileOnce.Do(func() {
		dir, err := os.MkdirTemp("", "jvmtest-classes-")
		if err != nil {
			compileErr = err
			return
		}
		madeDir = dir
		entries, _ := sources.ReadDir("java")
		var files []string
		for _, e := range entries {
			if e.IsDir() {
				continue
			}
			b, _ := sources.ReadFile("java/" + e.Name())
			p := filepath.Join(dir, e.Name())
			if err := os.WriteFile(p, b, 0o644); err != nil {
				compileErr = err
				return
			}
			files = append(files, p)
		}
		args := append([]string{noPerfData("-J"), "-g", "-d", dir}, files...)
		out, err := exec.Command("javac", args...).CombinedOutput()
		if err != nil {
			compileErr = fmt.Errorf("javac: %v\n%s", err, out)
			return
		}
		// The second version of Swappable, for hot swap, into v2/.
		v2 := filepath.Join(dir, "v2")
		b, _ := sources.ReadFile("java/v2/Swappable.java")
		if err := os.MkdirAll(v2, 0o755); err != nil {
			compileErr = err
			return
		}
		src := filepath.Join(v2, "Swappable.java")
		if err := os.WriteFile(src, b, 0o644); err != nil {
			compileErr = err
			return
		}
		out, err = exec.Command("javac", noPerfData("-J"), "-g", "-cp", dir, "-d", v2, src).CombinedOutput()
		if err != nil {
			compileErr = fmt.Errorf("javac v2: %v\n%s", err, out)
			return
		}
		classDir = dir
	})
	if compileErr != nil {
		t.Fatal(compileErr)
	}
	return classDir
}

// A VM is a running JVM with the JDWP agent listening on Addr.
type VM struct {
	Addr string // 127.0.0.1:port of the JDWP agent
	cmd  *exec.Cmd

	mu     sync.Mutex
	output strings.Builder
	exited chan struct{}
	// printed is closed and replaced at each line the VM prints and when
	// it exits (under mu): waitOutput waits on it.
	printed chan struct{}
}

// waitOutput reports whether the VM printed s within timeout (false as
// soon as it exited without).
func (vm *VM) waitOutput(s string, timeout time.Duration) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		vm.mu.Lock()
		found, printed := strings.Contains(vm.output.String(), s), vm.printed
		vm.mu.Unlock()
		if found {
			return true
		}
		select {
		case <-printed:
		case <-vm.exited:
			return strings.Contains(vm.Output(), s)
		case <-deadline.C:
			return false
		}
	}
}

// Output returns what the VM printed so far (stdout and stderr).
func (vm *VM) Output() string {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	return vm.output.String()
}

// Wait waits up to d for the VM to exit by itself and reports whether it did.
func (vm *VM) Wait(d time.Duration) bool {
	select {
	case <-vm.exited:
		return true
	case <-time.After(d):
		return false
	}
}

// ListeningAddr returns where the VM's JDWP agent listens now: HotSpot's
// agent (server=y) listens again after a debugger detaches, on a new port
// when the first was chosen by the system (address=127.0.0.1:0).
func (vm *VM) ListeningAddr() string {
	out := vm.Output()
	if i := strings.LastIndex(out, listeningMarker); i >= 0 {
		line, _, _ := strings.Cut(out[i:], "\n")
		if a, ok := agentAddr(line); ok {
			return a
		}
	}
	return vm.Addr
}

// listeningMarker opens the line the JDWP agent prints when it listens.
const listeningMarker = "Listening for transport dt_socket at address: "

// agentAddr returns the address an output line of the agent says it listens
// at ("…address: 5005" is 127.0.0.1:5005), if the line says so.
func agentAddr(line string) (string, bool) {
	i := strings.Index(line, listeningMarker)
	if i < 0 {
		return "", false
	}
	a := strings.TrimSpace(line[i+len(listeningMarker):])
	if !strings.Contains(a, ":") {
		a = "127.0.0.1:" + a
	}
	return a, true
}

// Kill kills the VM, as a process that dies does, and waits until it is gone.
func (vm *VM) Kill() {
	_ = vm.cmd.Process.Kill()
	<-vm.exited
}

// Start compiles the shipped sources and starts `java mainClass args...` with
// the JDWP agent suspended until a debugger attaches. The VM is killed when
// the test ends.
func Start(t testing.TB, mainClass string, args ...string) *VM {
	t.Helper()
	return StartWithAgent(t, "-agentlib:jdwp=transport=dt_socket,server=y,suspend=y,address=127.0.0.1:0", mainClass, args...)
}

// StartWithAgent is Start with the JDWP agent's option given (a README's
// command line, say): it must listen (server=y) and print its address.
func StartWithAgent(t testing.TB, agent, mainClass string, args ...string) *VM {
	t.Helper()
	dir := Compile(t)
	jargs := append([]string{
		agent,
		"-Xshare:auto", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", noPerfData(""),
		"-cp", dir, mainClass}, args...)
	cmd := exec.Command(DebuggeeJava(), jargs...)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting java: %v", err)
	}
	vm := &VM{cmd: cmd, exited: make(chan struct{}), printed: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		pw.Close()
		close(vm.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-vm.exited
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			vm.mu.Lock()
			vm.output.WriteString(line + "\n")
			close(vm.printed)
			vm.printed = make(chan struct{})
			vm.mu.Unlock()
			if a, ok := agentAddr(line); ok && !sent {
				addr <- a
				sent = true
			}
		}
		if !sent {
			close(addr)
		}
	}()
	select {
	case a, ok := <-addr:
		if !ok {
			t.Fatalf("java exited before the JDWP agent listened:\n%s", vm.Output())
		}
		vm.Addr = a
	case <-time.After(60 * time.Second):
		t.Fatalf("the JDWP agent did not print its address within 60s:\n%s", vm.Output())
	}
	return vm
}

// DebuggeeJavaHome names the environment variable that chooses the JDK
// whose java runs the debugged VMs (Start): the benchmarks on a newer VM
// set it (JVMTEST_DEBUGGEE_JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64).
// Unset, the java on PATH runs them. The debuggers (jdb, the JDI driver)
// and javac always come from PATH: the classes are built for Java 17.
const DebuggeeJavaHome = "JVMTEST_DEBUGGEE_JAVA_HOME"

// DebuggeeJava returns the java command that runs the debugged VMs.
func DebuggeeJava() string {
	if home := os.Getenv(DebuggeeJavaHome); home != "" {
		return filepath.Join(home, "bin", "java")
	}
	return "java"
}

// HotSwapClassFile returns the path of the second version of Swappable.class.
func HotSwapClassFile(t testing.TB) string {
	return filepath.Join(Compile(t), "v2", "Swappable.class")
}

// DriverOptions choose what the JDI driver does.
type DriverOptions struct {
	Stops    int  // breakpoint stops (the debuggee must run at least that many rounds)
	HotSwap  bool // redefine Swappable after the first stop
	SetValue bool // change a local with setValue at each stop and read it back
	// EventThread stops with suspend policy EVENT_THREAD: the debuggee's
	// worker thread keeps running during stops.
	EventThread bool
	// Extras expands `this` at every stop and step as an IDE's variables
	// view does: its class's source, superclass and interfaces, and the
	// value of each field (arrays with their length).
	Extras bool
	// Exit ends the session with vm.exit(7) instead of dispose.
	Exit bool
	// Threads, when not 0, has the debuggee run its rounds on that many
	// app threads taking turns (app-0, app-1, ...: see DebuggeeArgs), so
	// that successive stops are in different threads, and the driver's
	// threads view also reads every other suspended thread's top frame,
	// as an IDE's does.
	Threads int
	// Together, with Threads, has the app threads run their rounds at once
	// instead of in turns, under suspend policy EVENT_THREAD (implied): at
	// each stop the driver shows the threads view, the other suspended
	// threads' top frames included, and resumes the stopped thread alone,
	// without steps, so that several threads are suspended at their own
	// breakpoints while others run, as an IDE's threads view sees them
	// under suspend-thread breakpoints. The stops go in the transcript
	// sorted: the threads reach them in any order.
	Together bool
	// Renderers shows this and the objects among the locals at every stop
	// and step as an IDE's default renderers do: toString() and size()
	// invoked in the stopped thread, then the top frame read again. The
	// debuggee's toString changes the object it renders.
	Renderers bool
	// Jdb drives the session with the JDK's jdb instead of the JDI driver
	// (see RunJdb); of the other options only Stops, JdbInspect and Events apply.
	Jdb bool
	// JdbInspect has jdb, at each breakpoint, also print this (toString
	// invoked) and a field, dump this and the map it holds, and list the
	// threads, as a user inspecting at a jdb prompt does.
	JdbInspect bool
	// Eclipse drives the session with Eclipse's JDI (the Eclipse IDE's
	// and VS Code's) instead of the JDK's (clients.go).
	Eclipse bool
	// Parallel, when not 0, has the driver inspect each stop in concurrent
	// waves of that many threads, as an async IDE does (clients.go).
	Parallel int
	// Deep, when not 0, has the driver show at every breakpoint stop this
	// and the visible variables of that many frames below the top, as a
	// user walking up a deep stack does (the debuggee's is 40 frames deep,
	// a static frame right below the top).
	Deep int
	// Classes, when not 0, runs the session on a VM that has loaded that
	// many generated classes when the debugger attaches (StartFor,
	// StartLoaded), and BigAttach has the driver attach to it as an IDE
	// does to a running app: every class listed, then breakpoints in
	// BigAttach of the generated classes and at the marker.
	Classes, BigAttach int
	// Events has the driver also stop where an IDE's other kinds of
	// breakpoint stop, each a few times: a watchpoint on a field written
	// (Debuggee.counter), an exception breakpoint (the exception marker
	// throws and catches), method exits with their return values
	// (Debuggee.Square's), showing the event and the top frame at each.
	Events bool
	// Conditional makes the breakpoint a conditional one, as an IDE
	// evaluates it: at each hit the driver reads the top frame's n, and
	// only every ConditionalEvery-th hit is a stop it shows; it resumes
	// the others at once. Stops counts the stops shown: the debuggee runs
	// ConditionalEvery rounds for each (DebuggeeArgs).
	Conditional bool
	// DropFrame has the driver drop the top frame at each breakpoint stop
	// before its steps, as an IDE's "Drop Frame" (StackFrame.PopFrames),
	// and show the new top frame (the caller, at the call); its steps then
	// go into the call again, over and out.
	DropFrame bool
	// SuspendOther has the driver suspend the running thread "worker" at
	// each breakpoint stop as a user does from the threads view, show
	// whether it is suspended, its suspend count and its bottom frame, and
	// resume it (with EventThread the worker runs through the stop). With
	// Together it shows the stopped thread's suspend count at every stop
	// and suspends the worker at every second stop of each app thread.
	SuspendOther bool
	// Pause has the driver pause the whole VM at each breakpoint stop as
	// a user presses an IDE's Pause (VirtualMachine.Suspend; with
	// EventThread the other threads ran through the stop until then), read
	// the threads view as the IDE refreshes it (each thread's name,
	// status, suspension and depth), show whether every thread is
	// suspended and the bottom frames of main and worker, and resume the
	// VM (the stopped thread stays suspended by its event). With Together
	// it pauses at every third stop of each app thread, while the others
	// are parked at their own stops or running.
	Pause bool
	// Arrays has the driver show, at every stop and step, this's arrays
	// expanded as an IDE's variables view shows them: this's fields, the
	// elements of its int[] recent (then its first element set one higher,
	// as a user edits it in the view, and the elements again), and its
	// list shapes' raw view (the list's fields, then the elements of its
	// backing array, each object by its type).
	Arrays bool
}

// ConditionalEvery is how many hits of a conditional breakpoint
// (DriverOptions.Conditional) make one stop the driver shows.
const ConditionalEvery = 3

// StartFor starts the VM the options' session runs on: a Debuggee started
// suspended for its rounds (Start), or with Classes one that has loaded
// them (StartLoaded).
func StartFor(t testing.TB, o DriverOptions) *VM {
	t.Helper()
	if o.Classes > 0 {
		return StartLoaded(t, o.Classes)
	}
	return Start(t, "Debuggee", o.DebuggeeArgs(o.Stops)...)
}

// DebuggeeArgs returns the arguments of a Debuggee that runs the given
// rounds as the options need: Start(t, "Debuggee", o.DebuggeeArgs(3)...).
func (o DriverOptions) DebuggeeArgs(rounds int) []string {
	if o.Conditional {
		rounds *= ConditionalEvery
	}
	args := []string{fmt.Sprint(rounds)}
	if o.Threads > 0 {
		args = append(args, fmt.Sprintf("threads=%d", o.Threads))
	}
	if o.Together {
		args = append(args, "together")
	}
	return args
}

// RunDriver runs the JDI driver against addr and returns its transcript
// (without the timing lines) and the session's wall time as the driver measured it.
func RunDriver(t testing.TB, addr string, o DriverOptions) (string, time.Duration) {
	t.Helper()
	r := RunDriverTimed(t, addr, o)
	return r.Transcript, r.Elapsed
}

// DriverRun is what one run of the JDI driver printed: its transcript and
// the times it measured.
type DriverRun struct {
	// Transcript is what the debugger saw, without the timing lines.
	Transcript string
	// Elapsed is the session's wall time, from attach to dispose.
	Elapsed time.Duration
	// Attach is the time from attach until the debugger's breakpoint was
	// set, as an IDE's attach ends (0 for jdb, which does not report it).
	Attach time.Duration
}

// RunDriverTimed runs the JDI driver against addr as RunDriver does and
// returns its transcript with both times it measured.
func RunDriverTimed(t testing.TB, addr string, o DriverOptions) DriverRun {
	t.Helper()
	if o.Jdb {
		transcript, elapsed := RunJdb(t, addr, o)
		return DriverRun{Transcript: transcript, Elapsed: elapsed}
	}
	cp := driverClassPath(t, o)
	host, port, ok := strings.Cut(addr, ":")
	if !ok {
		t.Fatalf("bad address %q", addr)
	}
	args := []string{"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", noPerfData(""), "-cp", cp, "JdiDriver",
		host, port, fmt.Sprint(o.Stops), fmt.Sprint(Line("Debuggee.java", "marker"))}
	if o.HotSwap {
		args = append(args, "hotswap="+HotSwapClassFile(t))
	}
	if o.SetValue {
		args = append(args, "setvalue")
	}
	if o.EventThread || o.Together {
		args = append(args, "eventthread")
	}
	if o.Together {
		args = append(args, "together")
	}
	if o.Extras {
		args = append(args, "extras")
	}
	if o.Threads > 0 {
		args = append(args, "topframes")
	}
	if o.Renderers {
		args = append(args, "renderers")
	}
	if o.Exit {
		args = append(args, "exit")
	}
	if o.Eclipse {
		args = append(args, "eclipse")
	}
	if o.Parallel > 0 {
		args = append(args, fmt.Sprintf("parallel=%d", o.Parallel))
	}
	if o.Deep > 0 {
		args = append(args, fmt.Sprintf("deep=%d", o.Deep))
	}
	if o.BigAttach > 0 {
		args = append(args, fmt.Sprintf("bigattach=%d:%d", o.BigAttach, GeneratedLine))
	}
	if o.Events {
		args = append(args, "events")
	}
	if o.Conditional {
		args = append(args, "conditional")
	}
	if o.DropFrame {
		args = append(args, "dropframe")
	}
	if o.SuspendOther {
		args = append(args, "suspendother")
	}
	if o.Pause {
		args = append(args, "pause")
	}
	if o.Arrays {
		args = append(args, "arrays")
	}
	cmd := exec.Command("java", args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("JDI driver: %v\n%s", err, out)
	}
	text := string(out)
	i := strings.LastIndex(text, "elapsed_ns ")
	if i < 0 {
		t.Fatalf("JDI driver printed no timing:\n%s", text)
	}
	var elapsed, attach int64
	if _, err := fmt.Sscanf(text[i:], "elapsed_ns %d\nattach_ns %d", &elapsed, &attach); err != nil {
		t.Fatalf("JDI driver's timing lines: %v\n%s", err, text[i:])
	}
	return DriverRun{Transcript: text[:i], Elapsed: time.Duration(elapsed), Attach: time.Duration(attach)}
}

// RunLister runs the ThreadLister JDI client against addr for the given
// rounds (100 ms apart) and returns what it printed.
func RunLister(t testing.TB, addr string, rounds int) (string, error) {
	dir := Compile(t)
	host, port, _ := strings.Cut(addr, ":")
	out, err := exec.Command("java", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", noPerfData(""), "-cp", dir, "ThreadLister",
		host, port, fmt.Sprint(rounds)).CombinedOutput()
	return string(out), err
}
