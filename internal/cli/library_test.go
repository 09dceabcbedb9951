package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/report"
	"github.com/rpcbench/rpcbench/serve/ethrpc"
	"github.com/rpcbench/rpcbench/serve/lab"
	"github.com/rpcbench/rpcbench/summary"
	"github.com/rpcbench/rpcbench/transport"
)

// TestCLIAndLibraryAgree runs the same inputs through `rpcbench run` and through the library (a
// plan written by hand, engine.Run, summary.New, report.JSON) and compares the JSON reports, timings
// aside: the plan as run, the counts per endpoint, the status codes and the check failures must be
// the same. It fails when the command line builds requests the library does not (weights, templates,
// target and data files, JSON-RPC calls, checks assembled in internal/cli only).
func TestCLIAndLibraryAgree(t *testing.T) {
	t.Parallel()
	srv, err := lab.New(lab.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	node, err := ethrpc.New(context.Background(), ethrpc.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { node.Close() })

	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	targets := write("targets.http", "# name: read\nGET "+srv.URL()+"/v0/entity?id={{.id}}\n\n# name: write\nPUT "+srv.URL()+"/v0/entity?id={{.id}}\n@body.txt\n")
	write("body.txt", `{"n":{{seq}}}`)
	data := write("ids.csv", "id\n7\n8\n9\n")
	calls := write("calls.jsonl", `{"method":"eth_blockNumber"}`+"\n"+`{"method":"eth_getBalance","params":["{{randAddress}}","latest"],"name":"balance"}`+"\n")

	tests := []struct {
		name    string
		args    []string
		p       plan.Plan
		failing bool // every answer fails a check
	}{{
		name:    "templated endpoints with a header and checks",
		failing: true,
		args: []string{"--connections", "1", "--requests", "40", "-H", "X-Team: blue",
			"--endpoint", "a=" + srv.URL() + "/a?id={{randInt 1 9}}", "--endpoint", "b=POST " + srv.URL() + "/b", "--body", `{"k":"{{randString 8}}"}`,
			"--expect-status", "2xx", "--check-body-contains", "never there"},
		p: plan.Plan{
			Endpoints: []plan.Endpoint{
				{Name: "a", Method: "GET", URL: srv.URL() + "/a?id={{randInt 1 9}}", Header: []transport.Header{{Name: "X-Team", Value: "blue"}}},
				{Name: "b", Method: "POST", URL: srv.URL() + "/b", Header: []transport.Header{{Name: "X-Team", Value: "blue"}}, Body: []byte(`{"k":"{{randString 8}}"}`)},
			},
			Load:   plan.Load{Connections: 1, Requests: 40},
			Checks: plan.Checks{Status: "2xx", Body: []string{"body contains never there"}},
		},
	}, {
		name: "a target file with a data file",
		args: []string{"--connections", "1", "--requests", "30", "--targets", targets, "--data", data, "-H", "X-Team: blue"},
		p: plan.Plan{
			Traffic: plan.Traffic{Targets: targets, Data: data, Header: []transport.Header{{Name: "X-Team", Value: "blue"}}},
			Load:    plan.Load{Connections: 1, Requests: 30},
		},
	}, {
		name: "JSON-RPC calls with a check",
		args: []string{"--connections", "1", "--requests", "30", "--calls", calls, "--check-json-exists", "result", node.URL()},
		p: plan.Plan{
			Endpoints: []plan.Endpoint{{Method: "GET", URL: node.URL()}},
			JSONRPC:   plan.JSONRPC{CallsFile: calls},
			Load:      plan.Load{Connections: 1, Requests: 30},
			Checks:    plan.Checks{Body: []string{"json result exists"}},
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			want := ExitOK
			if tc.failing {
				want = ExitSLO // no request succeeded
			}
			if code := Main(append([]string{"run", "--format", "json", "--quiet"}, tc.args...), strings.NewReader(""), &out, &errb); code != want {
				t.Fatalf("rpcbench run: exit %d; want %d\n%s", code, want, errb.String())
			}
			res, err := engine.Run(context.Background(), tc.p)
			if err != nil {
				t.Fatal(err)
			}
			s := summary.New(summary.Run{Plan: res.Plan, Version: Version(), Trailer: res.Trailer}, res.Total)
			var lib bytes.Buffer
			if err := report.JSON(&lib, s); err != nil {
				t.Fatal(err)
			}
			cli, fromLib := untimed(t, out.Bytes()), untimed(t, lib.Bytes())
			if !reflect.DeepEqual(cli, fromLib) {
				a, _ := json.MarshalIndent(cli, "", " ")
				b, _ := json.MarshalIndent(fromLib, "", " ")
				t.Errorf("the CLI and the library disagree\nCLI:\n%s\nlibrary:\n%s", a, b)
			}
			if ok := cli["requests"].(map[string]any)["ok"]; tc.name == "templated endpoints with a header and checks" && ok != 0.0 {
				t.Errorf("requests ok = %v; want 0: every answer fails the body check", ok)
			}
		})
	}
}

// untimed decodes a JSON report and drops what depends on timing: durations, rates, latencies,
// the start, the timeline, the notes, the byte counts (templated bodies vary in length) and the
// generator's own resources, which the command line watches.
func untimed(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, b)
	}
	// Timings, and what is judged from them (notes, the validity verdict: a GC pause or a busy
	// machine in one run and not the other), differ from run to run.
	var strip func(any)
	strip = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if strings.HasSuffix(k, "_ms") || strings.HasSuffix(k, "_s") || strings.HasSuffix(k, "_rps") ||
					k == "started_at" || k == "timeline" || k == "notes" || k == "validity" || k == "resources" || k == "bytes" || k == "backoff" || k == "connections" && !isConfig(v) {
					delete(v, k)
					continue
				}
				strip(x)
			}
		case []any:
			for _, x := range v {
				strip(x)
			}
		}
	}
	strip(m)
	return m
}

// isConfig reports whether m is the plan's load member, whose connections are a setting, not a
// measurement.
func isConfig(m map[string]any) bool { _, ok := m["model"]; return ok }
