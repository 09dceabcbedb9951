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

	// the sections are in the whole reports, and absent without objectives
	var full bytes.Buffer
	if err := Text(&full, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(full.String(), txt.String()) {
		t.Errorf("text report: got\n%s\nwant it to contain the SLO section\n%s", full.String(), txt.String())
	}
	full.Reset()
	if err := Markdown(&full, []*summary.Summary{s}, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(full.String(), md.String()) {
		t.Errorf("markdown report: got\n%s\nwant it to contain the SLO section\n%s", full.String(), md.String())
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
