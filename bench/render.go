package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rpcbench/rpcbench/capacity"
	"github.com/rpcbench/rpcbench/compare"
	"github.com/rpcbench/rpcbench/report"
	"github.com/rpcbench/rpcbench/summary"
)

// Formats are the formats Render writes.
var Formats = []string{"text", "markdown", "json", "html"}

// Schema names the JSON of a plan file's report and its version.
const Schema = "rpcbench.bench/v1"

// Group is the runs of one scenario's step against each target, in the order of the targets.
type Group struct {
	Scenario string
	Step     int
	Steps    int
	Level    string
	Runs     []Measured
}

// Title names the group: "methods · step 2/4: 100 connections".
func (g Group) Title() string {
	if g.Steps <= 1 && g.Level == "" {
		return g.Scenario
	}
	return fmt.Sprintf("%s · step %d/%d: %s", g.Scenario, g.Step+1, g.Steps, g.Level)
}

// Summaries returns the summaries of the group's runs that ran, and the names of their targets.
func (g Group) Summaries() ([]*summary.Summary, []string) {
	var sums []*summary.Summary
	var labels []string
	for _, m := range g.Runs {
		if m.Summary != nil {
			sums, labels = append(sums, m.Summary), append(labels, m.Target)
		}
	}
	return sums, labels
}

// Groups returns the load runs of o grouped by scenario and step, in the order they ran.
func (o *Outcome) Groups() []Group {
	var gs []Group
	for _, m := range o.Runs {
		n := len(gs)
		if n > 0 && gs[n-1].Scenario == m.Scenario && gs[n-1].Step == m.Step {
			gs[n-1].Runs = append(gs[n-1].Runs, m)
			continue
		}
		gs = append(gs, Group{Scenario: m.Scenario, Step: m.Step, Steps: m.Steps, Level: m.Level, Runs: []Measured{m}})
	}
	return gs
}

// Invalid lists the runs of scenarios with require_valid that their validity verdict found
// invalid, each with its reasons.
func (o *Outcome) Invalid() []string {
	var out []string
	for _, m := range o.Runs {
		if m.Err == nil && m.TargetEnded == "" && m.Summary != nil && m.Summary.Config.RequireValid && !m.Summary.Validity.Valid {
			out = append(out, fmt.Sprintf("%s: invalid (require_valid): %s", m.RunID, strings.Join(m.Summary.Validity.Reasons, "; ")))
		}
	}
	return out
}

// Failures lists what failed: each run's failed objectives, each run that could not start, each
// command that did not exit 0 or whose JUnit XML reports could not be read, a target that could
// not start.
func (o *Outcome) Failures() []string {
	var out []string
	if o.TargetErr != nil {
		out = append(out, o.TargetErr.Error())
	}
	for _, m := range o.Runs {
		switch {
		case m.Err != nil:
			out = append(out, fmt.Sprintf("%s: could not run: %v", m.RunID, m.Err))
		case m.TargetEnded != "":
			out = append(out, fmt.Sprintf("%s: %s while this ran", m.RunID, m.TargetEnded))
		case m.Summary.SLO != nil && !m.Summary.SLO.Pass:
			var objs []string
			for _, f := range m.Summary.SLO.Failed() {
				objs = append(objs, f.Objective)
			}
			out = append(out, fmt.Sprintf("%s: SLO failed: %s", m.RunID, strings.Join(objs, ", ")))
		}
	}
	for _, c := range o.Capacity {
		switch {
		case c.Err != nil:
			out = append(out, fmt.Sprintf("%s: could not run: %v", c, c.Err))
		case c.TargetEnded != "":
			out = append(out, fmt.Sprintf("%s: %s while this ran", c, c.TargetEnded))
		case c.Result.Best == nil && !c.Result.Interrupted:
			out = append(out, fmt.Sprintf("%s: %s", c, c.Result.Answer()))
		}
	}
	for _, c := range append(slices.Clone(o.Builds), o.Commands...) {
		if !c.OK() {
			var why []string
			switch {
			case c.Err != "":
				why = append(why, c.Err)
			case c.ExitCode != 0:
				why = append(why, fmt.Sprintf("exit status %d", c.ExitCode))
			}
			if c.TestsErr != "" {
				why = append(why, c.TestsErr)
			}
			if c.TargetEnded != "" {
				why = append(why, c.TargetEnded+" while this ran")
			}
			out = append(out, fmt.Sprintf("%s: %s", c, strings.Join(why, "; ")))
		}
	}
	return out
}

// Render writes the report of o in format (text, markdown or json): per scenario and step, the
// targets side by side as report.Render compares runs, labelled by target name (the first target
// is the base of the ratios); per command scenario, each target's wall time, exit status and test
// counts. opt's Labels are set here.
func Render(w io.Writer, o *Outcome, format string, opt report.Options) error {
	switch format {
	case "", "text", "markdown":
		return renderDoc(w, o, format, opt)
	case "json":
		return renderJSON(w, o, opt)
	case "html":
		return renderHTML(w, o, opt)
	}
	return &report.FormatError{Format: format, Reason: "unknown for a plan file's report; want one of " + strings.Join(Formats, ", ")}
}

func renderDoc(w io.Writer, o *Outcome, format string, opt report.Options) error {
	given := opt.Stats // --stats, over every scenario's own; opt.Stats is set per scenario below
	md := format == "markdown"
	heading := func(title string) {
		if md {
			fmt.Fprintf(w, "## %s\n\n", title)
		} else {
			fmt.Fprintf(w, "═══ %s ═══\n", title)
		}
	}
	if md {
		fmt.Fprintf(w, "# %s\n\n", o.Bench.File)
	}
	first := true
	sep := func() {
		if !first {
			io.WriteString(w, "\n")
		}
		first = false
	}
	if t := startedTable(o.Started); t != nil {
		sep()
		heading("targets")
		t.write(w, format)
	}
	for _, s := range o.Bench.Scenarios {
		if s.IsCommand() {
			build, cs := o.commandsOf(s.Name)
			if build == nil && len(cs) == 0 {
				continue
			}
			sep()
			heading(s.Name + " (command)")
			if build != nil {
				fmt.Fprintln(w, build.buildLine())
				if len(cs) > 0 {
					fmt.Fprintln(w)
				}
			}
			if len(cs) > 0 {
				writeCommandTable(w, commandTable(cs), md)
				if line := orderLine(cs); line != "" {
					fmt.Fprintf(w, "\n%s\n", line)
				}
			}
			continue
		}
		if s.Capacity != nil {
			for _, cs := range o.capacityParts(s.Name) {
				sep()
				heading(capacityHeading(cs[0]))
				if err := capacityDoc(w, cs, format); err != nil {
					return err
				}
			}
			continue
		}
		for _, g := range o.Groups() {
			if g.Scenario != s.Name {
				continue
			}
			sep()
			heading(g.Title())
			for _, m := range g.Runs {
				switch {
				case m.Err != nil:
					fmt.Fprintf(w, "%s: could not run: %v\n", m.Target, m.Err)
				case m.TargetEnded != "":
					fmt.Fprintf(w, "%s: %s while this ran\n", m.Target, m.TargetEnded)
				}
			}
			sums, labels := g.Summaries()
			if len(sums) == 0 {
				continue
			}
			if len(sums) == 1 {
				fmt.Fprintf(w, "target %s only\n\n", labels[0]) // one run's report names no label
			}
			opt.Labels, opt.Stats = labels, statsOf(o.Bench, s, given)
			if err := report.Render(w, sums, format, opt); err != nil {
				return err
			}
			if t := resourcesTable(g); t != nil {
				t.write(w, format)
			}
		}
		for _, t := range sideTables(s, o.Bench.Targets, o.Groups(), statsOf(o.Bench, s, given)) {
			sep()
			heading(t.Section)
			t.table().write(w, format)
		}
		if t := wholeRunTable(s.Name, o.Groups()); t != nil {
			sep()
			heading(s.Name + ": whole scenario")
			t.write(w, format)
		}
	}
	if o.TargetErr != nil {
		sep()
		fmt.Fprintf(w, "not run: %v\n", o.TargetErr)
	}
	if o.Interrupted {
		sep()
		fmt.Fprintln(w, "interrupted: the report covers what was done until then")
	}
	return nil
}

// answerText is what a target's ready URL answered, for a line: `: http://…/v0/prefill answered
// 200 "prefilled …"`; "" without a ready URL.
func answerText(r Readiness) string {
	if r.URL == "" {
		return " (its port took connections)"
	}
	return fmt.Sprintf(": %s answered %d %q", r.URL, r.Status, r.Answer)
}

// startedTable is the targets started by their command, each with how long it took to be ready
// and what its ready URL answered (a prefill's size and time, say): before every run, outside
// the figures; nil when the plan started none.
func startedTable(rs []Readiness) *table {
	if len(rs) == 0 {
		return nil
	}
	t := &table{
		title: "Targets started (before the runs, outside their figures)",
		head:  []string{"target", "ready after", "ready when", "its answer"},
		right: []bool{false, true, false, false},
	}
	for _, r := range rs {
		when, answer := "its port took connections", "—"
		if r.URL != "" {
			when, answer = r.URL+" answered "+strconv.Itoa(r.Status), r.Answer
		}
		t.rows = append(t.rows, []string{r.Target, summary.FormatMs(float64(r.After) / float64(time.Millisecond)), when, answer})
	}
	return t
}

// capacityOf returns the capacity searches of scenario name, in the order they ran.
func (o *Outcome) capacityOf(name string) []CapacityResult {
	var cs []CapacityResult
	for _, c := range o.Capacity {
		if c.Scenario == name {
			cs = append(cs, c)
		}
	}
	return cs
}

// capacityParts returns the capacity searches of scenario name by part (one part, the mix, unless
// the scenario runs alone: true), each part's in the order of the targets.
func (o *Outcome) capacityParts(name string) [][]CapacityResult {
	var parts [][]CapacityResult
	for _, c := range o.capacityOf(name) {
		if n := len(parts); n > 0 && parts[n-1][0].Step == c.Step {
			parts[n-1] = append(parts[n-1], c)
			continue
		}
		parts = append(parts, []CapacityResult{c})
	}
	return parts
}

// capacityHeading names the section of a part's searches: "capacity (capacity search)",
// "capacity-each · step 1/2: put alone (capacity search)".
func capacityHeading(c CapacityResult) string {
	if c.Steps <= 1 && c.Level == "" {
		return c.Scenario + " (capacity search)"
	}
	return fmt.Sprintf("%s · step %d/%d: %s (capacity search)", c.Scenario, c.Step+1, c.Steps, c.Level)
}

// capacityDoc writes each target's search as `rpcbench capacity` does, then the searches side by
// side.
func capacityDoc(w io.Writer, cs []CapacityResult, format string) error {
	for _, c := range cs {
		if c.Err != nil {
			fmt.Fprintf(w, "%s: could not run: %v\n", c.Target, c.Err)
			continue
		}
		capacitySteps(c).write(w, format)
		if format == "markdown" {
			fmt.Fprintf(w, "\n**%s**\n", c.Result.Answer())
		} else {
			fmt.Fprintf(w, "\n%s\n", c.Result.Answer())
		}
	}
	capacityTable(cs).write(w, format)
	return nil
}

// commandsOf returns the build of command scenario name (nil without one) and its runs, in the
// order they ran.
func (o *Outcome) commandsOf(name string) (*CommandResult, []CommandResult) {
	var build *CommandResult
	for i, c := range o.Builds {
		if c.Scenario == name {
			build = &o.Builds[i]
		}
	}
	var cs []CommandResult
	for _, c := range o.Commands {
		if c.Scenario == name {
			cs = append(cs, c)
		}
	}
	return build, cs
}

// buildLine says how a command scenario's build went, and that its time is in no target's.
func (c CommandResult) buildLine() string {
	return fmt.Sprintf("build, before the runs and in no target's wall time: %s in %v", c.exit(), c.Wall.Round(time.Millisecond))
}

// commandTable has each run of a command scenario, in the order they ran, with its wall time
// against the first target's in the same round — or, when every run's `go test -json` output gave
// the suite's own time, that time (a column of its own) against the first target's.
func commandTable(cs []CommandResult) *table {
	rounds := cs[len(cs)-1].Round > 0
	suite := !slices.ContainsFunc(cs, func(c CommandResult) bool { return c.Suite <= 0 })
	head := []string{"target", "exit", "wall time", "passed", "failed", "skipped", "vs " + cs[0].Target}
	right := []bool{false, true, true, true, true, true, false}
	if suite {
		head = slices.Insert(head, 3, "suite time")
		head[len(head)-1] = "suite time vs " + cs[0].Target
		right = slices.Insert(right, 3, true)
	}
	if rounds {
		head = append([]string{"round"}, head...)
		right = append([]bool{true}, right...)
	}
	compared := func(c CommandResult) time.Duration {
		if suite {
			return c.Suite
		}
		return c.Wall
	}
	base := map[int]time.Duration{} // the first target's time in each round
	for _, c := range cs {
		if c.Target == cs[0].Target {
			base[c.Round] = compared(c)
		}
	}
	t := &table{title: "Wall time", head: head, right: right}
	for _, c := range cs {
		row := []string{c.Target, fmt.Sprint(c.ExitCode), c.Wall.Round(time.Millisecond).String(), "", "", "", ""}
		if c.Err != "" {
			row[1] = c.Err
		}
		if c.Tests != nil {
			row[3], row[4], row[5] = fmt.Sprint(c.Tests.Passed), fmt.Sprint(c.Tests.Failed), fmt.Sprint(c.Tests.Skipped)
		}
		if c.Target != cs[0].Target {
			row[6] = ratioWords(compared(c), base[c.Round])
		}
		if suite {
			row = slices.Insert(row, 3, c.Suite.Round(time.Millisecond).String())
		}
		if rounds {
			row = append([]string{fmt.Sprint(c.Round)}, row...)
		}
		t.rows = append(t.rows, row)
	}
	return t
}

// writeCommandTable writes a command scenario's table without its title, in Markdown or as text.
func writeCommandTable(w io.Writer, t *table, md bool) {
	rows := append([][]string{t.head}, t.rows...)
	if md {
		for i, r := range rows {
			fmt.Fprintf(w, "| %s |\n", strings.Join(mdCells(r), " | "))
			if i == 0 {
				fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(r)))
			}
		}
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.TrimRight(strings.Join(r, "\t"), "\t"))
	}
	tw.Flush()
}

// orderLine says, for a scenario run in rounds, the order of its runs and each target's mean wall
// time over the runs that exited on their own, against the first target's; "" for one round.
func orderLine(cs []CommandResult) string {
	rounds := cs[len(cs)-1].Round
	if rounds < 2 {
		return ""
	}
	var order, targets []string
	sum, n := map[string]time.Duration{}, map[string]int{}
	for _, c := range cs {
		order = append(order, c.Target)
		if !slices.Contains(targets, c.Target) {
			targets = append(targets, c.Target)
		}
		if c.Err == "" {
			sum[c.Target] += c.Wall
			n[c.Target]++
		}
	}
	mean := func(t string) time.Duration {
		if n[t] == 0 {
			return 0
		}
		return sum[t] / time.Duration(n[t])
	}
	var means []string
	for i, t := range targets {
		if n[t] == 0 {
			means = append(means, t+" none (no run exited on its own)")
			continue
		}
		m := fmt.Sprintf("%s %v", t, mean(t).Round(time.Millisecond))
		if r := ratioWords(mean(t), mean(targets[0])); i > 0 && r != "" {
			m += " (" + r + ")"
		}
		means = append(means, m)
	}
	return fmt.Sprintf("%d rounds, in the order %s (each round the reverse of the one before, so that going first favours no target); mean wall time: %s",
		rounds, strings.Join(order, ", "), strings.Join(means, ", "))
}

// ratioWords says how a wall time compares with the base's: "2.1× longer", "1.5× shorter".
func ratioWords(d, base time.Duration) string {
	if d <= 0 || base <= 0 {
		return ""
	}
	twoDecimals := func(r float64) string { return strconv.FormatFloat(r, 'f', 2, 64) }
	return compare.Times(float64(d)/float64(base), twoDecimals, "longer", "shorter")
}

type benchJSON struct {
	Schema      string   `json:"schema"`
	File        string   `json:"file"`
	Interrupted bool     `json:"interrupted,omitempty"`
	TargetError string   `json:"target_error,omitempty"`
	Targets     []string `json:"targets"`
	// Started are the targets the plan started, with how each became ready.
	Started   []startedJSON  `json:"started,omitempty"`
	Scenarios []scenarioJSON `json:"scenarios"`
}

type startedJSON struct {
	Readiness
	ReadyAfterS float64 `json:"ready_after_s"`
}

type scenarioJSON struct {
	Name  string     `json:"name"`
	Steps []stepJSON `json:"steps,omitempty"`
	// Build is a command scenario's build, run before its commands.
	Build    *CommandResult  `json:"build,omitempty"`
	Commands []CommandResult `json:"commands,omitempty"`
	// Capacity is each target's search: capacity.Render's JSON, or the error that stopped it.
	Capacity []capacityJSON `json:"capacity,omitempty"`
	// Tables are the scenario's steps side by side, as in report.md after its steps: each alone,
	// a parameter swept, each endpoint over the steps.
	Tables []SideTable `json:"tables,omitempty"`
	// WholeRun is, for a scenario run in steps, each target's resources over all its steps.
	WholeRun []WholeRun `json:"whole_run,omitempty"`
}

type capacityJSON struct {
	Target string `json:"target"`
	// Step and Level name the part searched alone (alone: true): "get alone"; none for the mix.
	Step   int             `json:"step,omitempty"`
	Level  string          `json:"level,omitempty"`
	Error  string          `json:"error,omitempty"`
	Report json.RawMessage `json:"report,omitempty"`
}

type stepJSON struct {
	Step    int               `json:"step"`
	Level   string            `json:"level,omitempty"`
	Targets []string          `json:"targets"`
	Errors  map[string]string `json:"errors,omitempty"`
	// Report is report.Render's JSON: one run's report, or several runs compared.
	Report json.RawMessage `json:"report,omitempty"`
	// ResourcesVs is, as in the step's table of resources compared, each target's first watched
	// process against the first target's in words ("1.5× more CPU, 1.8× more memory"); each run's
	// resources are in Report.
	ResourcesVs map[string]string `json:"resources_vs_first,omitempty"`
}

func renderJSON(w io.Writer, o *Outcome, opt report.Options) error {
	given := opt.Stats // --stats, over every scenario's own; opt.Stats is set per scenario below
	bj := benchJSON{Schema: Schema, File: o.Bench.File, Interrupted: o.Interrupted, Scenarios: []scenarioJSON{}}
	if o.TargetErr != nil {
		bj.TargetError = o.TargetErr.Error()
	}
	for _, t := range o.Bench.Targets {
		bj.Targets = append(bj.Targets, t.Name)
	}
	for _, r := range o.Started {
		bj.Started = append(bj.Started, startedJSON{r, r.After.Seconds()})
	}
	for _, s := range o.Bench.Scenarios {
		sj := scenarioJSON{Name: s.Name}
		sj.Build, sj.Commands = o.commandsOf(s.Name)
		for _, c := range o.capacityOf(s.Name) {
			cj := capacityJSON{Target: c.Target, Level: c.Level}
			if c.Steps > 1 {
				cj.Step = c.Step + 1
			}
			if c.Err != nil {
				cj.Error = c.Err.Error()
			} else {
				var b bytes.Buffer
				if err := capacity.Render(&b, c.Result, c.SLO, c.Target, "json"); err != nil {
					return err
				}
				cj.Report = b.Bytes()
			}
			sj.Capacity = append(sj.Capacity, cj)
		}
		for _, g := range o.Groups() {
			if g.Scenario != s.Name {
				continue
			}
			st := stepJSON{Step: g.Step + 1, Level: g.Level}
			for _, m := range g.Runs {
				why := m.TargetEnded
				if m.Err != nil {
					why = m.Err.Error()
				}
				if why != "" {
					if st.Errors == nil {
						st.Errors = map[string]string{}
					}
					st.Errors[m.Target] = why
				}
			}
			sums, labels := g.Summaries()
			st.Targets = labels
			if len(sums) > 0 {
				var b bytes.Buffer
				opt.Labels, opt.Stats = labels, statsOf(o.Bench, s, given)
				if err := report.Render(&b, sums, "json", opt); err != nil {
					return err
				}
				st.Report = b.Bytes()
				st.ResourcesVs = resourcesVs(labels, resourcesOf(sums))
			}
			sj.Steps = append(sj.Steps, st)
		}
		sj.Tables = sideTables(s, o.Bench.Targets, o.Groups(), statsOf(o.Bench, s, given))
		sj.WholeRun = wholeRun(s.Name, o.Groups())
		bj.Scenarios = append(bj.Scenarios, sj)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(bj)
}
