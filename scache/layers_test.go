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

	fset, parsed := parsePackage(t)
	for _, f := range parsed {
		ast.Inspect(f, func(n ast.Node) bool {
			if g, ok := n.(*ast.GoStmt); ok {
				t.Errorf("%s starts a goroutine", fset.Position(g.Pos()))
			}
			return true
		})
	}
	require.Greater(t, len(parsed), 20, "the package's files were read")
}

// parsePackage parses the files of package scache, tests aside, by name.
func parsePackage(t *testing.T) (*token.FileSet, map[string]*ast.File) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	parsed := map[string]*ast.File{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		parsed[name] = f
	}
	return fset, parsed
}

// The mechanism knows no family: no file of package scache outside the
// families (family_*.go) and their table (families.go) names what a family
// file declares, or a field of the families' state. The families reach the
// mechanism through its verbs (enqueue, admit, lookup, the owners' reads);
// the mechanism reaches them only through the table's hooks. And the
// Speculator is glue: its methods are the mechanism's stages, at most 100.
func TestTheMechanismNamesNoFamily(t *testing.T) {
	isFamily := func(name string) bool { return strings.HasPrefix(name, "family_") }
	fset, parsed := parsePackage(t)
	declaredBy := map[string]string{} // a top-level name or Type.method, by the file that declares it
	methods := 0
	for name, f := range parsed {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					declaredBy[d.Name.Name] = name
				} else if star, ok := d.Recv.List[0].Type.(*ast.StarExpr); ok && star.X.(*ast.Ident).Name == "Speculator" {
					methods++
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						declaredBy[spec.Name.Name] = name
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							declaredBy[n.Name] = name
						}
					}
				}
			}
		}
	}
	familyFields := map[string]bool{}
	ast.Inspect(parsed["families.go"], func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.Name == "familyState" {
			for _, f := range ts.Type.(*ast.StructType).Fields.List {
				for _, n := range f.Names {
					familyFields[n.Name] = true
				}
			}
		}
		return true
	})
	require.Contains(t, familyFields, "again", "the families' state was read from families.go")

	families := 0
	for name, f := range parsed {
		if isFamily(name) {
			families++
			continue
		}
		if name == "families.go" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if familyFields[n.Sel.Name] {
					t.Errorf("%s: the mechanism reads the families' %s", fset.Position(n.Pos()), n.Sel.Name)
				}
			case *ast.Ident:
				if by, ok := declaredBy[n.Name]; ok && isFamily(by) {
					t.Errorf("%s: the mechanism names %s, of %s", fset.Position(n.Pos()), n.Name, by)
				}
			}
			return true
		})
	}
	require.Greater(t, families, 8, "the family files were read")
	require.LessOrEqual(t, methods, 100, "methods on *Speculator: the mechanism's stages; a family's handlers are functions of its table")
	require.Greater(t, methods, 50, "the methods were counted")
}
