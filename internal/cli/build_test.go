package cli

import (
	"os/exec"
	"strings"
	"testing"
)

// rpcbenchDeps runs go list -deps -f format on cmd/rpcbench and returns its lines; it skips the
// test when there is no go command.
func rpcbenchDeps(t *testing.T, format string) []string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the packages with")
	}
	out, err := exec.Command(goTool, "list", "-deps", "-f", format, "../../cmd/rpcbench").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	return strings.Fields(string(out))
}

// rpcbench compiles no C code outside the standard library: DataDog/zstd's C files, under Pebble
// (serve kv), were most of a cold build's CPU time until go.mod put a pure-Go zstd in their place
// (internal/purezstd; docs/performance.md).
func TestNoCCodeOutsideTheStandardLibrary(t *testing.T) {
	t.Parallel()
	// One line per package: its path and, for a package outside the standard library with C
	// files, "C".
	lines := rpcbenchDeps(t, `{{.ImportPath}}{{if and (not .Standard) .CFiles}}:C{{end}}`)
	seen := false
	for _, l := range lines {
		seen = seen || l == "github.com/cockroachdb/pebble/sstable"
		if p, ok := strings.CutSuffix(l, ":C"); ok {
			t.Errorf("rpcbench compiles the C files of %s; want pure Go outside the standard library", p)
		}
	}
	if !seen {
		t.Fatalf("go list -deps does not list Pebble's sstable among %d packages: not rpcbench's list", len(lines))
	}
}
