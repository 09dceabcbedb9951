package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/runner"
	"github.com/rpcbench/rpcbench/serve/lab"
	"github.com/rpcbench/rpcbench/summary"
)

// figures are what one run of a scenario must give alike whichever command ran it, timings aside.
type figures struct {
	Sent, OK, Errors uint64
	Endpoints        []string
	Statuses         map[string]uint64
	Stages           []string // index, from → to, requests
	Resources        []string // labels
	Header           []string // the endpoint's headers as the summary's plan shows them
}

func figuresOf(s *summary.Summary) figures {
	f := figures{Sent: s.Requests.Sent, OK: s.Requests.OK, Errors: s.Requests.Errors, Statuses: s.Status}
	for _, e := range s.Endpoints {
		f.Endpoints = append(f.Endpoints, e.Name)
	}
	for _, st := range s.Stages {
		f.Stages = append(f.Stages, fmt.Sprintf("%d %g→%g %d", st.Index, st.From, st.To, st.Requests))
	}
	for _, r := range s.Resources {
		f.Resources = append(f.Resources, r.Target)
	}
	for _, e := range s.Config.Endpoints {
		for _, h := range e.Header {
			f.Header = append(f.Header, h.Name+": "+h.Value)
		}
	}
	return f
}

// One scenario run by `run --plan`, by `bench`, as a Kubernetes pod runs its segment, and as a
// step of `capacity` at the same rate gives the same figures — counts, stages, what was watched,
// the secrets redacted — because all four go through runner.Run. Before the runner, bench had no
// per-stage figures and capacity wrote the Authorization token in clear.
func TestOneScenarioEveryPath(t *testing.T) {
	t.Parallel()
	srv := startLab(t, lab.Config{})
	dir := t.TempDir()
	planFile := filepath.Join(dir, "p.yaml")
	const secret = "k3yValueOnePath"
	if err := os.WriteFile(planFile, []byte(fmt.Sprintf(`targets:
  lab: {url: %q}
scenarios:
  s:
    path: /x
    header: {Authorization: "Bearer %s"}
    stages: "0s:200,600ms:200"
`, srv.URL(), secret)), 0o644); err != nil {
		t.Fatal(err)
	}
	decode := func(name, out string, v any) {
		t.Helper()
		if strings.Contains(out, secret) {
			t.Errorf("%s: the output holds the secret", name)
		}
		if err := json.NewDecoder(strings.NewReader(out)).Decode(v); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
	}
	got := map[string]figures{}

	code, stdout, stderr := cliRun(t, "run", "--plan", planFile, "--scenario", "s", "--target", "lab", "--format", "json", "--quiet")
	if code != ExitOK {
		t.Fatalf("run --plan: exit %d: %s", code, stderr)
	}
	var s summary.Summary
	decode("run --plan", stdout, &s)
	got["run --plan"] = figuresOf(&s)

	code, stdout, stderr = cliRun(t, "run", "--plan", planFile, "--scenario", "s", "--target", "lab", "--segment-index", "0/1",
		"--start-at", "+100ms", "--out-log", "--no-verdict", "--quiet", "--format", "json")
	if code != ExitOK {
		t.Fatalf("k8s pod: exit %d: %s", code, stderr)
	}
	var pod summary.Summary
	decode("k8s pod", stdout, &pod)
	got["k8s pod"] = figuresOf(&pod)

	out := filepath.Join(dir, "bench")
	code, _, stderr = cliRun(t, "bench", "--quiet", "--out-dir", out, planFile)
	if code != ExitOK {
		t.Fatalf("bench: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var bench struct {
		Scenarios []struct {
			Steps []struct {
				Report *summary.Summary `json:"report"`
			} `json:"steps"`
		} `json:"scenarios"`
	}
	decode("bench", string(b), &bench)
	if len(bench.Scenarios) != 1 || len(bench.Scenarios[0].Steps) != 1 || bench.Scenarios[0].Steps[0].Report == nil {
		t.Fatalf("bench: %+v; want one scenario of one run", bench)
	}
	got["bench"] = figuresOf(bench.Scenarios[0].Steps[0].Report)

	code, stdout, stderr = cliRun(t, "capacity", "--slo", "errors<50%", "--start", "200", "--max", "200", "--step", "600ms",
		"--step-warmup", "0s", "--confirm", "1", "--quiet", "--format", "json", "-H", "Authorization: Bearer "+secret, srv.URL()+"/x")
	if code != ExitOK {
		t.Fatalf("capacity: exit %d: %s", code, stderr)
	}
	var capa struct {
		Steps []struct {
			Report *summary.Summary `json:"report"`
		} `json:"steps"`
	}
	decode("capacity", stdout, &capa)
	if len(capa.Steps) != 1 || capa.Steps[0].Report == nil {
		t.Fatalf("capacity: %d steps; want 1", len(capa.Steps))
	}
	got["capacity step"] = figuresOf(capa.Steps[0].Report)

	want := got["run --plan"]
	if want.Sent != 120 || want.OK != 120 || len(want.Stages) == 0 || !slices.Contains(want.Resources, runner.SelfLabel) ||
		len(want.Header) != 1 || strings.Contains(want.Header[0], secret) {
		t.Fatalf("run --plan: %+v; want 120 requests ok (200/s for 600 ms), its stages, the generator watched, the header redacted", want)
	}
	for name, f := range got {
		w := want
		if name == "capacity step" {
			w.Stages = nil // a step runs one rate, no stages
		}
		if !equalFigures(f, w) {
			t.Errorf("%s: %+v\nwant as run --plan: %+v", name, f, w)
		}
	}
}

func equalFigures(a, b figures) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}
