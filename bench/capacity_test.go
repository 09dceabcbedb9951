package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/monitor"
	"github.com/rpcbench/rpcbench/report"
)

// A capacity scenario runs a search against each target and puts them side by side. The SLO is
// one no answer of a running lab server can miss (no errors), and max is two steps above start:
// each search is exactly start, start×2 and max, every one passing, then max twice more to
// confirm it, and stops there.
func TestCapacityScenario(t *testing.T) {
	t.Parallel()
	a, _ := countingLab(t)
	b, _ := countingLab(t)
	bench := readBench(t, t.TempDir(), fmt.Sprintf(`targets:
  a: {url: %q}
  b: {url: %q}
scenarios:
  cap:
    path: /x
    capacity: {slo: "errors<1%%", start: 20, max: 80, step: 200ms, warmup: 0s, max_steps: 5}
`, a.URL(), b.URL()))
	out, err := Run(context.Background(), bench, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Capacity) != 2 || len(out.Runs) != 0 {
		t.Fatalf("got %d searches and %d runs; want 2 searches", len(out.Capacity), len(out.Runs))
	}
	for i, c := range out.Capacity {
		if c.Target != []string{"a", "b"}[i] || c.Err != nil {
			t.Fatalf("search %d: %s: %v", i, c, c.Err)
		}
		var rates []string
		for _, st := range c.Result.Steps {
			rates = append(rates, fmt.Sprint(st.Rate))
		}
		if strings.Join(rates, " ") != "20 40 80 80 80" || !c.Result.AtMax || c.Result.Best.Rate != 80 {
			t.Errorf("%s: steps %v, at max %v; want 20 40 80 80 80, at max", c, rates, c.Result.AtMax)
		}
	}
	if f := out.Failures(); len(f) != 0 {
		t.Errorf("failures: %q; want none", f)
	}
	for _, format := range []string{"text", "markdown", "html", "json"} {
		var buf bytes.Buffer
		if err := Render(&buf, out, format, report.Options{}); err != nil {
			t.Fatal(err)
		}
		want := map[string][]string{
			"text":     {"cap (capacity search)", "Capacity of a against errors<1%", "max sustainable: at least 80/s", "Capacity compared", "none up to the max", "same requests/s"},
			"markdown": {"Capacity of a against errors<1%:", "**max sustainable: at least 80/s", "| b | 80 | ", "| same requests/s |"},
			"html":     {"<h2>cap (capacity search)</h2>", "<td>b</td><td class=\"n\">80</td>", "<h3>Capacity of b against errors&lt;1%</h3>", "<p><b>max sustainable: at least 80/s"},
			"json":     {`"capacity": [`, `"max_sustainable_rps": 80`},
		}[format]
		for _, w := range want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("%s report lacks %q:\n%s", format, w, buf.String())
			}
		}
	}
}

// A capacity search against a started target watches it step by step: every step's summary holds
// the target's command, sampled over that step, and the steps table has its CPU and memory.
func TestCapacityMonitorsSteps(t *testing.T) {
	t.Parallel()
	if _, err := monitor.NewSampler(monitor.Self()); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	addr := freeAddr(t)
	bench := readBench(t, dir, fmt.Sprintf(`targets:
  started:
    url: http://%s/
    command: [%q]
    env: {%s: %q}
    ready_timeout: 1m
scenarios:
  cap:
    interval: 100ms
    capacity: {slo: "errors<1%%", start: 20, max: 40, step: 300ms, warmup: 0s, confirm: 2}
`, addr, os.Args[0], helperEnv, addr))
	out, err := Run(context.Background(), bench, Options{})
	if err != nil || out.TargetErr != nil || len(out.Capacity) != 1 || out.Capacity[0].Result == nil {
		t.Fatalf("%v %v %+v", err, out.TargetErr, out.Capacity)
	}
	steps := out.Capacity[0].Result.Steps
	if len(steps) != 3 {
		t.Fatalf("steps: got %d; want 3 (20/s, and 40/s twice: confirm: 2)", len(steps))
	}
	for _, st := range steps {
		p, ok := primary(st.Summary.Resources)
		if !ok || !strings.HasPrefix(p.Target, "command, pid ") || p.Summary.Samples < 2 {
			t.Errorf("step %v/s: watched %+v (found %v); want the command, sampled at least twice over 300 ms at 100 ms", st.Rate, p.Target, ok)
		}
	}
	var buf bytes.Buffer
	capacitySteps(out.Capacity[0]).write(&buf, "markdown")
	if !strings.Contains(buf.String(), "| CPU (command, pid ") || !strings.Contains(buf.String(), "MiB") {
		t.Errorf("steps table lacks the CPU and memory columns:\n%s", buf.String())
	}
}
