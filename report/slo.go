package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rpcbench/rpcbench/summary"
)

// sloVerdict is the SLO's headline: "PASS (3 objectives)" or "FAIL (1 of 3 objectives failed)".
func sloVerdict(r *summary.SLOResults) string {
	n := len(r.Objectives)
	if r.Pass {
		return fmt.Sprintf("PASS (%d objective%s met)", n, plural(n))
	}
	return fmt.Sprintf("FAIL (%d of %d objective%s failed)", len(r.Failed()), n, plural(n))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// sloMeasured writes an objective's measured value in its unit: "12.3ms", "0.52%", "0.987", "950.0/s".
func sloMeasured(o summary.SLOResult) string {
	if o.Note != "" {
		return o.Note
	}
	metric := o.Objective
	if i := strings.IndexAny(metric, "<>"); i >= 0 {
		metric = metric[:i]
	}
	switch metric {
	case "errors":
		return strconv.FormatFloat(o.Value*100, 'g', 3, 64) + "%"
	case "rate":
		return strconv.FormatFloat(o.Value, 'f', 3, 64)
	case "rps":
		return fmt1(o.Value) + "/s"
	}
	return fmtMs(o.Value)
}

// sloText writes the SLO section of the text report, when the run had objectives.
func sloText(b *strings.Builder, s *summary.Summary) {
	r := s.SLO
	if r == nil {
		return
	}
	fmt.Fprintf(b, "\nSLO: %s\n", sloVerdict(r))
	for _, o := range r.Objectives {
		mark := "pass"
		if !o.Pass {
			mark = "FAIL"
		}
		fmt.Fprintf(b, "  %s  %-16s measured %s\n", mark, o.Objective, sloMeasured(o))
	}
}

// sloMarkdown writes the SLO table of the Markdown report, when the run had objectives.
func sloMarkdown(b *strings.Builder, s *summary.Summary) {
	r := s.SLO
	if r == nil {
		return
	}
	fmt.Fprintf(b, "\nSLO: **%s**\n\n", sloVerdict(r))
	mdHeader(b, "objective", "measured", "verdict")
	for _, o := range r.Objectives {
		v := "pass"
		if !o.Pass {
			v = "**fail**"
		}
		mdRow(b, "`"+mdCell(o.Objective)+"`", mdCell(sloMeasured(o)), v)
	}
}

// sloView is the SLO verdict of one run on the HTML page.
type sloView struct {
	Verdict string
	Pass    bool
	Rows    []sloRow
}

type sloRow struct {
	Objective, Measured string
	Pass                bool
}

// sloHTML is the SLO verdict of s for the HTML page; nil when the run had no objectives.
func sloHTML(s *summary.Summary) *sloView {
	r := s.SLO
	if r == nil {
		return nil
	}
	v := &sloView{Verdict: sloVerdict(r), Pass: r.Pass}
	for _, o := range r.Objectives {
		v.Rows = append(v.Rows, sloRow{Objective: o.Objective, Measured: sloMeasured(o), Pass: o.Pass})
	}
	return v
}

// sloSuffix is the SLO verdict of s at the end of a line that lists runs: "; SLO **PASS (…)**"; ""
// when the run had no objectives.
func sloSuffix(s *summary.Summary) string {
	if s.SLO == nil {
		return ""
	}
	return "; SLO **" + sloVerdict(s.SLO) + "**"
}
