package cli

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/summary"
)

// exitCodesHelp is the table of exit codes, as the help and docs/load.md give it.
const exitCodesHelp = `Exit codes:
  0  the run completed (and met its --slo objectives)
  1  an --slo objective was missed, or no request succeeded (compare: a --fail-on gate failed)
  2  usage: a bad flag, argument or input file
  3  interrupted (Ctrl-C): what was measured was still reported
  4  the run could not start, or a report or result file could not be written
  5  --require-valid, and the run was invalid (the report's first line says why)`

// sloValue is the flag.Value of --slo: objectives parsed with plan.ParseSLO, every problem on one
// line (the flag package's errors are one line).
type sloValue struct{ p *plan.SLO }

func (v sloValue) String() string {
	if v.p == nil {
		return ""
	}
	return v.p.String()
}

func (v sloValue) Set(s string) error {
	slo, err := plan.ParseSLO(s)
	if err != nil {
		return fmt.Errorf("%s (want objectives such as p99<50ms,errors<0.1%%,rate>=0.99)", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	*v.p = slo
	return nil
}

// defineSLO defines --slo on fs, into p.
func defineSLO(fs *flag.FlagSet, p *plan.SLO) {
	fs.Var(sloValue{p}, "slo", "objectives the run must meet, e.g. `'p99<50ms,errors<0.1%,rate>=0.99'` (p50…p9999, max, mean <ms; errors <%; rate >fraction; rps >N); a miss exits 1")
}

// verdict returns the exit code of a completed run judged by s: ExitSLO, with the reasons on stderr,
// when an objective was missed or when no request succeeded (a run of subscriptions alone: when no
// subscription opened); else ExitOK.
func verdict(w io.Writer, cmd string, s *summary.Summary) int {
	code := ExitOK
	if u := s.Subscriptions; s.Config.SubscriptionsOnly() && u != nil {
		if u.Opened == 0 {
			fmt.Fprintf(w, "rpcbench %s: no subscription opened (%d asked, %d failed)\n", cmd, u.Asked, u.Failed)
			code = ExitSLO
		}
		return code
	}
	if s.Requests.OK == 0 {
		fmt.Fprintf(w, "rpcbench %s: no request succeeded: %s\n", cmd, nothingSucceeded(s))
		code = ExitSLO
	}
	if s.SLO != nil && !s.SLO.Pass {
		fmt.Fprintf(w, "rpcbench %s: SLO missed: %s\n", cmd, missed(s.SLO))
		code = ExitSLO
	}
	return code
}

// nothingSucceeded says what became of the requests of a run in which none succeeded.
func nothingSucceeded(s *summary.Summary) string {
	r := s.Requests
	if r.Attempted() == 0 {
		if r.Dropped > 0 {
			return fmt.Sprintf("none of %d intended requests was sent", r.Intended)
		}
		return "no request was sent"
	}
	var classes []string
	for _, c := range slices.Sorted(maps.Keys(s.Errors)) {
		classes = append(classes, fmt.Sprintf("%s %d", c, s.Errors[c]))
	}
	msg := fmt.Sprintf("%d of %d failed", r.Errors, r.Attempted())
	if len(classes) > 0 {
		msg += " (" + strings.Join(classes, ", ") + ")"
	}
	return msg
}

// missed lists the objectives of r that failed, with what was measured.
func missed(r *summary.SLOResults) string {
	var parts []string
	for _, o := range r.Failed() {
		if o.Note != "" {
			parts = append(parts, fmt.Sprintf("%s (%s)", o.Objective, o.Note))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s (measured %s)", o.Objective, sloValueText(o)))
	}
	return strings.Join(parts, ", ")
}

// sloValueText writes a measured value in the unit of its objective.
func sloValueText(o summary.SLOResult) string {
	metric := o.Objective
	if i := strings.IndexAny(metric, "<>"); i >= 0 {
		metric = metric[:i]
	}
	switch metric {
	case "errors":
		return fmt.Sprintf("%.3g%%", o.Value*100)
	case "rate":
		return fmt.Sprintf("%.3f", o.Value)
	case "rps":
		return fmt.Sprintf("%.1f/s", o.Value)
	}
	return summary.FormatMs(o.Value)
}

// rejudge judges each run again against slo, when one is given, in place of the objectives saved
// with it; it returns ExitSLO, with the reasons on stderr, when a run misses them.
func rejudge(w io.Writer, runs []loaded, slo plan.SLO) int {
	if len(slo) == 0 {
		return ExitOK
	}
	code := ExitOK
	for _, r := range runs {
		r.sum.Config.SLO = slo
		r.sum.SLO = summary.JudgeSLO(r.sum, slo)
		if !r.sum.SLO.Pass {
			fmt.Fprintf(w, "rpcbench report: %s: SLO missed: %s\n", r.label, missed(r.sum.SLO))
			code = ExitSLO
		}
	}
	return code
}
