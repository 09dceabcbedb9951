package k8scmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/internal/cli"
	"github.com/rpcbench/rpcbench/serve/lab"
)

// mainOut runs the command line as rpcbench-k8s does: rpcbench's commands and this package's k8s,
// on kubeconfig's cluster.
func mainOut(args ...string) (code int, stdout, stderr string) { return mainOn(kubeCluster, args...) }

// mainOn is mainOut with the cluster cluster gives, and a minute at most for a k8s command (a
// bound, not a synchronisation).
func mainOn(cluster clusterFunc, args ...string) (code int, stdout, stderr string) {
	k := command(cluster)
	run := k.Run
	k.Run = func(ctx context.Context, e *cli.Env, args []string) int {
		ctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		return run(ctx, e, args)
	}
	var out, errb bytes.Buffer
	code = cli.Main(args, strings.NewReader(""), &out, &errb, k)
	return code, out.String(), errb.String()
}

// usageCase is a command line of bad input: exit 2, each of want in stderr.
type usageCase struct {
	name string
	args []string
	want []string
}

// runUsageCases runs prefix followed by each case's args, in parallel subtests.
func runUsageCases(t *testing.T, prefix []string, cases []usageCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := mainOut(append(append([]string(nil), prefix...), tt.args...)...)
			if code != cli.ExitUsage {
				t.Fatalf("got exit %d; want %d\nstdout:\n%s\nstderr:\n%s", code, cli.ExitUsage, stdout, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

func startLab(t *testing.T, cfg lab.Config) *lab.Server {
	t.Helper()
	srv, err := lab.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// writeFile writes text to dir/name and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Every flag has an example in its command's help, and README.md or a page of docs/ shows it
// where a user looks.
func TestFlagsHaveExamples(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..", "..")
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("the pages of docs/: %v (found %d)", err, len(pages))
	}
	docs := readFile(t, filepath.Join(root, "README.md"))
	for _, p := range pages {
		docs += "\n" + readFile(t, p)
	}
	for _, tt := range []struct {
		help []string
		flag string
	}{
		{[]string{"help", "k8s", "job"}, "--scenario"},
		{[]string{"help", "k8s", "collect"}, "--namespace"},
	} {
		_, help, _ := mainOut(tt.help...)
		examples, _, _ := strings.Cut(help, "\nFlags:")
		cmd := "rpcbench " + strings.Join(tt.help[1:], " ") + " "
		if !regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(cmd) + `.*` + tt.flag + ` `).MatchString(examples) {
			t.Errorf("%v: got no example with %s; want one", tt.help, tt.flag)
		}
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(cmd) + `.*` + tt.flag + ` `).MatchString(docs) {
			t.Errorf("README.md and docs/: got no %q command with %s; want one", cmd, tt.flag)
		}
	}
}
