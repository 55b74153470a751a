package jvmtest

import (
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// jdbPrompt is the prompt jdb prints, after each command's output, while
// the main thread is stopped.
const jdbPrompt = "main[1] "

// jdbGuard bounds how long one jdb command may take before the session is
// failed (a hung session must not hang the test binary); it is not a means
// of synchronisation: every step waits for jdb's prompt.
const jdbGuard = 2 * time.Minute

// runningPrompts matches the prompt jdb prints when the program runs on,
// at a line's start or after the stopped prompt: jdb prints it from the
// thread that resumes the program, while the thread that prints events may
// be writing, so where it lands differs from one session to the next.
var runningPrompts = regexp.MustCompile(`(?m)(^|main\[1\] )> `)

// objectIDs matches the object ids jdb prints ("(id=533)"), which depend on
// how many objects the VM showed any debugger before: a proxy that asks
// ahead may be shown them in another order.
var objectIDs = regexp.MustCompile(`id=\d+`)

// threadLines matches a line of jdb's threads command: the thread's type
// and object id, its name and status, in columns as wide as the longest.
var threadLines = regexp.MustCompile(`(?m)^  \(([^)]+)\)\d+ +(.*?) +(running|sleeping|cond\. waiting|waiting in a monitor|zombie|not started|unknown)( \(at breakpoint\))?$`)

// threadLine is a line of the threads command as a transcript keeps it:
// without the object id (see objectIDs), columns of one space, and the
// debuggee's worker's status, which is where the suspension caught it
// (between its one-millisecond sleeps or in one), as "-".
func threadLine(line string) string {
	m := threadLines.FindStringSubmatch(line)
	if m[2] == "worker" {
		m[3] = "-"
	}
	return fmt.Sprintf("  (%s) %s %s%s", m[1], m[2], m[3], m[4])
}

// jdbSession is a running jdb whose output is collected as it comes.
type jdbSession struct {
	t   testing.TB
	cmd *exec.Cmd
	in  io.WriteCloser

	mu      sync.Mutex
	out     strings.Builder
	changed chan struct{} // closed and replaced whenever output arrives or jdb exits
	exited  bool

	resumed []span // the output of each command that let the program run, and of the first one (setBreakpoint)
}

// span is a range of a jdb session's output, [start, end).
type span struct{ start, end int }

// stopEvents matches the lines jdb prints when the program stops again
// after a command let it run.
var stopEvents = regexp.MustCompile(`(Breakpoint hit|Step completed):|Exception occurred: |Field \(`)

// RunJdb runs the JDK's command-line debugger, jdb, against addr as a user
// at a terminal would: it stops at the line of Debuggee tagged LINE:marker
// and, at each of o.Stops stops, lists the stack (where), the locals,
// dumps this (its fields' values), steps over twice with the locals after
// each step, and continues (with o.JdbInspect it also prints this and a
// field, dumps a map and lists the threads); after the last stop it clears the breakpoint
// and lets the program end. Each command is typed when jdb's prompt says
// the previous one is done. It returns the transcript (object ids
// replaced by "id=N", from the first prompt on, without the running
// prompts) and the wall time from jdb's first prompt to its
// exit. Of DriverOptions only Stops, JdbInspect and Events apply: with
// Events jdb also catches the exception Debuggee.marker throws and
// watches Debuggee.counter, and at each of those stops in the round it
// types where and locals.
func RunJdb(t testing.TB, addr string, o DriverOptions) (string, time.Duration) {
	t.Helper()
	Compile(t)
	if _, err := exec.LookPath("jdb"); err != nil {
		t.Fatalf("jdb not found: run the README's test command (make test), which installs OpenJDK 17")
	}
	s := &jdbSession{t: t, changed: make(chan struct{})}
	s.cmd = exec.Command("jdb", "-J-XX:+UseSerialGC", "-J-XX:TieredStopAtLevel=1", noPerfData("-J"), "-attach", addr)
	in, err := s.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.in = in
	outR, outW := io.Pipe()
	s.cmd.Stdout, s.cmd.Stderr = outW, outW
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("starting jdb: %v", err)
	}
	waited := make(chan struct{})
	go func() {
		_ = s.cmd.Wait()
		outW.Close()
		close(waited)
	}()
	t.Cleanup(func() {
		_ = s.cmd.Process.Kill()
		<-waited
	})
	go s.collect(outR)

	s.awaitPrompts(1) // "VM Started", the main thread suspended
	start := time.Now()
	line := Line("Debuggee.java", "marker")
	s.setBreakpoint(fmt.Sprintf("stop at Debuggee:%d", line))
	if o.Events {
		s.do("catch caught java.lang.IllegalStateException")
		s.do("watch Debuggee.counter")
	}
	for stop := 1; stop <= o.Stops; stop++ {
		s.resume("cont")
		commands := []string{"where", "locals", "dump this", "next", "locals", "next", "locals"}
		if o.JdbInspect {
			commands = []string{"where", "locals", "print this", "print counter", "dump this", "dump seen",
				"threads", "next", "locals", "next", "locals"}
		}
		if o.Events {
			// The round goes on to the watchpoint (counter written), the
			// exception thrown and caught, the watchpoint again, and main
			// adding the round's counter up: each a stop.
			for range 4 {
				commands = append(commands, "cont", "where", "locals")
			}
		}
		for _, c := range commands {
			if c == "next" || c == "cont" {
				s.resume(c)
			} else {
				s.do(c)
			}
		}
	}
	if o.Events {
		s.do("ignore caught java.lang.IllegalStateException")
		s.do("unwatch Debuggee.counter")
	}
	s.do(fmt.Sprintf("clear Debuggee:%d", line))
	s.enter("cont")
	s.awaitExit()
	elapsed := time.Since(start)
	text := s.transcript()
	if !strings.Contains(text, "The application exited") {
		t.Fatalf("jdb: the program did not end as expected:\n%s", text)
	}
	text = fromFirstPrompt(text)
	text = runningPrompts.ReplaceAllString(text, "$1")
	text = threadLines.ReplaceAllStringFunc(text, threadLine)
	return objectIDs.ReplaceAllString(text, "id=N"), elapsed
}

// fromFirstPrompt returns jdb's output from its first stopped prompt on:
// before it, jdb's start-up messages come from two of its threads in
// either order, and so may a second stopped prompt (the event thread's at
// the VM's start, and the typing thread's) right behind the first: both go.
func fromFirstPrompt(text string) string {
	_, text, _ = strings.Cut(text, jdbPrompt)
	for strings.HasPrefix(text, jdbPrompt) {
		text = text[len(jdbPrompt):]
	}
	return text
}

// transcript is the session's output with the output of each command that
// let the program run in one order: the stop event, then the stopped
// prompt. jdb prints a prompt from the thread that typed the command once
// the VM has resumed, and the stop event with its own prompt from the
// thread that handles events; when the program stops again before the
// first thread prints, that prompt is a stopped one and lands before,
// inside or after the event's lines, a race of jdb's own that no debugger
// or proxy decides.
func (s *jdbSession) transcript() string {
	s.mu.Lock()
	out := s.out.String()
	s.mu.Unlock()
	var text strings.Builder
	at := 0
	for _, r := range s.resumed {
		text.WriteString(out[at:r.start])
		text.WriteString(settled(out[r.start:r.end]))
		at = r.end
	}
	text.WriteString(out[at:])
	return text.String()
}

// settled is the output of a command that let the program run, in the
// order of a session where the typing thread's prompt came first: the
// event's lines, then one stopped prompt.
func settled(seg string) string {
	seg = runningPrompts.ReplaceAllString(seg, "$1")
	return strings.ReplaceAll(seg, jdbPrompt, "") + jdbPrompt
}

// collect appends jdb's output as it arrives.
func (s *jdbSession) collect(r io.Reader) {
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		s.mu.Lock()
		s.out.Write(buf[:n])
		if err != nil {
			s.exited = true
		}
		close(s.changed)
		s.changed = make(chan struct{})
		s.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// do types a command and waits for the prompt that follows its output.
func (s *jdbSession) do(command string) {
	s.t.Helper()
	s.mu.Lock()
	prompts := strings.Count(s.out.String(), jdbPrompt)
	s.mu.Unlock()
	s.enter(command)
	s.awaitPrompts(prompts + 1)
}

// breakpointSet matches what jdb prints once a stop command is done: the
// breakpoint set, or deferred until its class loads.
var breakpointSet = regexp.MustCompile(`(?m)^(Set breakpoint .*|It will be set after the class is loaded\.)$`)

// setBreakpoint types the first command, a stop command, whose output
// races the last of jdb's start-up prompts (printed before or after it),
// and waits for the command's own prompt: the span is kept in one order,
// as a resumed command's (see transcript).
func (s *jdbSession) setBreakpoint(command string) {
	s.t.Helper()
	s.mu.Lock()
	start := s.out.Len()
	s.mu.Unlock()
	s.enter(command)
	end := start
	s.await(func(out string, exited bool) bool {
		if exited {
			s.t.Fatalf("jdb exited while %q was pending:\n%s", command, out)
		}
		end = len(out)
		return promptedAfterBreakpointSet(out[start:])
	})
	s.resumed = append(s.resumed, span{start, end})
}

// promptedAfterBreakpointSet reports whether a stop command's output seg
// is whole: the breakpoint set or deferred, then the command's prompt. A
// start-up prompt that lands before the output does not count, or the
// command's own prompt would fall outside the span, beside the next one
// (CI saw "main[1] main[1] Set deferred breakpoint" so).
func promptedAfterBreakpointSet(seg string) bool {
	set := breakpointSet.FindStringIndex(seg)
	return set != nil && strings.Contains(seg[set[1]:], jdbPrompt)
}

// resume types a command that lets the program run until it stops again
// (cont, next) and waits until jdb has printed both the stop event with
// its prompt and the prompt of the thread that typed the command (see
// transcript).
func (s *jdbSession) resume(command string) {
	s.t.Helper()
	s.mu.Lock()
	start := s.out.Len()
	s.mu.Unlock()
	s.enter(command)
	end := start
	s.await(func(out string, exited bool) bool {
		if exited {
			s.t.Fatalf("jdb exited while %q was pending:\n%s", command, out)
		}
		seg := out[start:]
		event := stopEvents.FindStringIndex(seg)
		if event == nil || strings.LastIndex(seg, jdbPrompt) < event[1] {
			return false
		}
		prompts := strings.Count(seg, jdbPrompt) + len(runningPrompts.FindAllStringIndex(seg, -1))
		end = len(out)
		return prompts >= 2
	})
	s.resumed = append(s.resumed, span{start, end})
}

// enter types one command line to jdb.
func (s *jdbSession) enter(command string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, command+"\n"); err != nil {
		s.t.Fatalf("jdb: typing %q: %v", command, err)
	}
}

// awaitPrompts waits until jdb has printed n prompts in all.
func (s *jdbSession) awaitPrompts(n int) {
	s.t.Helper()
	s.await(func(out string, exited bool) bool {
		if exited {
			s.t.Fatalf("jdb exited while a command was pending:\n%s", out)
		}
		return strings.Count(out, jdbPrompt) >= n
	})
}

// awaitExit waits until jdb has exited (its output closed).
func (s *jdbSession) awaitExit() {
	s.t.Helper()
	s.await(func(_ string, exited bool) bool { return exited })
}

// await waits until done holds of the output so far, within jdbGuard.
func (s *jdbSession) await(done func(out string, exited bool) bool) {
	s.t.Helper()
	guard := time.After(jdbGuard)
	for {
		s.mu.Lock()
		out, exited, changed := s.out.String(), s.exited, s.changed
		s.mu.Unlock()
		if done(out, exited) {
			return
		}
		select {
		case <-changed:
		case <-guard:
			s.t.Fatalf("jdb: no progress within %v:\n%s", jdbGuard, out)
		}
	}
}
