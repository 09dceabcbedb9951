package cli

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/plan/planfile"
	"github.com/rpcbench/rpcbench/tools/diff"
	"github.com/rpcbench/rpcbench/tools/jsondiff"
)

// diffWithPlan are the flags that go with diff --plan: which scenario, and where the results go.
// The plan file says what to send, to which targets, at what pace and by which rules.
var diffWithPlan = []string{"plan", "scenario", "format", "record", "errors", "log", "out", "live", "quiet", "show-secrets"}

// runDiffPlan runs the diff scenario of a plan file (diff:): its requests and load, to the targets
// it compares, by its rules.
func runDiffPlan(ctx context.Context, e *env, fs *flag.FlagSet, f *diffFlags, pos, args []string) int {
	if len(pos) > 0 {
		return fail(e, "diff", usagef("--plan %s: the plan file names the targets; got %q too", f.planFile, pos[0]), ExitUsage)
	}
	var extra []string
	fs.Visit(func(fl *flag.Flag) {
		if !slices.Contains(diffWithPlan, fl.Name) {
			extra = append(extra, "--"+fl.Name)
		}
	})
	if len(extra) > 0 {
		return fail(e, "diff", usagef("--plan %s and %s: the plan file's diff: says what to send and how to compare; put it there, or leave --plan out", f.planFile, strings.Join(extra, ", ")), ExitUsage)
	}
	b, err := readBenchFile(f.planFile)
	if err != nil {
		return fail(e, "diff", err, ExitUsage)
	}
	s, err := diffScenario(b, f.scenario)
	if err != nil {
		return fail(e, "diff", err, ExitUsage)
	}
	d := s.Diff
	names := d.Targets
	if len(names) == 0 {
		for _, t := range b.Targets {
			if t.Name != d.Reference {
				names = append(names, t.Name)
			}
		}
	}
	byName := map[string]plan.BenchTarget{}
	for _, t := range b.Targets {
		byName[t.Name] = t
		if len(t.Command) > 0 && (slices.Contains(names, t.Name) || t.Name == d.Reference) {
			fmt.Fprintf(e.stderr, "rpcbench diff: target %s has a command, which diff --plan does not start: it sends to %s as it is (rpcbench bench starts targets)\n", t.Name, plan.RedactURL(t.URL))
		}
	}
	primary := byName[names[0]]
	p := s.PlanFor(primary, 0, b.Dir)
	cfg := diff.Config{StopAtFirst: d.StopAtFirst, Timeout: p.HTTP.Timeout, ConnectTimeout: p.HTTP.ConnectTimeout, Insecure: p.HTTP.Insecure,
		PinBlock: d.PinBlock, SkipAboveHead: d.SkipAboveHead,
		Rules: jsondiff.Options{NullIsMissing: d.NullMissing, StrictNumbers: d.StrictNumbers, KeepErrorMessages: d.KeepMessages}}
	for _, n := range names {
		cfg.URLs = append(cfg.URLs, byName[n].URL)
	}
	if d.Reference != "" {
		cfg.Reference = byName[d.Reference].URL
	}
	// read when the file was: the rules cannot fail here
	for _, x := range d.Ignore {
		cfg.Rules.Ignore = append(cfg.Rules.Ignore, jsondiff.MustPattern(x))
	}
	for _, x := range d.Unordered {
		cfg.Rules.Unordered = append(cfg.Rules.Unordered, jsondiff.MustPattern(x))
	}
	for _, x := range d.Tolerance {
		tol, _ := jsondiff.ParseTolerance(x)
		cfg.Rules.Tolerance = append(cfg.Rules.Tolerance, tol)
	}
	for _, x := range d.Rules {
		m, rule, _ := diff.ParseErrorRule(x)
		if cfg.ErrorRules == nil {
			cfg.ErrorRules = map[string]diff.ErrorRule{}
		}
		cfg.ErrorRules[m] = rule
	}
	corpus := diff.FromPlan(p, primary.URL)
	prep, err := diff.Prepare(cfg, corpus, p.Load, plan.OSFiles(e.stdin))
	if err != nil {
		return fail(e, "diff", usageError{planfile.ScenarioError(b, s, primary, err).Error()}, ExitUsage)
	}
	files, err := f.openFiles()
	if err != nil {
		return fail(e, "diff", err, ExitUsage)
	}
	// the report names the servers by letter and URL: say which target each is
	shown := slices.Clone(names)
	if d.Reference != "" {
		shown = append(shown, d.Reference)
	}
	for k := range shown {
		shown[k] = diff.ServerLetter(k) + " " + shown[k]
	}
	fmt.Fprintf(e.stderr, "rpcbench diff: %s, scenario %s: %s\n", b.File, s.Name, strings.Join(shown, ", "))
	return runDiffPrepared(ctx, e, diffRun{cfg: cfg, corpus: corpus, prep: prep, reference: cfg.URLs[0], files: files,
		format: f.format, showSecrets: f.showSecrets, noiseThreshold: d.NoiseThreshold, outputs: f.outputs(e), args: args})
}

// diffScenario picks the diff scenario named name, or the only one when name is "".
func diffScenario(b *plan.Bench, name string) (plan.Scenario, error) {
	var names []string
	for _, s := range b.Scenarios {
		if s.IsDiff() {
			names = append(names, s.Name)
		}
	}
	if name == "" {
		if len(names) != 1 {
			return plan.Scenario{}, usagef("--scenario: %s has %d diff scenarios: say which, one of %s", b.File, len(names), orNone(names))
		}
		name = names[0]
	}
	for _, s := range b.Scenarios {
		switch {
		case s.Name != name:
		case !s.IsDiff():
			return s, usagef("--scenario %s: %s has no diff: section; the diff scenarios of %s: %s", name, name, b.File, orNone(names))
		default:
			return s, nil
		}
	}
	return plan.Scenario{}, usagef("--scenario %s: no such scenario in %s; its diff scenarios: %s", name, b.File, orNone(names))
}

// orNone lists the diff scenarios, or says there is none.
func orNone(names []string) string {
	if len(names) == 0 {
		return "none (a scenario with diff: {targets: [a, b]} compares the targets a and b)"
	}
	return strings.Join(names, ", ")
}

// benchDiffs takes the diff scenarios out of a plan file that bench runs, saying so on stderr:
// diff --plan runs them. A plan of diff scenarios only has nothing for bench.
func benchDiffs(e *env, b *plan.Bench) error {
	var kept []plan.Scenario
	for _, s := range b.Scenarios {
		if !s.IsDiff() {
			kept = append(kept, s)
			continue
		}
		fmt.Fprintf(e.stderr, "rpcbench bench: scenario %s is a diff of the targets, which bench does not run: rpcbench diff --plan %s --scenario %s runs it\n", s.Name, b.File, s.Name)
	}
	if len(kept) == 0 {
		return usagef("%s: every scenario is a diff of the targets: run them with rpcbench diff --plan %s --scenario NAME", b.File, b.File)
	}
	b.Scenarios = kept
	return nil
}
