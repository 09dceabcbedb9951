package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/rpcbench/rpcbench/compare"
	"github.com/rpcbench/rpcbench/report"
)

func init() {
	register(command{name: "compare", summary: "compare two result files, each difference tested against the runs' noise; --fail-on gates CI", run: runCompare})
}

const compareExamples = `  rpcbench compare base.rb new.rb                                  the figures side by side, change, P, verdict
  rpcbench compare --fail-on 'p99:+10%,rps:-5%,errors:+0.5pp' base.rb new.rb   exit 1 on a significant regression beyond a limit
  rpcbench compare --format markdown -o delta.md base.rb new.rb    a table for a pull request
  rpcbench compare --format json --alpha 0.01 base.rb new.rb       stricter test, machine-readable`

// gatesFlag reads --fail-on: a comma-separated list of FIGURE:LIMIT gates.
type gatesFlag struct{ v *[]compare.Gate }

func (f gatesFlag) String() string {
	if f.v == nil {
		return ""
	}
	specs := make([]string, len(*f.v))
	for i, g := range *f.v {
		specs[i] = g.Spec
	}
	return strings.Join(specs, ",")
}

func (f gatesFlag) Set(s string) error {
	g, err := compare.ParseGates(s)
	if err != nil {
		return err
	}
	*f.v = append(*f.v, g...)
	return nil
}

// alphaFlag reads --alpha: a significance level strictly between 0 and 1.
type alphaFlag struct{ v *float64 }

func (f alphaFlag) String() string {
	if f.v == nil {
		return ""
	}
	return strconv.FormatFloat(*f.v, 'g', -1, 64)
}

func (f alphaFlag) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(v > 0 && v < 1) || math.IsNaN(v) {
		return fmt.Errorf("want a significance level between 0 and 1, e.g. 0.05, got %q", s)
	}
	*f.v = v
	return nil
}

func runCompare(_ context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "compare", "compare [flags] BASE.rb NEW.rb\n\nCompare two result files written by `rpcbench run --out FILE`: each figure of both runs, the\nchange, and whether it is larger than the runs' own noise (a Mann–Whitney U test of the figure's\nper-interval values; see docs/methodology.md). Exit 0, 1 when a --fail-on gate fails, 2 on bad input.", compareExamples)
	format, out, alpha, force := "text", "", compare.DefaultAlpha, false
	var gates []compare.Gate
	var labels []string
	fs.Var(choiceFlag{&format, report.DeltaFormats}, "format", "output `format`: "+strings.Join(report.DeltaFormats, ", "))
	fs.StringVar(&out, "o", "", "write to `FILE` instead of stdout")
	fs.Var(gatesFlag{&gates}, "fail-on", "exit 1 when NEW is worse than BASE beyond the noise and by more than a limit: `GATES` such as 'p99:+10%,rps:-5%,errors:+0.5pp' (figures: "+compare.GateFigures+"; limits in %, pp for errors, ms for latencies)")
	fs.Var(alphaFlag{&alpha}, "alpha", "significance `level` of the tests: a difference is beyond the noise when P is below it (default 0.05)")
	fs.Var(appended(&labels, runLabel), "label", "name the runs `NAME` instead of by their file names (twice: BASE's, then NEW's)")
	fs.BoolVar(&force, "force", false, "compare files whose figures contradict each other all the same, under a warning")
	files, code, done := parseArgs(e, fs, args)
	if done {
		return code
	}
	if len(files) != 2 {
		fmt.Fprintf(e.stderr, "rpcbench compare: want two result files, BASE and NEW, got %d\n(see: rpcbench compare --help)\n", len(files))
		return ExitUsage
	}
	if err := checkLabels(labels, len(files), false); err != nil {
		return fail(e, "compare", err, ExitUsage)
	}
	if err := distinctFiles([]namedFile{{"-o", out}}, []namedFile{{"a result file to read", files[0]}, {"a result file to read", files[1]}}); err != nil {
		return fail(e, "compare", err, ExitUsage)
	}
	if err := checkOutput("-o", out); err != nil {
		return fail(e, "compare", err, ExitUsage)
	}
	runs, err := loadRuns(files, false, false, false)
	if err != nil {
		return fail(e, "compare", err, ExitUsage)
	}
	if err := checkConsistent(e, "compare", runs, force); err != nil {
		return fail(e, "compare", err, ExitUsage)
	}
	for i := range labels {
		runs[i].label = labels[i]
	}
	for _, r := range runs {
		if r.file.CutShort() {
			fmt.Fprintf(e.stderr, "rpcbench compare: %s was cut short (no trailer); comparing its %d complete intervals\n", r.label, r.file.Intervals)
		}
	}
	d := compare.NewDelta(runs[0].sum, runs[1].sum, []string{runs[0].label, runs[1].label}, alpha)
	results := d.Check(gates)
	write := func(w io.Writer) error { return report.RenderDelta(w, d, results, format) }
	if out == "" {
		err = write(e.stdout)
	} else {
		err = writeOutput(out, write)
	}
	if err != nil {
		var fe *report.FormatError
		if errors.As(err, &fe) {
			return fail(e, "compare", usagef("--format %s: %s", fe.Format, fe.Reason), ExitUsage)
		}
		return fail(e, "compare", fmt.Errorf("writing the comparison: %w", err), ExitCannotStart)
	}
	for _, g := range results {
		if g.Failed {
			fmt.Fprintf(e.stderr, "rpcbench compare: --fail-on %s: %s\n", g.Gate.Spec, g.Why)
		}
	}
	for _, g := range results {
		if g.Failed {
			return ExitSLO
		}
	}
	return ExitOK
}
