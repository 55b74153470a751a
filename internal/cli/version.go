package cli

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/jdwpscache/scache/internal/cli/command"
)

var aboutVersion = command.Command{
	Name:    "version",
	Short:   "print the build: module version, commit and Go version",
	Summary: "Version prints what this scache was built from, for bug reports: the module's version, the commit and whether the tree had changes, and the Go version.",
	Example: "scache version",
}

// versionCommand is scache version (and scache -version).
var versionCommand = aboutVersion.With(runVersion, checkVersion)

// parseVersion parses args: version takes none.
func parseVersion(args []string, stderr io.Writer) error {
	fs := aboutVersion.NewFlagSet(stderr)
	if err := command.Parse(fs, args); err != nil {
		return err
	}
	return command.NoArgs(fs)
}

func checkVersion(args []string) error { return parseVersion(args, io.Discard) }

func runVersion(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if err := parseVersion(args, stderr); err != nil {
		return aboutVersion.Refuse(stderr, err)
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return aboutVersion.Fail(stderr, 1, fmt.Errorf("this binary carries no build information"))
	}
	fmt.Fprintln(stdout, Version(info))
	return 0
}

// Version describes a build in one line: "scache VERSION (commit REV[,
// modified], TIME; GOVERSION)"; what the build does not know is left out.
func Version(info *debug.BuildInfo) string {
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	var from string
	if rev := settings["vcs.revision"]; rev != "" {
		from = "commit " + rev
		if settings["vcs.modified"] == "true" {
			from += ", modified"
		}
		if t := settings["vcs.time"]; t != "" {
			from += ", " + t
		}
		from += "; "
	}
	return fmt.Sprintf("scache %s (%s%s)", version, from, info.GoVersion)
}
