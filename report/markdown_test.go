package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/summary"
)

func TestMarkdownGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		golden string
		files  []string
		labels []string
	}{
		{"one.md", fixtures[:1], nil},
		{"multi.md", fixtures[2:], nil},
		{"compare.md", fixtures[:2], []string{"one.rb", "two.rb"}},
	}
	for _, tc := range tests {
		var runs []*summary.Summary
		for _, f := range tc.files {
			runs = append(runs, load(t, f))
		}
		var b bytes.Buffer
		if err := Markdown(&b, runs, tc.labels); err != nil {
			t.Fatal(err)
		}
		golden(t, tc.golden, b.Bytes())
	}
}

// TestMarkdownTable checks every row of a rendered table has as many cells as its header, so that
// the table renders: an endpoint name with a pipe must not add a column.
func TestMarkdownTable(t *testing.T) {
	t.Parallel()
	s := load(t, fixtures[2])
	s.Endpoints[0].Name = "get|a"
	var b bytes.Buffer
	if err := Markdown(&b, []*summary.Summary{s, load(t, fixtures[2])}, nil); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&b, []*summary.Summary{s}, nil); err != nil {
		t.Fatal(err)
	}
	cols := 0
	for _, line := range strings.Split(b.String(), "\n") {
		if !strings.HasPrefix(line, "|") {
			cols = 0
			continue
		}
		n := strings.Count(line, "|") - strings.Count(line, `\|`)
		if cols == 0 {
			cols = n
		} else if n != cols {
			t.Errorf("row %q has %d separators; want %d as in its header", line, n, cols)
		}
	}
	if err := Markdown(&b, nil, nil); err == nil {
		t.Errorf("got no error for no runs; want one")
	}
}

// A closed-model run has no intended rate and no send lag (each connection sends when answered):
// its Markdown says neither, as its text report does not; an open-model run says both.
func TestMarkdownIntendedRateOfTheOpenModelOnly(t *testing.T) {
	t.Parallel()
	for _, model := range []plan.Model{plan.Open, plan.Closed} {
		s := load(t, fixtures[0])
		s.Config.Load.Model = model
		s.IntendedRate = 1210.7 // as the summary of a closed run counts it: what was sent per second
		var b bytes.Buffer
		if err := Markdown(&b, []*summary.Summary{s}, nil); err != nil {
			t.Fatal(err)
		}
		open := model == plan.Open
		for _, row := range []string{"| intended rate | 1210.7/s |", "| send lag p99 |"} {
			if got := strings.Contains(b.String(), row); got != open {
				t.Errorf("model %v: row %q shown %v; want %v", model, row, got, open)
			}
		}
	}
}
