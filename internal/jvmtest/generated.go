package jvmtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Generated classes: an app's worth of small classes (gen.G0, gen.G1,
// ...), for a big attach: a debugger attaching to a VM that has loaded
// tens of thousands of classes, as an IDE attaches to an Android app
// (DriverOptions.Classes, StartLoaded).

// GeneratedLine is the line of each generated class's method f that a
// breakpoint stops at.
const GeneratedLine = 4

var (
	generatedMu   sync.Mutex
	generatedDirs = map[int]string{}
)

// GeneratedClasses compiles, once per test binary, n generated classes into
// a folder of Compile's (removed with it) and returns that folder. Each
// class gen.G<i> has one static method f, over a few lines.
func GeneratedClasses(t testing.TB, n int) string {
	t.Helper()
	base := Compile(t)
	generatedMu.Lock()
	defer generatedMu.Unlock()
	if dir, ok := generatedDirs[n]; ok {
		return dir
	}
	dir := filepath.Join(base, fmt.Sprintf("generated-%d", n))
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(filepath.Join(src, "gen"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := make([]string, n)
	for i := range n {
		files[i] = filepath.Join(src, "gen", fmt.Sprintf("G%d.java", i))
		text := fmt.Sprintf("package gen;\npublic class G%d {\n    public static int f(int x) {\n        int y = x + %d;\n        return y;\n    }\n}\n", i, i)
		if err := os.WriteFile(files[i], []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	list := filepath.Join(dir, "sources.txt")
	var all []byte
	for _, f := range files {
		all = append(all, f+"\n"...)
	}
	if err := os.WriteFile(list, all, 0o644); err != nil {
		t.Fatal(err)
	}
	classes := filepath.Join(dir, "classes")
	if out, err := exec.Command("javac", noPerfData("-J"), "-J-Xmx1g", "-g", "-d", classes, "@"+list).CombinedOutput(); err != nil {
		t.Fatalf("javac of %d generated classes: %v\n%s", n, err, out)
	}
	generatedDirs[n] = classes
	return classes
}

// StartLoaded starts a Debuggee that loads n generated classes and then
// runs rounds until it is stopped, with the JDWP agent not suspending it,
// and returns once the classes are loaded: a VM a debugger attaches to
// late, with an app's classes, as an IDE attaches to a running app.
func StartLoaded(t testing.TB, n int) *VM {
	t.Helper()
	dir := GeneratedClasses(t, n)
	vm := StartWithAgent(t, "-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0", "Debuggee",
		"-1", fmt.Sprintf("classes=%d:%s", n, dir))
	if !vm.waitOutput(fmt.Sprintf("loaded %d classes", n), 2*time.Minute) {
		t.Fatalf("the debuggee did not load its %d classes:\n%s", n, vm.Output())
	}
	return vm
}
