package gobench

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchunit"
)

// Options chooses the statistics of a Table. The zero value is benchstat's defaults: 95%
// confidence intervals and significance at p < 0.05.
type Options struct {
	// Labels name the files' columns, in order; a missing or empty label is the file's Name.
	Labels []string
	// Confidence is the level of the confidence intervals, in (0, 1); 0 is 0.95.
	Confidence float64
	// Alpha is the significance level of the comparisons, in (0, 1): a change whose p-value is
	// above it is shown as "~"; 0 is 0.05.
	Alpha float64
}

// Table is one or more files of benchmark results summarised and compared, as benchstat shows
// them: per package, a table per unit, a row per benchmark and a column per file. It is plain
// data, safe to read concurrently; report renders it.
type Table struct {
	// Labels name the columns, one per file.
	Labels []string `json:"labels"`
	// Config is the files' configuration (goos, goarch, cpu …), pkg aside; Values holds one
	// value per file ("" when a file lacks the key, several joined by ", ").
	Config []Config `json:"config,omitempty"`
	// Confidence and Alpha are the levels used.
	Confidence float64 `json:"confidence"`
	Alpha      float64 `json:"alpha"`
	// Sections are the packages, in order of first appearance; Pkg is "" for results without one.
	Sections []Section `json:"sections"`
	// Notes are the footnotes the cells refer to by number (Notes[0] is note 1): the statistics'
	// warnings, such as too few samples for a confidence interval.
	Notes []string `json:"notes,omitempty"`
}

// Section is the benchmarks of one package.
type Section struct {
	Pkg   string      `json:"pkg,omitempty"`
	Units []UnitTable `json:"units"`
}

// UnitTable is the figures of one unit.
type UnitTable struct {
	// Unit is the unit in base form: sec/op, B/op, allocs/op, B/s or a custom one.
	Unit string `json:"unit"`
	// Summary names the figure in the cells: "median", or "exact" for a unit whose metadata says
	// assume=exact.
	Summary string `json:"summary"`
	// Better is -1 when lower values are better, +1 when higher ones are, 0 when unknown.
	Better int   `json:"better"`
	Rows   []Row `json:"rows"`
	// Geomean is the geometric mean of the rows with a positive value in every file, when there
	// are at least two such rows; nil otherwise.
	Geomean *Row `json:"geomean,omitempty"`
}

// Row is one benchmark in one unit.
type Row struct {
	Name  string `json:"name"`
	Cells []Cell `json:"cells"` // one per file
	// Deltas[i-1] compares file i with the first; there are none with a single file.
	Deltas []Delta `json:"deltas,omitempty"`
}

// Cell is one file's figure for a benchmark.
type Cell struct {
	// N is the number of values; 0 when the file has none for this row (Text is then "").
	N int `json:"n"`
	// Center is the summary (the median, or the exact value), Lo and Hi its confidence interval.
	Center float64 `json:"center"`
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
	// Text is Center scaled alike across the row, with an SI or binary prefix: "1.234µ".
	Text string `json:"text"`
	// Range is the interval as a percentage of Center: "± 2%", "± ∞" with too few values to
	// bound it; "" for the geomean.
	Range string `json:"range,omitempty"`
	// Notes are the numbers of the Table's Notes that concern this cell.
	Notes []int `json:"notes,omitempty"`
}

// Delta is the change of a file against the first for one benchmark.
type Delta struct {
	// Text is the change of Center in percent ("-10.86%"), "~" when the test does not find the
	// two samples different at the Table's Alpha, "" when a side has no value, "?" when the first
	// is zero.
	Text string `json:"text"`
	// Significant says the test found the samples different (P ≤ Alpha).
	Significant bool `json:"significant"`
	// Verdict is "better" or "worse" for a significant change in a unit whose better direction
	// is known, "" otherwise.
	Verdict string `json:"verdict,omitempty"`
	// P, N1 and N2 are the test's p-value and sample sizes; Test says them as benchstat does:
	// "p=0.002 n=6" (no p for an exact unit); "" for the geomean.
	P     float64 `json:"p"`
	N1    int     `json:"n1"`
	N2    int     `json:"n2"`
	Test  string  `json:"test,omitempty"`
	Notes []int   `json:"notes,omitempty"`
}

// Compare summarises files (at least one) into a Table: each file's median and confidence
// interval per benchmark and unit, and each later file's change against the first with the
// Mann-Whitney U-test, or an exact comparison for units with assume=exact metadata.
func Compare(files []*File, o Options) (*Table, error) {
	if len(files) == 0 {
		return nil, errors.New("gobench: no files to compare")
	}
	if o.Confidence == 0 {
		o.Confidence = 0.95
	}
	if o.Alpha == 0 {
		o.Alpha = benchmath.DefaultThresholds.CompareAlpha
	}
	if !(o.Confidence > 0 && o.Confidence < 1) {
		return nil, fmt.Errorf("gobench: confidence %v: want a level between 0 and 1, such as 0.95", o.Confidence)
	}
	if !(o.Alpha > 0 && o.Alpha < 1) {
		return nil, fmt.Errorf("gobench: alpha %v: want a level between 0 and 1, such as 0.05", o.Alpha)
	}
	t := &Table{Confidence: o.Confidence, Alpha: o.Alpha}
	for i, f := range files {
		if f == nil {
			return nil, fmt.Errorf("gobench: file %d is nil", i+1)
		}
		label := f.Name
		if i < len(o.Labels) && o.Labels[i] != "" {
			label = o.Labels[i]
		}
		t.Labels = append(t.Labels, label)
	}
	t.Config = joinConfig(files)
	b := &builder{t: t, th: &benchmath.Thresholds{CompareAlpha: o.Alpha}, notes: map[string]int{}}
	b.collect(files)
	b.build()
	return t, nil
}

// joinConfig is the configuration keys of files other than pkg, one value per file.
func joinConfig(files []*File) []Config {
	var out []Config
	index := map[string]int{}
	for fi, f := range files {
		for _, c := range f.Config {
			if c.Key == "pkg" {
				continue
			}
			i, ok := index[c.Key]
			if !ok {
				i = len(out)
				index[c.Key] = i
				out = append(out, Config{Key: c.Key, Values: make([]string, len(files))})
			}
			out[i].Values[fi] = strings.Join(c.Values, ", ")
		}
	}
	return out
}

// builder gathers the samples of every file, keyed by package, unit and benchmark, in order of
// first appearance.
type builder struct {
	t     *Table
	th    *benchmath.Thresholds
	notes map[string]int
	units benchfmt.UnitMetadataMap

	pkgs    []string
	units1  map[string][]string             // pkg → units in order
	names   map[[2]string][]string          // pkg, unit → benchmark names in order
	samples map[[3]string]map[int][]float64 // pkg, unit, name → file → values
}

func (b *builder) collect(files []*File) {
	b.units = benchfmt.UnitMetadataMap{}
	b.units1 = map[string][]string{}
	b.names = map[[2]string][]string{}
	b.samples = map[[3]string]map[int][]float64{}
	for fi, f := range files {
		for k, v := range f.units {
			if _, ok := b.units[k]; !ok {
				b.units[k] = v
			}
		}
		for _, r := range f.Results {
			if _, ok := b.units1[r.Pkg]; !ok {
				b.pkgs = append(b.pkgs, r.Pkg)
				b.units1[r.Pkg] = nil
			}
			for _, v := range r.Values {
				pu := [2]string{r.Pkg, v.Unit}
				if !slices.Contains(b.units1[r.Pkg], v.Unit) {
					b.units1[r.Pkg] = append(b.units1[r.Pkg], v.Unit)
				}
				key := [3]string{r.Pkg, v.Unit, r.Name}
				s, ok := b.samples[key]
				if !ok {
					s = map[int][]float64{}
					b.samples[key] = s
					b.names[pu] = append(b.names[pu], r.Name)
				}
				s[fi] = append(s[fi], v.Value)
			}
		}
	}
}

func (b *builder) build() {
	files := len(b.t.Labels)
	for _, pkg := range b.pkgs {
		sec := Section{Pkg: pkg}
		for _, unit := range b.units1[pkg] {
			assume := b.units.GetAssumption(unit)
			ut := UnitTable{Unit: unit, Summary: assume.SummaryLabel(), Better: b.units.GetBetter(unit)}
			for _, name := range b.names[[2]string{pkg, unit}] {
				ut.Rows = append(ut.Rows, b.row(name, unit, files, assume, b.samples[[3]string{pkg, unit, name}], ut.Better))
			}
			ut.Geomean = geomean(ut.Rows, unit, files)
			sec.Units = append(sec.Units, ut)
		}
		b.t.Sections = append(b.t.Sections, sec)
	}
}

// row summarises one benchmark's samples in every file and compares each later file with the
// first.
func (b *builder) row(name, unit string, files int, assume benchmath.Assumption, byFile map[int][]float64, better int) Row {
	r := Row{Name: name, Cells: make([]Cell, files)}
	samples := make([]*benchmath.Sample, files)
	var centers []float64
	for fi := range files {
		vals := byFile[fi]
		if len(vals) == 0 {
			continue
		}
		s := benchmath.NewSample(slices.Clone(vals), b.th)
		samples[fi] = s
		sum := assume.Summary(s, b.t.Confidence)
		c := &r.Cells[fi]
		c.N, c.Center, c.Lo, c.Hi = len(vals), sum.Center, sum.Lo, sum.Hi
		c.Range = "± " + sum.PctRangeString()
		c.Notes = b.note(append(slices.Clone(s.Warnings), sum.Warnings...))
		centers = append(centers, sum.Center)
	}
	sc := benchunit.CommonScale(centers, benchunit.ClassOf(unit))
	for fi := range r.Cells {
		if r.Cells[fi].N > 0 {
			r.Cells[fi].Text = sc.Format(r.Cells[fi].Center)
		}
	}
	for fi := 1; fi < files; fi++ {
		var d Delta
		if samples[0] != nil && samples[fi] != nil {
			cmp := assume.Compare(samples[0], samples[fi])
			old, cur := r.Cells[0].Center, r.Cells[fi].Center
			d = Delta{Text: cmp.FormatDelta(old, cur), P: cmp.P, N1: cmp.N1, N2: cmp.N2, Test: cmp.String()}
			d.Significant = d.Text != "~"
			if d.Significant && better != 0 && old != cur {
				d.Verdict = "worse"
				if (cur > old) == (better > 0) {
					d.Verdict = "better"
				}
			}
			d.Notes = b.note(cmp.Warnings)
		}
		r.Deltas = append(r.Deltas, d)
	}
	return r
}

// note numbers warnings as the Table's footnotes, each text once.
func (b *builder) note(warnings []error) []int {
	var out []int
	for _, w := range warnings {
		msg := w.Error()
		n, ok := b.notes[msg]
		if !ok {
			b.t.Notes = append(b.t.Notes, msg)
			n = len(b.t.Notes)
			b.notes[msg] = n
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// geomean is the row of the geometric means of the rows with a positive value in every file, and
// each file's change in it against the first; nil with fewer than two such rows.
func geomean(rows []Row, unit string, files int) *Row {
	logs := make([]float64, files)
	n := 0
	for _, r := range rows {
		all := true
		for _, c := range r.Cells {
			all = all && c.N > 0 && c.Center > 0
		}
		if !all {
			continue
		}
		n++
		for fi, c := range r.Cells {
			logs[fi] += math.Log(c.Center)
		}
	}
	if n < 2 {
		return nil
	}
	g := &Row{Name: "geomean", Cells: make([]Cell, files)}
	centers := make([]float64, files)
	for fi := range files {
		centers[fi] = math.Exp(logs[fi] / float64(n))
	}
	sc := benchunit.CommonScale(centers, benchunit.ClassOf(unit))
	for fi := range files {
		g.Cells[fi] = Cell{N: n, Center: centers[fi], Lo: centers[fi], Hi: centers[fi], Text: sc.Format(centers[fi])}
		if fi > 0 {
			g.Deltas = append(g.Deltas, Delta{Text: fmt.Sprintf("%+.2f%%", (centers[fi]/centers[0]-1)*100)})
		}
	}
	return g
}
