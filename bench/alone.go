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

// SideTable is one of a scenario's tables of its steps side by side — each endpoint or method
// alone, a parameter swept, or each endpoint over the steps — as report.json holds it (a
// scenario's "tables"); report.md, report.txt and report.html write the same table from it. Its
// columns are the plan's targets, the first the base of the ratios.
type SideTable struct {
	// Section is the table's heading in report.md: "methods: each alone", "batch: batch swept",
	// "methods: each endpoint over the steps".
	Section string `json:"section"`
	Title   string `json:"title"`
	// Targets are the columns, in the plan's order: each figure has a value per target, and its
	// ratio to the first's.
	Targets []string  `json:"targets"`
	Rows    []SideRow `json:"rows"`
	// byEndpoint says each row is one endpoint of a step.
	byEndpoint bool
}

// SideRow is one step of a SideTable, or one endpoint of a step.
type SideRow struct {
	Step int `json:"step"` // from 1
	// Level names the step: "eth_call alone at 300/s", "batch 10", "50 connections".
	Level    string `json:"level"`
	Endpoint string `json:"endpoint,omitempty"`
	// Figures are the scenario's stats, each with its unit, a value per target (null for one
	// that did not run) and the ratio of each value to the first target's.
	Figures []compare.Metric `json:"figures"`
}

// sideTables returns the tables of scenario s that put its steps side by side, on stats (the
// default figures when empty): aloneTable's, subscriptionStepsTable's, then methodsTable's, those
// that s has.
func sideTables(s plan.Scenario, targets []plan.BenchTarget, groups []Group, stats []string) []SideTable {
	var out []SideTable
	for _, t := range []*SideTable{aloneTable(s, targets, groups, stats), subscriptionStepsTable(s, targets, groups), methodsTable(s, targets, groups, stats)} {
		if t != nil {
			out = append(out, *t)
		}
	}
	return out
}

// aloneTable puts side by side the steps of scenario s run with alone: true — each endpoint or
// call by itself at each level — or with a sweep — each value of its parameter: a row per step, a
// column per target and, after the first, its ratio to the first; nil when s is neither or nothing
// of it ran.
func aloneTable(s plan.Scenario, targets []plan.BenchTarget, groups []Group, stats []string) *SideTable {
	title := sideTitle(s)
	if title == "" {
		return nil
	}
	return stepsTable(s, targets, groups, stats, sideHeading(s), title, false)
}

// methodsTable puts side by side each endpoint (each JSON-RPC method) of a scenario of several
// steps that sends them as a mix — k6's per-method figures at each level: a row per step and
// endpoint, a column per target and, after the first, its ratio to the first; nil for a scenario
// of one step, run alone, or of one endpoint.
func methodsTable(s plan.Scenario, targets []plan.BenchTarget, groups []Group, stats []string) *SideTable {
	if s.Runs() < 2 || s.Alone || s.Capacity != nil {
		return nil
	}
	return stepsTable(s, targets, groups, stats, s.Name+": each endpoint over the steps", "Each endpoint or method over the steps, side by side", true)
}

// subscriptionStepsTable puts side by side, for a scenario of several steps with subscriptions
// beside its calls (subscribe:), each step's call load (answers per second and latency p99) and its
// subscriptions' figures (gaps, delivery latency, …): how push delivery degrades as the steps raise
// the call load, a row per step and figure, a column per target and, after the first, its ratio to
// the first; nil for another scenario, or when nothing of it ran. A scenario run alone or swept has
// the same rows in aloneTable.
func subscriptionStepsTable(s plan.Scenario, targets []plan.BenchTarget, groups []Group) *SideTable {
	if s.Plan.Subscribe == nil || s.Runs() < 2 || s.Alone || s.Sweep != nil || s.Capacity != nil {
		return nil
	}
	return stepsTable(s, targets, groups, []string{"rps", "p99"}, s.Name+": subscriptions over the steps", "Subscriptions beside the calls over the steps, side by side", false)
}

// stepsTable is the table of aloneTable and methodsTable: the groups of s one after the other, a
// row of their totals, or with byEndpoint of each of their endpoints; nil when none has a row.
func stepsTable(s plan.Scenario, targets []plan.BenchTarget, groups []Group, stats []string, section, title string, byEndpoint bool) *SideTable {
	if len(stats) == 0 {
		stats = aloneFigures
	}
	t := &SideTable{Section: section, Title: title, Targets: make([]string, len(targets)), byEndpoint: byEndpoint}
	for i, tg := range targets {
		t.Targets[i] = tg.Name
	}
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
		for _, part := range parts {
			row := SideRow{Step: g.Step + 1, Level: g.Level, Endpoint: part.Name}
			for _, m := range part.Metrics {
				row.Figures = append(row.Figures, spread(m, labels, t.Targets))
			}
			t.Rows = append(t.Rows, row)
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}

// table writes st as the reports' tables are written: a row per figure, the step named on its
// first row (and the endpoint on the first of its own).
func (st SideTable) table() *table {
	t := figures(st.Targets, nil, st.Title)
	lead := []string{"step"}
	if st.byEndpoint {
		lead = append(lead, "endpoint")
	}
	for range lead {
		t.right = append([]bool{false}, t.right...)
	}
	t.head = append(lead, t.head...)
	for i, r := range st.Rows {
		for k, row := range figures(st.Targets, r.Figures, "").rows {
			cells := make([]string, len(lead))
			if k == 0 && (i == 0 || st.Rows[i-1].Step != r.Step) {
				cells[0] = r.Level
			}
			if st.byEndpoint && k == 0 {
				cells[1] = r.Endpoint
			}
			t.rows = append(t.rows, append(cells, row...))
		}
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
