package jvmtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The debuggers the driver stands for. Most users do not run the JDK's
// own JDI: VS Code's Java debugger (microsoft/java-debug) and the Eclipse
// IDE run on Eclipse's JDI (org.eclipse.jdi.internal), and IntelliJ and
// Android Studio on a fork of the JDK's with async calls. Eclipse's asks
// differently (little cached within a stop, AllThreads before every
// resume, ThisObject in static frames, Signature and SourceDebugExtension
// of every type), and an async client asks a stop's independent reads at
// once instead of one after another. The driver runs on either JDI,
// serially or in parallel waves (DriverOptions.Eclipse, .Parallel).

// EclipseJDIJars are the jars that run Eclipse's JDI standalone: Debian's
// libeclipse-jdt-debug-java and the OSGi framework it depends on, which
// the README's test command installs.
var EclipseJDIJars = []string{"/usr/share/java/eclipse-jdt-debug.jar", "/usr/share/java/eclipse-osgi.jar"}

// RequireEclipse fails the test if Eclipse's JDI is not installed.
func RequireEclipse(t testing.TB) {
	t.Helper()
	for _, jar := range EclipseJDIJars {
		if _, err := os.Stat(jar); err != nil {
			t.Fatalf("%s not found: run the README's test command (make test), which installs Debian's libeclipse-jdt-debug-java", jar)
		}
	}
}

// A Client is one of the debuggers the driver stands for.
type Client struct {
	Name     string // "jdk", "eclipse", "jdk-parallel", "eclipse-parallel"
	Eclipse  bool   // Eclipse's JDI instead of the JDK's
	Parallel int    // threads asking at once at a stop (0: one at a time)
}

// Clients are the four the tests and benchmarks run: each JDI, one
// command at a time and in parallel waves of 8 (an async IDE's pool).
var Clients = []Client{
	{Name: "jdk"},
	{Name: "eclipse", Eclipse: true},
	{Name: "jdk-parallel", Parallel: 8},
	{Name: "eclipse-parallel", Eclipse: true, Parallel: 8},
}

// With returns o driven by client c.
func (c Client) With(o DriverOptions) DriverOptions {
	o.Eclipse, o.Parallel = c.Eclipse, c.Parallel
	return o
}

// driverClassPath returns the class path of the driver for options o.
func driverClassPath(t testing.TB, o DriverOptions) string {
	dir := Compile(t)
	if !o.Eclipse {
		return dir
	}
	RequireEclipse(t)
	return strings.Join(append([]string{dir}, EclipseJDIJars...), string(filepath.ListSeparator))
}
