package plan_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/internal/cli"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/plan/planfile"
	"github.com/rpcbench/rpcbench/serve/lab"
)

// A run validates and normalises its plan once (Prepare), whatever command runs it: no command
// checks it again on the way, no package re-normalises it defensively. Not parallel: the counts
// are the process's.
func TestOneRunChecksItsPlanOnce(t *testing.T) {
	srv, err := lab.New(lab.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	benchFile := filepath.Join(dir, "b.yaml")
	if err := os.WriteFile(benchFile, []byte(fmt.Sprintf(`targets:
  lab: {url: %q}
scenarios:
  steps:
    model: open
    steps: [50, 100]
    step: 200ms
    path: /x
`, srv.URL())), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		runs int // load runs the command does
	}{
		{"run", []string{"run", "--rate", "100", "--requests", "10", "--quiet", srv.URL() + "/x"}, 1},
		{"run --plan", []string{"run", "--plan", benchFile, "--scenario", "steps", "--step", "2", "--target", "lab", "--quiet"}, 1},
		{"bench", []string{"bench", "--quiet", "--out-dir", filepath.Join(dir, "out"), benchFile}, 2},
		// a search is one plan, prepared once; its steps change its rate only
		{"capacity", []string{"capacity", "--slo", "p50<1s", "--start", "50", "--max", "100", "--step", "200ms", "--step-warmup", "0s", "--quiet", srv.URL() + "/x"}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			counts := plan.CountChecks(t)
			var stdout, stderr bytes.Buffer
			if code := cli.Main(c.args, strings.NewReader(""), &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			got := counts()
			t.Logf("%s: %v", c.name, got)
			for _, what := range []string{"validate", "normalize"} {
				if got[what] != c.runs {
					t.Errorf("%s: the plans were %sd %d times over %d runs; want once per run", c.name, what, got[what], c.runs)
				}
			}
		})
	}
}

// A grace of 0 is a grace of none, in a plan file as on the command line (--grace 0); a grace left
// out is the default. Before, a zero meant the default and the command line sent 1 ns instead.
func TestGraceZeroIsNone(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		yaml string
		want time.Duration
	}{
		{"    grace: 0s\n", 0},
		{"    grace: 2s\n", 2 * time.Second},
		{"", plan.DefaultGrace},
	} {
		b, err := planfile.ReadFile("p.yaml", strings.NewReader("targets:\n  a: {url: http://127.0.0.1:1/}\nscenarios:\n  s:\n    rate: 10\n"+c.yaml))
		if err != nil {
			t.Fatal(err)
		}
		if g := b.Scenarios[0].Plan.Normalized().Load.Grace; g == nil || *g != c.want {
			t.Errorf("%q: grace %v; want %v", c.yaml, g, c.want)
		}
	}
}
