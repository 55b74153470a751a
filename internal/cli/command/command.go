// Package command is what every scache subcommand has: a name, a line
// that says what it is for, one example, and a run function that takes its
// arguments and writers and returns the exit status, so that tests run it
// without a process. NewFlagSet gives each the same usage text.
package command

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// A Command is one scache subcommand.
type Command struct {
	Name    string // as typed after scache: "proxy"
	Args    string // what follows the flags in the usage line, if anything: "[FILE ...]"
	Short   string // what it is for, in the list of commands: a few words
	Summary string // what it is for, the first paragraph of its -h
	Example string // one command line, starting with "scache NAME"
	// Run runs it with the arguments after its name: 0 when it did its
	// job, 1 when something failed, 2 when the arguments are wrong.
	Run func(ctx context.Context, args []string, stdout, stderr io.Writer) int
	// Check parses and checks the arguments as Run does, and does nothing
	// else: nothing listens or dials, and no file is written (a -key file
	// is read, to check it).
	Check func(args []string) error
}

// NewFlagSet returns the command's flag set: errors and -h go to stderr,
// and -h prints the usage line, the summary, the example and the flags.
func (c Command) NewFlagSet(stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("scache "+c.Name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { c.PrintUsage(fs) }
	return fs
}

// PrintUsage prints what -h prints, for the flags of fs.
func (c Command) PrintUsage(fs *flag.FlagSet) {
	w := fs.Output()
	usage := "usage: scache " + c.Name + " [flags]"
	if c.Args != "" {
		usage += " " + c.Args
	}
	fmt.Fprintf(w, "%s\n\n%s\n\nExample:\n  %s\n", usage, Wrap(c.Summary), c.Example)
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprintln(w, "\nFlags:")
		fs.PrintDefaults()
	}
}

// A UsageError is an error of the flag package (or -h): it has already
// said why on the flag set's output.
type UsageError struct{ Err error }

// Error returns the flag package's error.
func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the flag package's error.
func (e *UsageError) Unwrap() error { return e.Err }

// Parse parses args with fs, and returns its error as a *UsageError.
func Parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return &UsageError{err}
	}
	return nil
}

// Refuse returns the exit status for an error of the arguments: 0 for -h
// (the usage is printed), 2 for any other, which it writes to stderr unless
// the flag package already did.
func (c Command) Refuse(stderr io.Writer, err error) int {
	var usage *UsageError
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &usage):
		return 2
	}
	return c.Fail(stderr, 2, err)
}

// Fail writes "scache NAME: err" to stderr and returns status.
func (c Command) Fail(stderr io.Writer, status int, err error) int {
	fmt.Fprintf(stderr, "scache %s: %v\n", c.Name, err)
	return status
}

// NoArgs returns an error if fs has arguments left after its flags.
func NoArgs(fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q: every setting is a flag (-h lists them)", fs.Args())
	}
	return nil
}

// With returns c that runs run and checks with check. A command's package
// declares what it is without them, so that they may use it, and exports
// it With them.
func (c Command) With(run func(ctx context.Context, args []string, stdout, stderr io.Writer) int, check func(args []string) error) Command {
	c.Run, c.Check = run, check
	return c
}

// Wrap breaks text into lines of at most 80 columns, between words.
func Wrap(text string) string {
	var b strings.Builder
	col := 0
	for _, word := range strings.Fields(text) {
		switch {
		case col == 0:
		case col+1+len(word) > 80:
			b.WriteByte('\n')
			col = 0
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += len(word)
	}
	return b.String()
}
