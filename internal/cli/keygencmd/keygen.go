// Package keygencmd is scache keygen: it writes a new tunnel key for the
// two halves of a split proxy (transport.GenerateTunnelKey).
package keygencmd

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/jdwpscache/scache/internal/cli/command"
	"github.com/jdwpscache/scache/scache/transport"
)

var about = command.Command{
	Name:  "keygen",
	Short: "write a tunnel key for the two halves of a split proxy",
	Args:  "FILE",
	Summary: "Keygen writes a new tunnel key to FILE (readable by its owner only; an existing file is kept) and prints its fingerprint. " +
		"Copy the file to the machines of both halves of a split proxy and give it to each (-key FILE): " +
		"the tunnel is then TLS 1.3 between halves that hold it.",
	Example: "scache keygen tunnel.key",
}

// Command is scache keygen.
var Command = about.With(Run, Check)

// parse returns the key's file that args name.
func parse(args []string, stderr io.Writer) (string, error) {
	fs := about.NewFlagSet(stderr)
	if err := command.Parse(fs, args); err != nil {
		return "", err
	}
	if fs.NArg() != 1 {
		return "", errors.New("give the key's file: scache keygen FILE")
	}
	return fs.Arg(0), nil
}

// Check parses and checks args as Run does.
func Check(args []string) error {
	_, err := parse(args, io.Discard)
	return err
}

// Run writes the key to the file args names.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	path, err := parse(args, stderr)
	if err != nil {
		return about.Refuse(stderr, err)
	}
	k, err := transport.GenerateTunnelKey(path)
	if err != nil {
		return about.Fail(stderr, 1, err)
	}
	fmt.Fprintf(stdout, "wrote the tunnel key %s (fingerprint %s): copy it to both halves' machines, -key %s\n", path, k.Fingerprint(), path)
	return 0
}
