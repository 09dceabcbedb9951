package summary_test

import (
	"os/exec"
	"strings"
	"testing"
)

// summary, report and compare fold and render what a run recorded: they depend on result and plan,
// never on the engine or a concrete transport, so that a program reading result files does not
// link every protocol (and gRPC) in.
func TestRenderingImportsNoEngineOrTransport(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "github.com/rpcbench/rpcbench/summary",
		"github.com/rpcbench/rpcbench/report", "github.com/rpcbench/rpcbench/compare").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch {
		case dep == "github.com/rpcbench/rpcbench/engine",
			strings.HasPrefix(dep, "github.com/rpcbench/rpcbench/transport/"),
			strings.HasPrefix(dep, "google.golang.org/grpc"),
			strings.HasPrefix(dep, "github.com/coder/websocket"):
			t.Errorf("summary, report or compare depend on %s", dep)
		}
	}
}
