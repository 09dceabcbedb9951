package capacity

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/summary"
)

// Formats are the formats Render writes.
var Formats = []string{"text", "markdown", "json", "html"}

// Answer is the search's conclusion in one line: "max sustainable: 7,400/s at p99 43.1 ms (first
// failure at 7,800/s)".
func (r *Result) Answer() string {
	switch {
	case r.Best == nil && len(r.Steps) == 0:
		return "no step ran"
	case r.Best == nil:
		return fmt.Sprintf("no rate tried met the objective: the lowest, %s/s, failed", rate(r.FirstFail))
	}
	s := r.Best.Summary
	a := fmt.Sprintf("max sustainable: %s/s at p99 %s ms", rate(r.Best.Rate), ms(s.Latency.P99))
	switch {
	case r.AtMax:
		a += " — every rate up to the highest tried passed: the capacity may be higher (raise --max)"
	case r.FirstFail > 0:
		a += fmt.Sprintf(" (first failure at %s/s)", rate(r.FirstFail))
	}
	if r.Interrupted {
		a += "; interrupted: the search did not finish"
	}
	return a
}

// Render writes r in format (text, markdown, json or html: a page with latency against rate);
// slo and target head it.
func Render(w io.Writer, r *Result, slo plan.SLO, target, format string) error {
	switch format {
	case "", "text":
		return renderText(w, r, slo, target)
	case "markdown", "md":
		return renderMarkdown(w, r, slo, target)
	case "json":
		return renderJSON(w, r, slo, target)
	case "html":
		return renderHTML(w, r, slo, target)
	}
	return fmt.Errorf("capacity: format %q: want %s", format, strings.Join(Formats, ", "))
}

// row is one step's figures as the tables show them.
type row struct {
	rate, achieved, p50, p99, errors, verdict string
}

func rows(r *Result) []row {
	var out []row
	for _, st := range r.Steps {
		out = append(out, st.row())
	}
	return out
}

func (st Step) row() row {
	s := st.Summary
	return row{
		rate:     rate(st.Rate),
		achieved: rate(s.Achieved()),
		p50:      ms(s.Latency.P50),
		p99:      ms(s.Latency.P99),
		errors:   strconv.FormatFloat(100*s.ErrorShare(), 'f', 2, 64) + "%",
		verdict:  verdict(st),
	}
}

// Line is the step in one line, for a progress line: "2,000/s → 1,998/s, p50 0.40 ms, p99 1.20 ms,
// errors 0.00%: pass".
func (st Step) Line() string {
	x := st.row()
	return fmt.Sprintf("%s/s → %s/s, p50 %s ms, p99 %s ms, errors %s: %s", x.rate, x.achieved, x.p50, x.p99, x.errors, x.verdict)
}

func verdict(st Step) string {
	if st.Interrupted {
		return "interrupted"
	}
	v := "pass"
	if !st.Pass {
		var missed []string
		if st.SLO != nil {
			for _, o := range st.SLO.Failed() {
				missed = append(missed, o.Objective)
			}
		}
		v = "FAIL"
		if len(missed) > 0 {
			v += " " + strings.Join(missed, ", ")
		}
	}
	if st.Collapsed {
		v += " (collapsed: cut short)"
	}
	return v
}

func renderText(w io.Writer, r *Result, slo plan.SLO, target string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Capacity of %s against %s\n\n", target, slo)
	fmt.Fprintf(&b, "  %10s  %10s  %9s  %9s  %7s  %s\n", "rate/s", "achieved/s", "p50 ms", "p99 ms", "errors", "verdict")
	for _, x := range rows(r) {
		fmt.Fprintf(&b, "  %10s  %10s  %9s  %9s  %7s  %s\n", x.rate, x.achieved, x.p50, x.p99, x.errors, x.verdict)
	}
	fmt.Fprintf(&b, "\n%s\n", r.Answer())
	_, err := io.WriteString(w, b.String())
	return err
}

func renderMarkdown(w io.Writer, r *Result, slo plan.SLO, target string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## Capacity of `%s` against `%s`\n\n", target, slo)
	b.WriteString("| rate/s | achieved/s | p50 ms | p99 ms | errors | verdict |\n|---:|---:|---:|---:|---:|---|\n")
	for _, x := range rows(r) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", x.rate, x.achieved, x.p50, x.p99, x.errors, x.verdict)
	}
	fmt.Fprintf(&b, "\n**%s**\n", r.Answer())
	_, err := io.WriteString(w, b.String())
	return err
}

// jsonStep is a step in the JSON report: its verdict and its whole summary.
type jsonStep struct {
	Step
	Report *summary.Summary `json:"report"`
}

func renderJSON(w io.Writer, r *Result, slo plan.SLO, target string) error {
	out := struct {
		Schema      string     `json:"schema"`
		Target      string     `json:"target"`
		SLO         plan.SLO   `json:"slo"`
		MaxRate     float64    `json:"max_sustainable_rps"`
		FirstFail   float64    `json:"first_failure_rps,omitempty"`
		AtMax       bool       `json:"at_max,omitempty"`
		Interrupted bool       `json:"interrupted,omitempty"`
		Answer      string     `json:"answer"`
		Steps       []jsonStep `json:"steps"`
	}{Schema: "rpcbench.capacity/v1", Target: target, SLO: slo, FirstFail: r.FirstFail, AtMax: r.AtMax, Interrupted: r.Interrupted, Answer: r.Answer()}
	if r.Best != nil {
		out.MaxRate = r.Best.Rate
	}
	for _, st := range r.Steps {
		out.Steps = append(out.Steps, jsonStep{Step: st, Report: st.Summary})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// rate formats a rate per second with thousands separators and no more precision than it has:
// 7400 → "7,400", 12.5 → "12.5".
func rate(v float64) string {
	if v >= 100 {
		return group(strconv.FormatFloat(v, 'f', 0, 64))
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func group(digits string) string {
	if len(digits) <= 3 {
		return digits
	}
	var b strings.Builder
	head := len(digits) % 3
	if head > 0 {
		b.WriteString(digits[:head])
	}
	for i := head; i < len(digits); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(digits[i : i+3])
	}
	return b.String()
}

func ms(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}
