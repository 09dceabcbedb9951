package cli

import (
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/plan"
)

// FuzzRunFlags parses any flags of `run` (args separated by NUL bytes) and turns them into a
// plan and prepares it, as runRun does before it runs: bad values must give an error, never a panic, and a plan
// accepted must be one the engine can carry out (its defaults filled in it stays valid, and it
// has a schedule). Flags that name files are left out: their contents have their own fuzzers.
func FuzzRunFlags(f *testing.F) {
	seeds := []string{
		"--rate\x00100\x00--duration\x0010s",
		"--rate=1/100ms\x00--requests=5\x00--warmup=1s",
		"--connections\x0010\x00--duration\x001m\x00--model\x00closed",
		"--stages\x0030s:1000,60s:5000\x00--interval\x00250ms",
		"-X\x00POST\x00-H\x00Content-Type: application/json\x00--body\x00{\"id\":\"{{randInt 1 9}}\"}",
		"--jsonrpc\x00eth_blockNumber\x00--params\x00[\"latest\",false]\x00--batch\x0010",
		"--expect-status\x002xx,404\x00--check-json\x00result.status=ok\x00--check\x00has id: json id exists",
		"--endpoint\x00get=GET http://127.0.0.1:8080/a\x00--endpoint\x00put=PUT http://127.0.0.1:8080/b\x00--weights\x00get=8,put=2",
		"--timeout\x00-1s",
		"--rate\x000",
		"--grace\x000\x00--connect-timeout\x00100ms\x00--no-reuse\x00--insecure",
		"--stages\x000s:5,10s:0\x00--model\x00closed",
	}
	for _, s := range seeds {
		f.Add(s, "http://127.0.0.1:8080/")
	}
	f.Add("--rate\x00100", "ws://127.0.0.1:8545/")
	f.Add("--rate\x00100", "http://127.0.0.1:8080/v0/entity?id={{randInt 1 1e8}}")
	f.Fuzz(func(t *testing.T, args, url string) {
		var rf runFlags
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		rf.define(fs)
		if _, err := parseInterleaved(fs, strings.Split(args, "\x00")); err != nil {
			return
		}
		if rf.bodyFile != "" || rf.traffic.targets != "" || rf.traffic.data != "" || rf.traffic.setup != "" || rf.rpc.calls != "" {
			return
		}
		p, err := rf.plan(url)
		var prep *plan.Prepared
		if err == nil {
			prep, err = plan.Prepare(p, nil)
		}
		if err != nil {
			if err.Error() == "" {
				t.Errorf("plan(%q, %q): an empty error", args, url)
			}
			return
		}
		n := prep.Plan
		if err := n.Validate(); err != nil {
			t.Errorf("plan(%q, %q) accepted, but with its defaults: %v", args, url, err)
		}
		if _, err := n.Load.Profile(); err != nil {
			t.Errorf("plan(%q, %q) accepted, but it has no schedule: %v", args, url, err)
		}
	})
}
