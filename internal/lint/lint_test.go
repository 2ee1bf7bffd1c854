// Package lint holds repository-wide checks that no compiler enforces.
package lint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// deterministic are the trees whose results must not depend on the wall clock or on global
// random state. policies/solver is exempt: it times solves for its statistics and gives HiGHS a
// clock for time limits, both reported apart from results; so is policies/external/internal/wall,
// the external policy's timeouts and call latencies.
var deterministic = []string{"replay", "policies", "report", "traces"}

var exempt = []string{filepath.Join("policies", "solver"), filepath.Join("policies", "external", "internal", "wall")}

// TestNoWallClockOrGlobalRandomness fails on time.Now/time.Since/time.Until calls and on any use
// of math/rand (v1) or the package-level functions of math/rand/v2 in non-test code of the
// deterministic trees: every draw must take an explicit *rand.Rand.
func TestNoWallClockOrGlobalRandomness(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, dir := range deterministic {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			if d.IsDir() {
				for _, e := range exempt {
					if rel == e || d.Name() == "testdata" {
						return filepath.SkipDir
					}
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			check(t, rel, path)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func check(t *testing.T, rel, path string) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Errorf("%s: %v", rel, err)
		return
	}
	names := map[string]string{} // local name → import path
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		name := filepath.Base(p)
		if p == "math/rand/v2" {
			name = "rand"
		}
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = p
		if p == "math/rand" {
			t.Errorf("%s: imports math/rand; use math/rand/v2 with an explicit *rand.Rand", rel)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		pos := fset.Position(sel.Pos())
		switch names[id.Name] {
		case "time":
			if sel.Sel.Name == "Now" || sel.Sel.Name == "Since" || sel.Sel.Name == "Until" {
				t.Errorf("%s:%d: time.%s reads the wall clock", rel, pos.Line, sel.Sel.Name)
			}
		case "math/rand/v2":
			switch sel.Sel.Name {
			case "New", "NewPCG", "NewChaCha8", "Rand", "Source", "PCG", "ChaCha8", "Zipf", "NewZipf":
			default:
				t.Errorf("%s:%d: rand.%s draws from the global generator; take a *rand.Rand", rel, pos.Line, sel.Sel.Name)
			}
		}
		return true
	})
}
