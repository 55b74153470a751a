package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jdwpscache/scache/internal/cli"
	"github.com/jdwpscache/scache/internal/cli/command"
	"github.com/stretchr/testify/require"
)

// otherPrograms are the programs other than scache, go and make that the
// docs' commands may run; the tests above run the java and jdb lines.
var otherPrograms = map[string]bool{"java": true, "jdb": true, "adb": true, "ssh": true, "kubectl": true}

// TestEveryDocumentedCommandRuns checks every command in the sh blocks of
// the README and docs/: each scache command (and go run ./benchmarks/replay,
// the same as scache replay) passes its command's checks as written, with
// the files it names in a temporary directory; scache keygen runs, so that
// the -key files named after it exist; a go or make command names what this
// repository has; anything else is a program the test knows of.
func TestEveryDocumentedCommandRuns(t *testing.T) {
	docs, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	require.NotEmpty(t, docs)
	checked := 0
	for _, doc := range append([]string{"../../README.md"}, docs...) {
		b, err := os.ReadFile(doc)
		require.NoError(t, err)
		dir := t.TempDir()
		for _, line := range shCommands(string(b)) {
			words, err := shellWords(line)
			require.NoError(t, err, "%s: %s", doc, line)
			require.NoError(t, checkCommand(words, dir), "%s: %s", doc, line)
			checked++
		}
	}
	require.Greater(t, checked, 20, "the docs' commands were found")
}

// checkCommand checks one command line.
func checkCommand(words []string, dir string) error {
	switch {
	case len(words) == 0:
		return nil
	case words[0] == "scache":
		return checkScache(words[1:], dir)
	case len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == "./benchmarks/replay":
		return checkScache(append([]string{"replay"}, words[3:]...), dir)
	case len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/scache":
		return checkScache(words[3:], dir)
	case len(words) == 3 && words[0] == "go" && (words[1] == "install" || words[1] == "get"):
		return checkGoPackage(words[2])
	case words[0] == "make":
		makefile, err := os.ReadFile("../../Makefile")
		if err != nil {
			return err
		}
		for _, target := range words[1:] {
			if !strings.Contains(string(makefile), "\n"+target+":") {
				return fmt.Errorf("the Makefile has no target %q", target)
			}
		}
		return nil
	case otherPrograms[words[0]]:
		if words[0] == "ssh" || words[0] == "kubectl" {
			return checkRemote(words, dir)
		}
		return nil
	}
	return fmt.Errorf("a command the docs test does not know: %q", words[0])
}

// checkScache checks the arguments of scache: keygen runs (in dir), any
// other command's Check must pass; -key and keygen's files are in dir, and
// a -via command that runs scache is checked too.
func checkScache(args []string, dir string) error {
	if len(args) == 0 {
		return fmt.Errorf("scache without a command")
	}
	var c command.Command
	for _, cmd := range cli.Commands() {
		if cmd.Name == args[0] {
			c = cmd
		}
	}
	if c.Run == nil {
		if args[0] == "help" || args[0] == "-version" {
			return nil
		}
		return fmt.Errorf("no scache command %q", args[0])
	}
	args = append([]string(nil), args[1:]...)
	for i, a := range args {
		switch {
		case i > 0 && args[i-1] == "-key":
			args[i] = filepath.Join(dir, a)
		case i > 0 && args[i-1] == "-via":
			remote := strings.Fields(a)
			if !slices.Contains(remote, "-stdio") {
				return fmt.Errorf("-via %q: the near half it starts speaks the tunnel on its standard input and output: -stdio", a)
			}
			if err := checkRemote(remote, dir); err != nil {
				return fmt.Errorf("-via: %w", err)
			}
		}
	}
	if c.Name == "keygen" {
		if len(args) == 1 {
			args[0] = filepath.Join(dir, args[0])
		}
		if code := c.Run(context.Background(), args, io.Discard, io.Discard); code != 0 {
			return fmt.Errorf("scache keygen %v: status %d", args, code)
		}
		return nil
	}
	return c.Check(args)
}

// checkRemote checks the scache command that a remote-shell command line
// (ssh host scache ..., kubectl exec -i POD -- scache ...) runs.
func checkRemote(words []string, dir string) error {
	for i, w := range words {
		if w == "scache" {
			return checkScache(words[i+1:], dir)
		}
	}
	if words[0] == "ssh" && len(words) >= 2 && strings.HasPrefix(words[1], "-") {
		return nil // a port forward: ssh -L ... host
	}
	return fmt.Errorf("%q runs no scache command", strings.Join(words, " "))
}

// checkGoPackage checks that a go install or go get path is this module or
// one of its packages.
func checkGoPackage(path string) error {
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		return err
	}
	module := strings.TrimPrefix(strings.SplitN(string(gomod), "\n", 2)[0], "module ")
	path, _, _ = strings.Cut(path, "@")
	rel, ok := strings.CutPrefix(path, module)
	if !ok {
		return fmt.Errorf("%s is not in module %s", path, module)
	}
	if _, err := os.Stat(filepath.Join("../..", rel)); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// shCommands returns the command lines of a markdown text's sh blocks,
// with continuation lines joined and comments cut.
func shCommands(markdown string) []string {
	var lines []string
	for _, block := range strings.Split(markdown, "```sh\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		block = strings.ReplaceAll(block, "\\\n", " ")
		for _, l := range strings.Split(block, "\n") {
			if l = strings.TrimSpace(cutComment(l)); l != "" {
				lines = append(lines, l)
			}
		}
	}
	return lines
}

// cutComment cuts a # comment that is outside quotes and starts a word.
func cutComment(line string) string {
	var quote rune
	for i, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (i == 0 || line[i-1] == ' '):
			return line[:i]
		}
	}
	return line
}

// shellWords splits a command line as sh does with single and double
// quotes (no expansions).
func shellWords(line string) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				word.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("an unterminated %c quote", quote)
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}

// The docs test's parsing: quotes, comments and continuations.
func TestShellWords(t *testing.T) {
	words, err := shellWords(`scache proxy -split far -via 'ssh host scache proxy -stdio' -v`)
	require.NoError(t, err)
	require.Equal(t, []string{"scache", "proxy", "-split", "far", "-via", "ssh host scache proxy -stdio", "-v"}, words)
	_, err = shellWords(`scache 'open`)
	require.Error(t, err)
	require.Equal(t, []string{"a    b", "c"}, shCommands("text\n```sh\na \\\n  b # a comment\nc\n```\n"))
	require.Equal(t, "echo '# not a comment' ", cutComment("echo '# not a comment' # one"))
}

// The check refuses what is wrong: an unknown command or flag, a wrong
// pairing of flags, a package this module does not have.
func TestTheDocsCheckRefusesWhatIsWrong(t *testing.T) {
	dir := t.TempDir()
	for _, line := range []string{
		"scache proxi -vm 127.0.0.1:5005",
		"scache proxy -vmm 127.0.0.1:5005",
		"scache proxy -via 'ssh host scache proxy -split near -stdio'",
		"scache proxy -split far -via 'ssh host scache proxy -split near'",
		"scache proxy -split far -key missing.key -vm h:1",
		"go install github.com/jdwpscache/scache/cmd/nothere@latest",
		"make nothere",
		"rm -rf /",
	} {
		words, err := shellWords(line)
		require.NoError(t, err)
		require.Error(t, checkCommand(words, dir), line)
	}
}

// docs/commands.md, the manual, names every flag of every command.
func TestTheManualNamesEveryFlag(t *testing.T) {
	manual, err := os.ReadFile("../../docs/commands.md")
	require.NoError(t, err)
	flagLine := regexp.MustCompile(`(?m)^  -([\w-]+)`)
	for _, c := range cli.Commands() {
		var usage strings.Builder
		require.Equal(t, 0, c.Run(context.Background(), []string{"-h"}, io.Discard, &usage))
		require.True(t, strings.Contains(string(manual), "\n## scache "+c.Name+"\n"), "the manual has a section for %s", c.Name)
		for _, m := range flagLine.FindAllStringSubmatch(usage.String(), -1) {
			require.True(t, strings.Contains(string(manual), "`-"+m[1]), "the manual names scache %s -%s", c.Name, m[1])
		}
	}
}
