package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/report"
)

// A target started by its command is timed from its start to ready, and what its ready URL
// answered — a target's account of its start, as serve kv's /v0/prefill gives its prefill's size
// and time — is kept and shown in every format, before the runs; a target without a ready URL is
// ready when its port takes connections, and says so.
func TestStartedTargetsReadiness(t *testing.T) {
	t.Parallel()
	addrA, addrB := freeAddr(t), freeAddr(t)
	began := time.Now()
	bench := readBench(t, t.TempDir(), fmt.Sprintf(`targets:
  a:
    url: http://%[1]s/
    command: [%[3]q]
    env: {%[4]s: %[1]q, %[5]s: "loaded 7 things in 1.5s"}
    ready: http://%[1]s/ready?x=1
  b:
    url: http://%[2]s/
    command: [%[3]q]
    env: {%[4]s: %[2]q}
scenarios:
  one: {path: /x, connections: 1, requests: 2}
`, addrA, addrB, os.Args[0], helperEnv, helperReady))
	var resp *http.Response // what the ready URL answers, asked again while the targets run
	var body []byte
	out, err := Run(context.Background(), bench, Options{Outputs: func(RunID) output.Set {
		return output.Set{&probe{start: func(output.Run) {
			if r, err := http.Get("http://" + addrA + "/ready?x=1"); err == nil {
				resp = r
				body, _ = io.ReadAll(r.Body)
				r.Body.Close()
			}
		}}}
	}})
	took := time.Since(began)
	if err != nil || out.TargetErr != nil {
		t.Fatalf("%v %v", err, out.TargetErr)
	}
	if len(out.Started) != 2 {
		t.Fatalf("started %+v; want a and b", out.Started)
	}
	if resp == nil {
		t.Fatal("the ready URL did not answer during the run")
	}
	line, _, _ := strings.Cut(string(body), "\n")
	a, b := out.Started[0], out.Started[1]
	if a.Target != "a" || a.URL != "http://"+addrA+"/ready?x=1" || a.Status != resp.StatusCode || a.Answer != line || line != "loaded 7 things in 1.5s" {
		t.Errorf("a: %+v; want its ready URL's answer %d %q, its first line", a, resp.StatusCode, line)
	}
	if b.Target != "b" || b.URL != "" || b.Answer != "" {
		t.Errorf("b: %+v; want no ready URL", b)
	}
	for _, r := range out.Started {
		if r.After <= 0 || r.After > took {
			t.Errorf("%s: ready after %v; want within the %v the plan took", r.Target, r.After, took)
		}
	}
	for _, format := range []string{"text", "markdown", "html", "json"} {
		var buf bytes.Buffer
		if err := Render(&buf, out, format, report.Options{}); err != nil {
			t.Fatal(err)
		}
		want := map[string][]string{
			"text":     {"═══ targets ═══", "Targets started (before the runs, outside their figures)", "http://" + addrA + "/ready?x=1 answered 200", "its port took connections"},
			"markdown": {"## targets", "| a | ", " | http://" + addrA + "/ready?x=1 answered 200 | " + a.Answer + " |", "| b | ", " | its port took connections | — |"},
			"html":     {"<h2>targets</h2>", "<td>its port took connections</td>"},
			"json":     {`"started": [`, `"target": "a"`, `"ready_url": "http://` + addrA + `/ready?x=1"`, `"status": 200`, `"ready_after_s": `},
		}[format]
		for _, w := range want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("%s report lacks %q:\n%s", format, w, buf.String())
			}
		}
	}
}
