package report

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/summary"
)

// openRun is an open-model run of 10 s at rate that answered ok requests, none failed, with a p99
// in ms.
func openRun(rate float64, ok uint64, p99 float64) *summary.Summary {
	s := &summary.Summary{Target: "http://127.0.0.1:1/"}
	s.Config.Load = plan.Load{Model: plan.Open, Rate: rate, Duration: 10 * time.Second}
	s.IntendedRate, s.DurationS = rate, 10
	s.Requests.Sent, s.Requests.OK = ok, ok
	s.Throughput = float64(ok) / 10
	s.Latency.P99 = p99
	return s
}

// closedRun is a closed-model run of 10 s over conns connections at throughput rps.
func closedRun(conns int, rps float64) *summary.Summary {
	s := &summary.Summary{Target: "http://127.0.0.1:1/"}
	s.Config.Load = plan.Load{Model: plan.Closed, Connections: conns, Duration: 10 * time.Second}
	s.DurationS, s.Throughput = 10, rps
	s.Requests.Sent, s.Requests.OK = uint64(rps*10), uint64(rps*10)
	s.Latency.P99 = 5
	return s
}

// Two open-model runs at 1000/s and 2000/s: the rate is the input, so their throughput is shown but
// never called better (nor bold, nor green); achieved/intended is judged, and each format says the
// runs were compared at their own inputs.
func TestCompareOpenModelJudgesOnlyOutcomes(t *testing.T) {
	t.Parallel()
	// at 1000/s 9990 of 10,000 answered in 10 s: 99.9% of the intended rate; at 2000/s 19,000 of
	// 20,000: 95.0%, worse, though its throughput (1900/s) is 1.9× the first's
	runs := []*summary.Summary{openRun(1000, 9990, 10), openRun(2000, 19000, 10)}
	labels := []string{"a.rb", "b.rb"}
	render := func(format string) string {
		var b bytes.Buffer
		if err := Render(&b, runs, format, Options{Labels: labels}); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		return b.String()
	}
	note := "compared at their own inputs: rate 1000/s vs 2000/s"

	text := render("text")
	for _, want := range []string{note, "rate    1000/s  2000/s", "0.95× the achieved/intended (worse)"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if line := regexp.MustCompile(`(?m)^  throughput .*$`).FindString(text); line == "" || strings.Contains(line, "better") || !strings.Contains(line, "1.9× the requests/s") {
		t.Errorf("text: the throughput row %q; want the ratio 1.9× without a verdict", line)
	}

	md := render("markdown")
	if !strings.Contains(md, note) || !strings.Contains(md, "| throughput | 999.0 req/s | 1900.0 req/s | 1.9× the requests/s |") {
		t.Errorf("markdown: want %q and a throughput row that is not bold:\n%s", note, md)
	}

	page := render("html")
	if !strings.Contains(page, note) {
		t.Errorf("html lacks %q", note)
	}
	if row := regexp.MustCompile(`<td>throughput</td>.*`).FindString(page); row == "" || strings.Contains(row, `class="better"`) || strings.Contains(row, `class="worse"`) {
		t.Errorf("html: throughput row %q; want it without a better or worse colour", row)
	}
	if !regexp.MustCompile(`<td>achieved/intended</td>.*<td class="worse">0.95× the achieved/intended</td>`).MatchString(page) {
		t.Errorf("html: want achieved/intended coloured worse")
	}

	var js struct {
		Comparison struct {
			InputsNote string `json:"inputs_note"`
			Metrics    []struct {
				Name   string     `json:"name"`
				Better string     `json:"better"`
				Values []*float64 `json:"values"`
			} `json:"metrics"`
		} `json:"comparison"`
	}
	if err := json.Unmarshal([]byte(render("json")), &js); err != nil {
		t.Fatal(err)
	}
	if js.Comparison.InputsNote != note {
		t.Errorf("json inputs_note %q; want %q", js.Comparison.InputsNote, note)
	}
	got := map[string]string{}
	for _, m := range js.Comparison.Metrics {
		got[m.Name] = m.Better
		if m.Name == "achieved/intended" && (*m.Values[0] != 99.9 || *m.Values[1] != 95) {
			t.Errorf("json achieved/intended %v, %v; want 99.9 and 95", *m.Values[0], *m.Values[1])
		}
	}
	if got["throughput"] != "not judged" || got["achieved/intended"] != "higher" {
		t.Errorf("json: throughput better=%q, achieved/intended better=%q; want \"not judged\" and \"higher\"", got["throughput"], got["achieved/intended"])
	}
}

// In the closed model throughput is what the target did with the connections: an outcome, judged.
// Runs of the same inputs say so.
func TestCompareClosedModelJudgesThroughput(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := Render(&b, []*summary.Summary{closedRun(10, 1000), closedRun(10, 2000)}, "text", Options{}); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, want := range []string{"2.0× more requests/s (better)", "connections  10      10", "the same inputs; inputs are the setting, not judged"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "achieved/intended") || strings.Contains(text, "In the open model") {
		t.Errorf("closed-model runs: want no achieved/intended nor open-model note:\n%s", text)
	}
}
