package scache_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The Speculator does no I/O: package scache imports no network package,
// none of its files starts a goroutine, and nothing it depends on is its
// transports (package transport).
func TestTheSpeculatorDoesNoIO(t *testing.T) {
	list := func(format string) []string {
		out, err := exec.Command("go", "list", "-f", format, ".").Output()
		require.NoError(t, err)
		return strings.Fields(string(out))
	}
	imports := list("{{join .Imports \" \"}}")
	require.Contains(t, imports, "github.com/jdwpscache/scache/jdwp", "go list listed the package's imports")
	for _, imp := range imports {
		require.False(t, imp == "net" || strings.HasPrefix(imp, "net/"), "package scache imports %s", imp)
	}
	for _, dep := range list("{{join .Deps \" \"}}") {
		require.False(t, strings.HasPrefix(dep, "github.com/jdwpscache/scache/scache/transport"), "package scache depends on %s", dep)
	}

	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			if g, ok := n.(*ast.GoStmt); ok {
				t.Errorf("%s starts a goroutine", fset.Position(g.Pos()))
			}
			return true
		})
		checked++
	}
	require.Greater(t, checked, 20, "the package's files were read")
}
