package cli

import (
	"bytes"
	"go/build"
	"io/fs"
	"os"
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
		{"tools/diff", []string{"report"}},
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

// modulePackages returns every package of the module that is not a command or this shell, as a
// path from the module's root.
func modulePackages(t *testing.T) []string {
	t.Helper()
	var out []string
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		name := d.Name()
		if rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || rel == "cmd" || rel == "internal/cli" || rel == "docs" || rel == "scripts") {
			return filepath.SkipDir
		}
		if _, err := build.ImportDir(path, 0); err == nil && rel != "." {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// One path for every run: the runner is the one package that imports both the engine and the
// outputs, and the one that calls engine.RunPrepared (besides the engine's own Run and Setup): a
// command or a run kind that ran the engine by hand would have to wire outputs and watchers again.
func TestOneRunner(t *testing.T) {
	t.Parallel()
	pkgs := modulePackages(t)
	if !slices.Contains(pkgs, "runner") || !slices.Contains(pkgs, "bench") {
		t.Fatalf("packages %v; want the module's, runner and bench among them", pkgs)
	}
	for _, p := range pkgs {
		imps := moduleImports(t, p)
		// the outputs themselves (output/…) name the engine's tick; any other package that holds
		// both would be wiring outputs to an engine by hand
		if p != "runner" && !under("output")(p) && slices.Contains(imps, "engine") && slices.ContainsFunc(imps, under("output")) {
			t.Errorf("%s imports the engine and the outputs; want only runner to", p)
		}
		if p == "runner" || p == "engine" {
			continue
		}
		files, _ := filepath.Glob(filepath.Join("..", "..", filepath.FromSlash(p), "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(b, []byte("engine.RunPrepared(")) || bytes.Contains(b, []byte("engine.Run(")) {
				t.Errorf("%s runs the engine by hand; want runner.Run", filepath.ToSlash(f))
			}
		}
	}
	shell, _ := filepath.Glob("*.go") // this package, the shell over the others
	for _, f := range shell {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(f, "_test.go") && (bytes.Contains(b, []byte("engine.RunPrepared(")) || bytes.Contains(b, []byte("engine.Run("))) {
			t.Errorf("internal/cli/%s runs the engine by hand; want runner.Run", f)
		}
	}
}
