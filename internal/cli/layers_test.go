package cli

import (
	"go/build"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// modulePath is this module's import path (go.mod's module line).
const modulePath = "github.com/rpcbench/rpcbench"

// moduleImports returns the imports of the module's package at rel (a path from the module's root,
// as "summary"), leaving out the tests', read from the source files with go/build: no go command,
// no network. Imports outside the module are dropped: they cannot import the module back.
func moduleImports(t *testing.T, rel string) []string {
	t.Helper()
	pkg, err := build.ImportDir(filepath.Join("..", "..", filepath.FromSlash(rel)), 0)
	if err != nil {
		t.Fatalf("reading package %s: %v", rel, err)
	}
	var out []string
	for _, imp := range pkg.Imports {
		if r, ok := strings.CutPrefix(imp, modulePath+"/"); ok {
			out = append(out, r)
		}
	}
	return out
}

// importChain returns a chain of imports from the package at rel to a package for which bad
// holds ("summary → plan → transport"), or nil when no package rel reaches is bad.
func importChain(t *testing.T, rel string, bad func(string) bool) []string {
	t.Helper()
	seen := map[string]bool{rel: true}
	var walk func(chain []string) []string
	walk = func(chain []string) []string {
		for _, imp := range moduleImports(t, chain[len(chain)-1]) {
			next := append(slices.Clip(chain), imp)
			if bad(imp) {
				return next
			}
			if !seen[imp] {
				seen[imp] = true
				if c := walk(next); c != nil {
					return c
				}
			}
		}
		return nil
	}
	return walk([]string{rel})
}

// under reports whether a package is one of roots or below one.
func under(roots ...string) func(string) bool {
	return func(p string) bool {
		return slices.ContainsFunc(roots, func(r string) bool { return p == r || strings.HasPrefix(p, r+"/") })
	}
}

// TestLayers keeps the import graph in the order of the flow: what reads results (summary,
// compare, report) reaches no engine and no transport, and the pages of diff and capacity take the
// stylesheet from report/style, not the whole of report.
func TestLayers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		pkg       string
		forbidden []string
	}{
		{"summary", []string{"engine", "transport"}},
		{"compare", []string{"engine", "transport"}},
		{"report", []string{"engine", "transport"}},
		{"diff", []string{"report"}},
		{"capacity", []string{"report"}},
	} {
		bad := func(p string) bool { return p != "report/style" && under(c.forbidden...)(p) }
		if chain := importChain(t, c.pkg, bad); chain != nil {
			t.Errorf("%s reaches %s: %s; want no import of %s", c.pkg, chain[len(chain)-1], strings.Join(chain, " → "), strings.Join(c.forbidden, " or "))
		}
	}
	// The walk itself must see through: report reaches summary's import of result.
	if chain := importChain(t, "report", func(p string) bool { return p == "result" }); len(chain) < 2 {
		t.Errorf("report reaches result by %v; want a chain of imports", chain)
	}
}
