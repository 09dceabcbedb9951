package capacity

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// Formats are the formats Render writes.
var Formats = []string{"text", "markdown", "json", "html"}

// Answer is the search's conclusion in one line: "between 7,288 and 7,611/s: max sustainable
// 7,288/s (3 of 3 runs passed, p99 up to 43.1 ms), 7,611/s failed 3 of 3 runs". "Max
// sustainable" names only a rate whose Confirmations runs all passed.
func (r *Result) Answer() string {
	var a string
	switch {
	case len(r.Steps) == 0:
		return "no step ran"
	case r.Best != nil && r.High > 0:
		a = fmt.Sprintf("between %s and %s/s: max sustainable %s/s (%s), %s/s failed %s",
			rate(r.Best.Rate), rate(r.High), rate(r.Best.Rate), r.passedAtBest(), rate(r.High), r.runsText(r.High, false))
	case r.AtMax:
		a = fmt.Sprintf("max sustainable: at least %s/s, the highest tried (%s): the capacity may be higher (raise --max)", rate(r.Best.Rate), r.passedAtBest())
	case r.Best != nil:
		a = fmt.Sprintf("max sustainable: at least %s/s (%s); no higher rate failed %s", rate(r.Best.Rate), r.passedAtBest(), r.allRuns())
	default:
		top := 0.0
		for _, st := range r.Steps {
			if st.Pass && !st.Interrupted {
				top = math.Max(top, st.Rate)
			}
		}
		if top == 0 && r.FirstFail > 0 {
			return fmt.Sprintf("no rate tried met the objective: the lowest, %s/s, failed", rate(r.FirstFail)) + r.interrupted()
		}
		a = "no rate confirmed: a rate needs " + r.allRuns() + " to pass"
		if n := r.Steps[0].Needed; n > 0 {
			a += ", each with " + answersText(n) + " answers"
		}
		if top > 0 {
			a += fmt.Sprintf("; the highest that passed, %s/s, passed %s", rate(top), r.runsText(top, true))
		}
		if r.High > 0 {
			a += fmt.Sprintf("; %s/s failed %s", rate(r.High), r.runsText(r.High, false))
		}
	}
	a += r.mixed() + r.interrupted()
	if cpu := r.cpuAtBest(); cpu != "" {
		a += "; " + cpu
	}
	return a
}

func (r *Result) interrupted() string {
	if r.Interrupted {
		return "; interrupted: the search did not finish"
	}
	return ""
}

// tally counts the judged runs at rate and those that passed.
func (r *Result) tally(at float64) (passed, runs int) {
	for _, st := range r.Steps {
		if st.Rate == at && !st.Interrupted {
			runs++
			if st.Pass {
				passed++
			}
		}
	}
	return passed, runs
}

// runsText says how many of the runs at rate passed (or failed): "3 of 3 runs".
func (r *Result) runsText(at float64, pass bool) string {
	passed, runs := r.tally(at)
	n := passed
	if !pass {
		n = runs - passed
	}
	return fmt.Sprintf("%d of %d run%s", n, runs, plural(runs))
}

// allRuns is "all its 3 runs", or "its run" when one run decides.
func (r *Result) allRuns() string {
	if r.Confirmations <= 1 {
		return "its run"
	}
	return fmt.Sprintf("all its %d runs", r.Confirmations)
}

func (r *Result) passedAtBest() string {
	_, runs := r.tally(r.Best.Rate)
	p99 := "p99 " + ms(r.Best.Summary.Latency.P99) + " ms"
	if runs > 1 {
		p99 = "p99 up to " + ms(r.Best.Summary.Latency.P99) + " ms"
	}
	return r.runsText(r.Best.Rate, true) + " passed, " + p99
}

// mixed names the rates inside the range whose runs disagreed: "; verdicts mixed at 7,400/s (2
// of 3 runs passed)".
func (r *Result) mixed() string {
	if r.Best == nil {
		return ""
	}
	var rates []float64
	for _, st := range r.Steps {
		if st.Rate > r.Best.Rate && (r.High == 0 || st.Rate < r.High) && !slices.Contains(rates, st.Rate) {
			rates = append(rates, st.Rate)
		}
	}
	slices.Sort(rates)
	var out []string
	for _, x := range rates {
		if passed, runs := r.tally(x); passed > 0 && passed < runs {
			out = append(out, fmt.Sprintf("%s/s (%d of %d runs passed)", rate(x), passed, runs))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "; verdicts mixed at " + strings.Join(out, ", ")
}

// cpuAtBest is the CPU of the first watched target in the run of Best: "CPU of pid 4242 at
// 7,288/s: 16% avg, 22% peak of one core"; "" when no target was watched.
func (r *Result) cpuAtBest() string {
	if r.Best == nil {
		return ""
	}
	target, c, ok := targetCPU(r.Best.Summary)
	if !ok {
		return ""
	}
	return fmt.Sprintf("CPU of %s at %s/s: %s avg, %s peak of one core", target, rate(r.Best.Rate), pct(c.Avg), pct(c.Peak))
}

// targetCPU is the CPU of the first target watched in s (the generator itself left out), and
// what it is: "pid 4242"; ok is false when none was watched with a CPU sample.
func targetCPU(s *summary.Summary) (target string, cpu result.ResourceStat, ok bool) {
	if s == nil {
		return "", cpu, false
	}
	for _, res := range s.Resources {
		if !res.Self && res.Summary.CPUPercent.Samples > 0 {
			return res.Target, res.Summary.CPUPercent, true
		}
	}
	return "", cpu, false
}

// watched is the target whose CPU the tables show, "" when no step watched one.
func (r *Result) watched() string {
	for _, st := range r.Steps {
		if target, _, ok := targetCPU(st.Summary); ok {
			return target
		}
	}
	return ""
}

func pct(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) + "%" }

// Warnings are what the reader must know beside the answer: verdicts that were not monotonic in
// the rate (a run failed below a rate at which one passed), and steps with too few answers for
// the percentiles they were judged on.
func (r *Result) Warnings() []string {
	var w []string
	lowFail, highPass := math.Inf(1), 0.0
	few := 0
	for _, st := range r.Steps {
		if st.Interrupted {
			continue
		}
		if st.Pass {
			highPass = math.Max(highPass, st.Rate)
		} else {
			lowFail = math.Min(lowFail, st.Rate)
		}
		if st.FewSamples {
			few++
		}
	}
	if highPass > lowFail {
		w = append(w, fmt.Sprintf("verdicts were not monotonic in the rate: a run at %s/s failed, one at %s/s passed — a noisy target or machine; one step decides nothing here, the range rests on the repeats", rate(lowFail), rate(highPass)))
	}
	if few > 0 {
		w = append(w, fmt.Sprintf("%d step%s had fewer answers than the %s the objective's percentiles need, even lengthened to %d times the step: they confirm nothing", few, plural(few), answersText(r.Steps[0].Needed), maxLengthening))
	}
	return w
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func answersText(n uint64) string { return group(strconv.FormatUint(n, 10)) }

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
	// cpu is the watched target's average CPU in the step (see Result.watched), "—" when it has none
	cpu string
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
	x := row{
		rate:     rate(st.Rate),
		achieved: rate(s.Achieved()),
		p50:      ms(s.Latency.P50),
		p99:      ms(s.Latency.P99),
		errors:   strconv.FormatFloat(100*s.ErrorShare(), 'f', 2, 64) + "%",
		verdict:  verdict(st),
		cpu:      "—",
	}
	if _, c, ok := targetCPU(s); ok {
		x.cpu = pct(c.Avg)
	}
	return x
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
	if st.FewSamples {
		v += fmt.Sprintf(" (few answers: %s of %s)", answersText(st.Answers), answersText(st.Needed))
	}
	if st.Phase == "confirm" {
		v += " (repeat)"
	}
	return v
}

func renderText(w io.Writer, r *Result, slo plan.SLO, target string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Capacity of %s against %s\n\n", target, slo)
	watched := r.watched()
	cpu := func(v string) string {
		if watched == "" {
			return ""
		}
		return fmt.Sprintf("%5s  ", v)
	}
	fmt.Fprintf(&b, "  %10s  %10s  %9s  %9s  %7s  %s%s\n", "rate/s", "achieved/s", "p50 ms", "p99 ms", "errors", cpu("CPU"), "verdict")
	for _, x := range rows(r) {
		fmt.Fprintf(&b, "  %10s  %10s  %9s  %9s  %7s  %s%s\n", x.rate, x.achieved, x.p50, x.p99, x.errors, cpu(x.cpu), x.verdict)
	}
	if watched != "" {
		fmt.Fprintf(&b, "\n(CPU: of %s, average over each step's measured part, in %% of one core)\n", watched)
	}
	fmt.Fprintf(&b, "\n%s\n", r.Answer())
	for _, x := range r.Warnings() {
		fmt.Fprintf(&b, "warning: %s\n", x)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func renderMarkdown(w io.Writer, r *Result, slo plan.SLO, target string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## Capacity of `%s` against `%s`\n\n", target, slo)
	watched := r.watched()
	if watched == "" {
		b.WriteString("| rate/s | achieved/s | p50 ms | p99 ms | errors | verdict |\n|---:|---:|---:|---:|---:|---|\n")
	} else {
		fmt.Fprintf(&b, "| rate/s | achieved/s | p50 ms | p99 ms | errors | CPU of %s | verdict |\n|---:|---:|---:|---:|---:|---:|---|\n", watched)
	}
	for _, x := range rows(r) {
		cpu := ""
		if watched != "" {
			cpu = x.cpu + " | "
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s%s |\n", x.rate, x.achieved, x.p50, x.p99, x.errors, cpu, x.verdict)
	}
	fmt.Fprintf(&b, "\n**%s**\n", r.Answer())
	for _, x := range r.Warnings() {
		fmt.Fprintf(&b, "\n> warning: %s\n", x)
	}
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
		High        float64    `json:"failed_rps,omitempty"`
		Confirm     int        `json:"confirmations"`
		FirstFail   float64    `json:"first_failure_rps,omitempty"`
		AtMax       bool       `json:"at_max,omitempty"`
		Interrupted bool       `json:"interrupted,omitempty"`
		Answer      string     `json:"answer"`
		Warnings    []string   `json:"warnings,omitempty"`
		Steps       []jsonStep `json:"steps"`
	}{Schema: "rpcbench.capacity/v1", Target: target, SLO: slo, High: r.High, Confirm: r.Confirmations, FirstFail: r.FirstFail,
		AtMax: r.AtMax, Interrupted: r.Interrupted, Answer: r.Answer(), Warnings: r.Warnings()}
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
