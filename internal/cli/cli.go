// Package cli is the scache command: Main picks the subcommand its first
// argument names and runs it, and answers help, -h and -version itself.
// Each subcommand lives in a package of its own (proxycmd, replaycmd,
// threadscmd, keygencmd) and runs without a process, so tests call it.
package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/jdwpscache/scache/internal/cli/command"
	"github.com/jdwpscache/scache/internal/cli/keygencmd"
	"github.com/jdwpscache/scache/internal/cli/proxycmd"
	"github.com/jdwpscache/scache/internal/cli/replaycmd"
	"github.com/jdwpscache/scache/internal/cli/threadscmd"
)

// Commands are scache's subcommands, in the order help lists them.
func Commands() []command.Command {
	return []command.Command{proxycmd.Command, replaycmd.Command, threadscmd.Command, keygencmd.Command, versionCommand}
}

// Main runs the scache command line args (without the program's name) and
// returns its exit status.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printOverview(stderr)
		return 2
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if name == "help" && len(rest) > 0 {
			return help(ctx, rest[0], stdout, stderr)
		}
		printOverview(stdout)
		return 0
	case "-version", "--version":
		name = "version"
	}
	c, ok := find(name)
	if !ok {
		fmt.Fprintf(stderr, "scache: unknown command %q; the commands are %s (scache help)\n", name, names())
		return 2
	}
	return c.Run(ctx, rest, stdout, stderr)
}

// help prints the usage of the command name, as its -h does, to stdout.
func help(ctx context.Context, name string, stdout, stderr io.Writer) int {
	c, ok := find(name)
	if !ok {
		fmt.Fprintf(stderr, "scache help: unknown command %q; the commands are %s\n", name, names())
		return 2
	}
	return c.Run(ctx, []string{"-h"}, stdout, stdout)
}

// find returns the command called name.
func find(name string) (command.Command, bool) {
	for _, c := range Commands() {
		if c.Name == name {
			return c, true
		}
	}
	return command.Command{}, false
}

// names lists the commands' names.
func names() string {
	var n []string
	for _, c := range Commands() {
		n = append(n, c.Name)
	}
	return strings.Join(n, ", ")
}

// printOverview says what scache is and lists its commands.
func printOverview(w io.Writer) {
	fmt.Fprint(w, command.Wrap("scache makes Java debugging over slow links fast: it sits between a debugger and a VM, "+
		"speculates the JDWP commands the debugger is about to send, and answers them from its cache."),
		"\n\nusage: scache COMMAND [flags]\n\nCommands:\n")
	for _, c := range Commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.Name, c.Short)
	}
	fmt.Fprint(w, "\nscache help COMMAND (or scache COMMAND -h) prints a command's flags and an example.\n")
}
