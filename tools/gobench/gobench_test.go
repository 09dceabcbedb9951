package gobench

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func mustRead(t *testing.T, path string) *File {
	t.Helper()
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func compareFiles(t *testing.T, o Options, paths ...string) *Table {
	t.Helper()
	var fs []*File
	for _, p := range paths {
		fs = append(fs, mustRead(t, p))
	}
	tb, err := Compare(fs, o)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func unit(t *testing.T, tb *Table, name string) UnitTable {
	t.Helper()
	if len(tb.Sections) != 1 {
		t.Fatalf("got %d sections; want 1", len(tb.Sections))
	}
	for _, u := range tb.Sections[0].Units {
		if u.Unit == name {
			return u
		}
	}
	t.Fatalf("no table of unit %s", name)
	return UnitTable{}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

// uTestP is the exact two-sided p-value of the Mann-Whitney U-test for samples without ties,
// found by enumerating every way to split the pooled values in two groups of the samples' sizes:
// the share of splits whose U is at least as far from its mean as the observed one. It is an
// independent route to the figure benchmath computes from the U distribution.
func uTestP(x, y []float64) float64 {
	pool := append(slices.Clone(x), y...)
	n, k := len(pool), len(x)
	u := func(a, b []float64) float64 {
		s := 0.0
		for _, p := range a {
			for _, q := range b {
				if q > p {
					s++
				}
			}
		}
		return s
	}
	mean := float64(len(x)*len(y)) / 2
	obs := math.Abs(u(x, y) - mean)
	var extreme, total int
	for mask := 0; mask < 1<<n; mask++ {
		if popcount(mask) != k {
			continue
		}
		var a, b []float64
		for i, v := range pool {
			if mask&(1<<i) != 0 {
				a = append(a, v)
			} else {
				b = append(b, v)
			}
		}
		total++
		if math.Abs(u(a, b)-mean) >= obs-1e-12 {
			extreme++
		}
	}
	return float64(extreme) / float64(total)
}

func popcount(m int) int {
	c := 0
	for ; m > 0; m &= m - 1 {
		c++
	}
	return c
}

func TestRead(t *testing.T) {
	t.Parallel()
	f := mustRead(t, "testdata/old.txt")
	if got := len(f.Results); got != 12 {
		t.Errorf("got %d results; want 12 (6 Encode, 6 Decode)", got)
	}
	r := f.Results[0]
	// ns/op is read in base units: 1000 ns = 1e-6 s
	want := Result{Pkg: "example.com/codec", Name: "Encode-8", Iters: 1000000, Values: []Value{{1e-6, "sec/op"}, {128, "B/op"}, {2, "allocs/op"}}}
	same := len(r.Values) == len(want.Values)
	for i := 0; same && i < len(r.Values); i++ {
		same = r.Values[i].Unit == want.Values[i].Unit && near(r.Values[i].Value, want.Values[i].Value)
	}
	if r.Pkg != want.Pkg || r.Name != want.Name || r.Iters != want.Iters || !same {
		t.Errorf("got first result %+v; want %+v", r, want)
	}
	var keys []string
	for _, c := range f.Config {
		keys = append(keys, c.Key+"="+strings.Join(c.Values, ","))
	}
	if got, want := strings.Join(keys, " "), "goos=linux goarch=amd64 pkg=example.com/codec cpu=Test CPU @ 2.00GHz"; got != want {
		t.Errorf("got config %q; want %q", got, want)
	}
	if len(f.Skipped) != 0 {
		t.Errorf("got skipped lines %q; want none (PASS and ok lines are not results)", f.Skipped)
	}
}

func TestReadBadInput(t *testing.T) {
	t.Parallel()
	// a line that starts like a result and is not one is skipped and named by file:line
	in := "pkg: p\nBenchmarkA-2\t10\t5 ns/op\nBenchmarkB-2\tmany\t5 ns/op\n"
	f, err := Read(strings.NewReader(in), "x.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Results) != 1 || len(f.Skipped) != 1 || !strings.HasPrefix(f.Skipped[0], "x.txt:3: ") {
		t.Errorf("got %d results, skipped %q; want 1 result and line x.txt:3 skipped", len(f.Results), f.Skipped)
	}
	// no result at all is an error that says what was expected
	_, err = Read(strings.NewReader("hello\nworld\n"), "notes.txt")
	if err == nil || !strings.Contains(err.Error(), "notes.txt: no benchmark results") || !strings.Contains(err.Error(), "go test -bench") {
		t.Errorf("got %v; want an error naming notes.txt and go test -bench", err)
	}
}

func TestSniff(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		head  string
		whole bool
		want  bool
	}{
		{"bench output", "goos: linux\nBenchmarkA-8\t100\t12 ns/op\nPASS\n", false, true},
		{"-v output names the benchmark alone: not a result", "=== RUN BenchmarkA\nBenchmarkA\n", true, false},
		{"a cut last line is not read", "goos: linux\nBenchmarkA-8\t100\t12 ns/", false, false},
		{"the whole file's last line counts without a newline", "BenchmarkA-8\t100\t12 ns/op", true, true},
		{"binary data", "\x00\x01RB\x02{\"schema\":1}\n", false, false},
		{"text mentioning Benchmark mid-line", "see BenchmarkA 100 12 ns/op\n", false, false},
	} {
		if got := Sniff([]byte(c.head), c.whole); got != c.want {
			t.Errorf("%s: got %v; want %v", c.name, got, c.want)
		}
	}
}

// TestCompare checks the figures against ones worked out by hand from testdata/old.txt and
// testdata/new.txt (6 runs of each benchmark in each file).
func TestCompare(t *testing.T) {
	t.Parallel()
	tb := compareFiles(t, Options{}, "testdata/old.txt", "testdata/new.txt")
	if got := strings.Join(tb.Labels, ","); got != "testdata/old.txt,testdata/new.txt" {
		t.Errorf("got labels %s; want the file names", got)
	}
	if tb.Sections[0].Pkg != "example.com/codec" {
		t.Errorf("got package %q; want example.com/codec", tb.Sections[0].Pkg)
	}
	var units []string
	for _, u := range tb.Sections[0].Units {
		units = append(units, u.Unit)
	}
	if got := strings.Join(units, " "); got != "sec/op B/op allocs/op" {
		t.Errorf("got units %s; want sec/op B/op allocs/op", got)
	}

	sec := unit(t, tb, "sec/op")
	if sec.Summary != "median" || sec.Better != -1 || len(sec.Rows) != 2 {
		t.Fatalf("got sec/op summary %q, better %d, %d rows; want median, -1 (lower is better), 2 rows", sec.Summary, sec.Better, len(sec.Rows))
	}
	enc, dec := sec.Rows[0], sec.Rows[1]
	// Encode, old sorted: 980 990 1000 1005 1010 1020 → median (1000+1005)/2 = 1002.5 ns; with 6
	// values the 95% interval of the median runs from the least to the greatest (confidence
	// 1 − 2·0.5⁶ = 96.9%): 980…1020 ns, ± max(1020/1002.5−1, 1−980/1002.5) = ± 2.24% → "± 2%".
	// new sorted: 890 895 900 902 905 910 → median 901 ns, ± max(9/901, 11/901) = 1.22% → "± 1%".
	for _, c := range []struct {
		name           string
		got            Cell
		center, lo, hi float64
		rng            string
	}{
		{"Encode old", enc.Cells[0], 1002.5e-9, 980e-9, 1020e-9, "± 2%"},
		{"Encode new", enc.Cells[1], 901e-9, 890e-9, 910e-9, "± 1%"},
		// Decode, old sorted 1900 1950 1990 2000 2050 2100: median 1995, ± max(105, 95)/1995 = 5.3%
		{"Decode old", dec.Cells[0], 1995e-9, 1900e-9, 2100e-9, "± 5%"},
		// new sorted 1920 1960 2005 2010 2060 2080: median 2007.5, ± max(72.5, 87.5)/2007.5 = 4.4%
		{"Decode new", dec.Cells[1], 2007.5e-9, 1920e-9, 2080e-9, "± 4%"},
	} {
		if c.got.N != 6 || !near(c.got.Center, c.center) || !near(c.got.Lo, c.lo) || !near(c.got.Hi, c.hi) || c.got.Range != c.rng {
			t.Errorf("%s: got n=%d %g [%g, %g] %s; want n=6 %g [%g, %g] %s", c.name, c.got.N, c.got.Center, c.got.Lo, c.got.Hi, c.got.Range, c.center, c.lo, c.hi, c.rng)
		}
	}
	// Encode: every new value is below every old one, so U = 0, the most extreme of the
	// C(12,6) = 924 splits, as is its mirror: p = 2/924 = 0.00216 < 0.05, significant.
	// Change: 901/1002.5 − 1 = −10.12%; lower is better for sec/op.
	d := enc.Deltas[0]
	if d.Text != "-10.12%" || !d.Significant || d.Verdict != "better" || !near(d.P, 2.0/924) || d.Test != "p=0.002 n=6" {
		t.Errorf("Encode delta: got %+v; want -10.12%%, significant, better, p=2/924, p=0.002 n=6", d)
	}
	// Decode: the samples interleave, U = 21 of 36 (mean 18); p is the share of the 924 splits
	// with |U−18| ≥ 3, counted by uTestP; far above 0.05, so "~".
	old := []float64{1900, 1950, 1990, 2000, 2050, 2100}
	cur := []float64{1920, 1960, 2005, 2010, 2060, 2080}
	wantP := uTestP(old, cur)
	d = dec.Deltas[0]
	if d.Text != "~" || d.Significant || d.Verdict != "" || !near(d.P, wantP) || wantP <= 0.05 {
		t.Errorf("Decode delta: got %+v; want ~, not significant, p=%g (> 0.05)", d, wantP)
	}
	// geomean: old √(1002.5·1995) = 1414.2 ns, new √(901·2007.5) = 1344.9 ns,
	// change √(1808757.5/1999987.5) − 1 = −4.90%
	g := sec.Geomean
	if g == nil {
		t.Fatal("no geomean row for sec/op")
	}
	if !near(g.Cells[0].Center, math.Sqrt(1002.5e-9*1995e-9)) || !near(g.Cells[1].Center, math.Sqrt(901e-9*2007.5e-9)) || g.Deltas[0].Text != "-4.90%" {
		t.Errorf("geomean: got %g, %g, %s; want 1414.2 ns, 1344.9 ns, -4.90%%", g.Cells[0].Center, g.Cells[1].Center, g.Deltas[0].Text)
	}

	// B/op: Encode 128 → 96 in every run (ties within, none across: p = 2/924), −25.00%;
	// Decode 256 in every run of both files: the test cannot run, so "~" and a note that says why.
	b := unit(t, tb, "B/op")
	if d := b.Rows[0].Deltas[0]; d.Text != "-25.00%" || d.Verdict != "better" || d.Test != "p=0.002 n=6" {
		t.Errorf("Encode B/op: got %+v; want -25.00%% better p=0.002 n=6", d)
	}
	d = b.Rows[1].Deltas[0]
	if d.Text != "~" || len(d.Notes) != 1 || tb.Notes[d.Notes[0]-1] != "all samples are equal" {
		t.Errorf("Decode B/op: got %+v, notes %q; want ~ with the note all samples are equal", d, tb.Notes)
	}
	// allocs/op: 2 → 1 is −50.00%; geomean √(2·4) = 2.828 → √(1·4) = 2: −29.29%
	a := unit(t, tb, "allocs/op")
	if a.Rows[0].Deltas[0].Text != "-50.00%" || a.Geomean.Deltas[0].Text != "-29.29%" {
		t.Errorf("allocs/op: got %s, geomean %s; want -50.00%%, -29.29%%", a.Rows[0].Deltas[0].Text, a.Geomean.Deltas[0].Text)
	}
	// one note in all: the same warning is numbered once
	if len(tb.Notes) != 1 {
		t.Errorf("got notes %q; want the one note, numbered once", tb.Notes)
	}
}

func TestCompareOne(t *testing.T) {
	t.Parallel()
	tb := compareFiles(t, Options{Labels: []string{"base"}}, "testdata/old.txt")
	sec := unit(t, tb, "sec/op")
	if tb.Labels[0] != "base" || len(sec.Rows[0].Deltas) != 0 || sec.Rows[0].Cells[0].Text != "1.003µ" {
		t.Errorf("got label %s, deltas %v, cell %q; want base, no delta, the median 1002.5 ns to 4 digits: 1.003µ", tb.Labels[0], sec.Rows[0].Deltas, sec.Rows[0].Cells[0].Text)
	}
}

func TestCompareFewSamplesAndMissing(t *testing.T) {
	t.Parallel()
	a, err := Read(strings.NewReader("BenchmarkA-2\t10\t100 ns/op\nBenchmarkA-2\t10\t110 ns/op\nBenchmarkOnlyOld-2\t10\t5 ns/op\n"), "a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Read(strings.NewReader("BenchmarkA-2\t10\t50 ns/op\nBenchmarkA-2\t10\t55 ns/op\n"), "b")
	if err != nil {
		t.Fatal(err)
	}
	tb, err := Compare([]*File{a, b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sec := unit(t, tb, "sec/op")
	// 2 values bound no 95% interval of the median, and 2+2 values cannot reach p < 0.05
	// (the least p is 2/C(4,2) = 1/3): "± ∞", "~" and notes that say how many are needed.
	r := sec.Rows[0]
	if r.Cells[0].Range != "± ∞" || len(r.Cells[0].Notes) == 0 || r.Deltas[0].Text != "~" || len(r.Deltas[0].Notes) == 0 {
		t.Errorf("A: got %+v; want ± ∞ and ~, each with a note", r)
	}
	if !near(r.Deltas[0].P, 1.0/3) {
		t.Errorf("A: got p=%g; want 1/3 (2 of the 6 splits are as extreme)", r.Deltas[0].P)
	}
	var joined string
	for _, n := range tb.Notes {
		joined += n + "\n"
	}
	if !strings.Contains(joined, "need >= 6 samples for confidence interval at level 0.95") || !strings.Contains(joined, "samples to detect a difference at alpha level 0.05") {
		t.Errorf("got notes %q; want the interval's and the test's sample counts", tb.Notes)
	}
	// a benchmark in one file only: its cell in the other is empty, so is its change
	r = sec.Rows[1]
	if r.Name != "OnlyOld-2" || r.Cells[1].N != 0 || r.Cells[1].Text != "" || r.Deltas[0].Text != "" {
		t.Errorf("OnlyOld: got %+v; want no value and no change in b", r)
	}
	// one row has values in both files: too few for a geomean
	if sec.Geomean != nil {
		t.Errorf("got geomean %+v; want none with one complete row", sec.Geomean)
	}
}

func TestCompareExactUnitAndPackages(t *testing.T) {
	t.Parallel()
	// unit metadata assume=exact: the summary is the value itself, compared without a test
	in := "Unit frames assume=exact\npkg: p1\nBenchmarkA\t1\t7 frames\npkg: p2\nBenchmarkB\t1\t3 frames\n"
	out := "Unit frames assume=exact\npkg: p1\nBenchmarkA\t1\t8 frames\npkg: p2\nBenchmarkB\t1\t3 frames\n"
	a, _ := Read(strings.NewReader(in), "a")
	b, _ := Read(strings.NewReader(out), "b")
	tb, err := Compare([]*File{a, b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.Sections) != 2 || tb.Sections[0].Pkg != "p1" || tb.Sections[1].Pkg != "p2" {
		t.Fatalf("got %d sections; want p1 then p2", len(tb.Sections))
	}
	u := tb.Sections[0].Units[0]
	// 7 → 8 is +14.29%; the unit's better direction is unknown, so no verdict
	if u.Summary != "exact" || u.Rows[0].Deltas[0].Text != "+14.29%" || u.Rows[0].Deltas[0].Verdict != "" || u.Rows[0].Deltas[0].Test != "n=1" {
		t.Errorf("got %s %+v; want exact, +14.29%%, no verdict, n=1", u.Summary, u.Rows[0].Deltas[0])
	}
	if d := tb.Sections[1].Units[0].Rows[0].Deltas[0]; d.Text != "0.00%" {
		t.Errorf("p2 B: got %q; want 0.00%% (3 → 3)", d.Text)
	}
}

func TestCompareOptions(t *testing.T) {
	t.Parallel()
	a := mustRead(t, "testdata/old.txt")
	for _, o := range []Options{{Confidence: 1}, {Confidence: -0.5}, {Alpha: 2}} {
		if _, err := Compare([]*File{a}, o); err == nil {
			t.Errorf("%+v: got no error; want one saying the level must be between 0 and 1", o)
		}
	}
	if _, err := Compare(nil, Options{}); err == nil {
		t.Error("no files: got no error; want one")
	}
	// with alpha 0.001 the Encode change (p = 0.00216) is no longer significant
	tb := compareFiles(t, Options{Alpha: 0.001}, "testdata/old.txt", "testdata/new.txt")
	if d := unit(t, tb, "sec/op").Rows[0].Deltas[0]; d.Text != "~" {
		t.Errorf("alpha 0.001: got %s; want ~", d.Text)
	}
}
