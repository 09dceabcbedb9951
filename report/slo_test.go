package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/summary"
)

// The SLO sections of the text and Markdown reports of a fixed run with 1% errors, judged against
// objectives of which some pass and some fail (go test -update rewrites them).
func TestSLOSectionsGolden(t *testing.T) {
	t.Parallel()
	s := load(t, fixtures[0])
	slo, err := plan.ParseSLO("p50<10ms,p99<1ms,errors<0.1%,rate>=0.5,rps>=1")
	if err != nil {
		t.Fatal(err)
	}
	s.SLO = summary.JudgeSLO(s, slo)
	var txt, md strings.Builder
	sloText(&txt, s)
	sloMarkdown(&md, s)
	golden(t, "slo.txt", []byte(txt.String()))
	golden(t, "slo.md", []byte(md.String()))

	// the sections are in the whole reports, and absent without objectives. A verdict made by
	// hand, and the lines it must come out as, written by hand: 1 of the 4 objectives fails; latency
	// in ms, errors in % of 3 digits, rate to 3 decimals, rps to 1
	s.SLO = &summary.SLOResults{Pass: false, Objectives: []summary.SLOResult{
		{Objective: "p99<50ms", Threshold: 50, Value: 62.5},
		{Objective: "errors<1%", Threshold: 0.01, Value: 0.0025, Pass: true},
		{Objective: "rate>=0.9", Threshold: 0.9, Value: 0.95, Pass: true},
		{Objective: "rps>=80", Threshold: 80, Value: 87.5, Pass: true},
	}}
	wantText := "\nSLO: FAIL (1 of 4 objectives failed)\n" +
		"  FAIL  p99<50ms         measured 62.5ms\n" +
		"  pass  errors<1%        measured 0.25%\n" +
		"  pass  rate>=0.9        measured 0.950\n" +
		"  pass  rps>=80          measured 87.5/s\n"
	wantMD := "\nSLO: **FAIL (1 of 4 objectives failed)**\n\n" +
		"| objective | measured | verdict |\n| --- | ---: | ---: |\n" +
		"| `p99<50ms` | 62.5ms | **fail** |\n" +
		"| `errors<1%` | 0.25% | pass |\n" +
		"| `rate>=0.9` | 0.950 | pass |\n" +
		"| `rps>=80` | 87.5/s | pass |\n"
	var full bytes.Buffer
	if err := Text(&full, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(full.String(), wantText) {
		t.Errorf("text report: got\n%s\nwant it to contain the SLO section\n%s", full.String(), wantText)
	}
	full.Reset()
	if err := Markdown(&full, []*summary.Summary{s}, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(full.String(), wantMD) {
		t.Errorf("markdown report: got\n%s\nwant it to contain the SLO section\n%s", full.String(), wantMD)
	}
	s.SLO = nil
	full.Reset()
	if err := Text(&full, s); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(full.String(), "SLO") {
		t.Errorf("text report without objectives: got an SLO section:\n%s", full.String())
	}
}
