package bench

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rpcbench/rpcbench/compare"
	"github.com/rpcbench/rpcbench/plan"
)

// aloneFigures are the default figures of the table of a scenario run part by part (alone: true).
var aloneFigures = []string{"rps", "errors", "p50", "p99"}

// statsOf returns the figures of the side-by-side tables of scenario s of b: given (--stats) when
// set, else the scenario's stats, else the plan's.
func statsOf(b *plan.Bench, s plan.Scenario, given []string) []string {
	if len(given) > 0 {
		return given
	}
	return b.StatsOf(s)
}

// aloneTable puts side by side, on stats (the default figures when empty), the steps of scenario s
// run with alone: true — each endpoint or call by itself at each level — or with a sweep — each
// value of its parameter: a row per step and figure, a column per target and, after the first,
// its ratio to the first; nil when s is neither or nothing of it ran.
func aloneTable(s plan.Scenario, targets []plan.BenchTarget, groups []Group, stats []string) *table {
	title := sideTitle(s)
	if title == "" {
		return nil
	}
	return stepsTable(s, targets, groups, stats, title, false)
}

// methodsTable puts side by side, on stats (the default figures when empty), each endpoint (each
// JSON-RPC method) of a scenario of several steps that sends them as a mix — k6's per-method
// figures at each level: a row per step, endpoint and figure, a column per target and, after the
// first, its ratio to the first; nil for a scenario of one step, run alone, or of one endpoint.
func methodsTable(s plan.Scenario, targets []plan.BenchTarget, groups []Group, stats []string) *table {
	if s.Runs() < 2 || s.Alone || s.Capacity != nil {
		return nil
	}
	return stepsTable(s, targets, groups, stats, "Each endpoint or method over the steps, side by side", true)
}

// subscriptionStepsTable puts side by side, for a scenario of several steps with subscriptions
// beside its calls (subscribe:), each step's call load (answers per second and latency p99) and its
// subscriptions' figures (gaps, delivery latency, …): how push delivery degrades as the steps raise
// the call load, a row per step and figure, a column per target and, after the first, its ratio to
// the first; nil for another scenario, or when nothing of it ran. A scenario run alone or swept has
// the same rows in aloneTable.
func subscriptionStepsTable(s plan.Scenario, targets []plan.BenchTarget, groups []Group) *table {
	if s.Plan.Subscribe == nil || s.Runs() < 2 || s.Alone || s.Sweep != nil || s.Capacity != nil {
		return nil
	}
	return stepsTable(s, targets, groups, []string{"rps", "p99"}, "Subscriptions beside the calls over the steps, side by side", false)
}

// stepsTable is the table of aloneTable and methodsTable: the groups of s one after the other, a
// row per figure of their totals, or with byEndpoint of each of their endpoints.
func stepsTable(s plan.Scenario, targets []plan.BenchTarget, groups []Group, stats []string, title string, byEndpoint bool) *table {
	if len(stats) == 0 {
		stats = aloneFigures
	}
	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = t.Name
	}
	t := figures(names, nil, title)
	lead := []string{"step"}
	if byEndpoint {
		lead = append(lead, "endpoint")
	}
	for range lead {
		t.right = append([]bool{false}, t.right...)
	}
	t.head = append(lead, t.head...)
	for _, g := range groups {
		if g.Scenario != s.Name {
			continue
		}
		sums, labels := g.Summaries()
		if len(sums) == 0 {
			continue
		}
		c := compare.NewStats(sums, labels, stats)
		parts := []compare.Endpoint{{Metrics: c.Metrics}}
		if byEndpoint {
			parts = c.Endpoints
		}
		for j, part := range parts {
			var ms []compare.Metric
			for _, m := range part.Metrics {
				ms = append(ms, spread(m, labels, names))
			}
			for k, row := range figures(names, ms, "").rows {
				cells := make([]string, len(lead))
				if k == 0 && j == 0 {
					cells[0] = g.Level
				}
				if byEndpoint && k == 0 {
					cells[1] = part.Name
				}
				t.rows = append(t.rows, append(cells, row...))
			}
		}
	}
	if len(t.rows) == 0 {
		return nil
	}
	return t
}

// spread places the values of m, one per label, in the columns of names (every target of the
// plan, in order): a target that did not run has its figure Missing. The ratios are against the
// first of names.
func spread(m compare.Metric, labels, names []string) compare.Metric {
	if slices.Equal(labels, names) {
		return m
	}
	out := m
	out.Values, out.Ratios, out.Missing = make([]float64, len(names)), make([]float64, len(names)), make([]bool, len(names))
	for i, n := range names {
		k := slices.Index(labels, n)
		if k < 0 || m.Missing != nil && m.Missing[k] {
			out.Missing[i] = true
			continue
		}
		out.Values[i] = m.Values[k]
	}
	for i := range names {
		out.Ratios[i] = compare.Ratio(out.Values[i], out.Values[0])
		if out.Missing[i] || out.Missing[0] {
			out.Ratios[i] = math.NaN()
		}
	}
	return out
}

// sideTitle is the title of aloneTable for s: "" when s is run neither alone nor swept.
func sideTitle(s plan.Scenario) string {
	if s.Sweep == nil {
		if s.Alone {
			return "Each alone, side by side (one step per endpoint or method and level)"
		}
		return ""
	}
	what := []string{"value of " + s.Sweep.Param}
	if s.Alone {
		what = append(what, "endpoint or method")
	}
	if len(s.Steps) > 0 {
		what = append(what, "level")
	}
	return fmt.Sprintf("%s swept, side by side (one step per %s)", s.Sweep.Param, strings.Join(what, ", "))
}

// sideHeading is the heading of the section of aloneTable for s: "NAME: each alone", "NAME: batch
// swept".
func sideHeading(s plan.Scenario) string {
	if s.Sweep != nil {
		return s.Name + ": " + s.Sweep.Param + " swept"
	}
	return s.Name + ": each alone"
}
