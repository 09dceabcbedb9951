package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/report"
)

// sideTableJSON is a table of report.json's scenario "tables", read as a program would.
type sideTableJSON struct {
	Section string
	Title   string
	Targets []string
	Rows    []struct {
		Step     int
		Level    string
		Endpoint string
		Figures  []struct {
			Name, Unit, Better string
			Values, Ratios     []*float64
		}
	}
}

// mdTable returns the head and rows of the table under heading "## section" of a Markdown report;
// ok is false when there is no such section or it holds no table.
func mdTable(md, section string) (head []string, rows [][]string, ok bool) {
	_, rest, found := strings.Cut(md, "\n## "+section+"\n")
	if !found {
		return nil, nil, false
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	var lines []string
	for l := range strings.Lines(rest) {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "|") {
			lines = append(lines, l)
		}
	}
	if len(lines) < 3 {
		return nil, nil, false
	}
	cells := func(l string) []string {
		return strings.Split(strings.TrimSuffix(strings.TrimPrefix(l, "| "), " |"), " | ")
	}
	head = cells(lines[0])
	for _, l := range lines[2:] { // after the alignment line
		rows = append(rows, cells(l))
	}
	return head, rows, true
}

var mdNumber = regexp.MustCompile(`^(-?[0-9]+(?:\.([0-9]+))?) ?(µs|ms|s|%|.*)$`)

// mdValue reads a figure as report.md writes it ("1.23ms", "850µs", "12", "0.00%", "412.3
// req/s") into the JSON's unit (milliseconds for latencies), and the most it can differ from the
// value it was written from (half its last digit).
func mdValue(cell, unit string) (v, within float64, err error) {
	m := mdNumber.FindStringSubmatch(cell)
	if m == nil {
		return 0, 0, fmt.Errorf("%q: not a figure", cell)
	}
	v, err = strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, 0, err
	}
	within = 0.5 * math.Pow(10, -float64(len(m[2])))
	scale := 1.0
	if unit == "ms" {
		switch m[3] {
		case "µs":
			scale = 0.001
		case "s":
			scale = 1000
		case "ms":
		default:
			return 0, 0, fmt.Errorf("%q: not a latency", cell)
		}
	}
	return v * scale, within*scale + 1e-9, nil
}

var mdRatio = regexp.MustCompile(`^([0-9]+(?:\.([0-9]+))?)× (more|the|less) `)

// checkRatio says whether a ratio cell of report.md ("1.3× more requests/s", "0.50× the p99",
// "same p50", "n/a …") writes ratio r, the JSON's (nil: none).
func checkRatio(cell string, r *float64) error {
	switch {
	case strings.HasPrefix(cell, "n/a"):
		if r != nil {
			return fmt.Errorf("%q beside a ratio of %v", cell, *r)
		}
		return nil
	case r == nil:
		return fmt.Errorf("%q beside no ratio", cell)
	case strings.HasPrefix(cell, "same "):
		if math.Abs(*r-1) > 0.051 {
			return fmt.Errorf("%q beside a ratio of %v", cell, *r)
		}
		return nil
	}
	m := mdRatio.FindStringSubmatch(cell)
	if m == nil {
		return fmt.Errorf("%q: not a ratio", cell)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	if m[3] == "less" {
		v = 1 / v // "3× less" is a ratio of 1/3
	}
	if rel := math.Abs(v-*r) / *r; rel > 0.06 {
		return fmt.Errorf("%q beside a ratio of %v", cell, *r)
	}
	return nil
}

// report.json holds every side-by-side table report.md has — each alone, a parameter swept,
// each endpoint over the steps — as rows, columns, values and units, with the same numbers.
func TestReportJSONHoldsTheSideTables(t *testing.T) {
	t.Parallel()
	a, _ := batchNode(t)
	b, _ := batchNode(t)
	bench := readBench(t, t.TempDir(), fmt.Sprintf(`targets:
  a: {url: %q}
  b: {url: %q}
stats: [rps, requests, errors, p50, p99, max]
scenarios:
  each:
    connections: 1
    requests: 8
    alone: true
    jsonrpc:
      calls:
        - {method: eth_blockNumber}
        - {method: eth_chainId}
  batch:
    connections: 1
    requests: 6
    sweep: {batch: [1, 4]}
    jsonrpc:
      calls:
        - {method: eth_blockNumber}
        - {method: eth_chainId}
  levels:
    steps: [1, 2]
    step: 150ms
    jsonrpc:
      calls:
        - {method: eth_blockNumber}
        - {method: eth_chainId}
`, a, b))
	out, err := Run(context.Background(), bench, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var md, js bytes.Buffer
	if err := Render(&md, out, "markdown", report.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Render(&js, out, "json", report.Options{}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Scenarios []struct {
			Name   string
			Tables []sideTableJSON
		}
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	tables := map[string]sideTableJSON{}
	for _, s := range doc.Scenarios {
		for _, tb := range s.Tables {
			tables[tb.Section] = tb
		}
	}
	// the sections report.md has, by hand: the alone one, the swept one, and both a sweep and
	// the steps of a mix have each endpoint over their steps
	sections := []string{"each: each alone", "batch: batch swept", "batch: each endpoint over the steps", "levels: each endpoint over the steps"}
	if len(tables) != len(sections) {
		t.Errorf("report.json has the tables %v; want %v", keys(tables), sections)
	}
	for _, sec := range sections {
		head, rows, ok := mdTable(md.String(), sec)
		tb, inJSON := tables[sec]
		if !ok || !inJSON {
			t.Errorf("%s: in report.md %v, in report.json %v; want it in both", sec, ok, inJSON)
			continue
		}
		byEndpoint := strings.HasSuffix(sec, "each endpoint over the steps")
		lead := 1
		if byEndpoint {
			lead = 2
		}
		if want := append(append(make([]string, 0, 5), head[:lead]...), "figure", "a", "b", "vs a"); strings.Join(head, "|") != strings.Join(want, "|") || strings.Join(tb.Targets, ",") != "a,b" {
			t.Errorf("%s: report.md's columns %q, report.json's targets %q; want %q and a, b", sec, head, tb.Targets, want)
		}
		// report.md's rows, one per figure, in the order of report.json's rows and figures
		i, level, endpoint := 0, "", ""
		for _, r := range tb.Rows {
			if byEndpoint && r.Endpoint != "eth_blockNumber" && r.Endpoint != "eth_chainId" {
				t.Errorf("%s: %s: endpoint %q; want one of the two methods", sec, r.Level, r.Endpoint)
			}
			for _, f := range r.Figures {
				if i >= len(rows) {
					t.Fatalf("%s: report.md has %d rows; report.json more", sec, len(rows))
				}
				row := rows[i]
				i++
				if row[0] != "" {
					level = row[0]
				}
				if byEndpoint && row[1] != "" {
					endpoint = row[1]
				}
				if len(row) != len(head) {
					t.Errorf("%s: report.md row %q; want %d cells", sec, row, len(head))
					continue
				}
				if level != r.Level || byEndpoint && endpoint != r.Endpoint || row[lead] != f.Name {
					t.Errorf("%s: report.md row %q; report.json has %s / %s / %s there", sec, row, r.Level, r.Endpoint, f.Name)
					continue
				}
				if len(f.Values) != 2 || len(f.Ratios) != 2 || f.Values[0] == nil || f.Values[1] == nil {
					t.Errorf("%s: %s %s %s: values %v, ratios %v; want one of each per target", sec, r.Level, r.Endpoint, f.Name, f.Values, f.Ratios)
					continue
				}
				for k, v := range f.Values {
					got, within, err := mdValue(row[lead+1+k], f.Unit) // columns: figure, a, b, vs a
					if err != nil || math.Abs(got-*v) > within {
						t.Errorf("%s: %s %s %s of %s: report.md %q, report.json %v (%v)", sec, r.Level, r.Endpoint, f.Name, tb.Targets[k], row, *v, err)
					}
				}
				// the ratio of b to a: recomputed from the two values, and as report.md words it
				if *f.Values[0] != 0 {
					if want := *f.Values[1] / *f.Values[0]; f.Ratios[1] == nil || math.Abs(*f.Ratios[1]-want) > 1e-9*math.Max(1, want) {
						t.Errorf("%s: %s %s %s: ratio %v; want b/a = %v", sec, r.Level, r.Endpoint, f.Name, f.Ratios[1], want)
					}
				}
				if err := checkRatio(row[lead+3], f.Ratios[1]); err != nil {
					t.Errorf("%s: %s %s %s: %v", sec, r.Level, r.Endpoint, f.Name, err)
				}
			}
		}
		if i != len(rows) {
			t.Errorf("%s: report.md has %d rows, report.json %d figures", sec, len(rows), i)
		}
	}
	// what was sent, by hand: 8 requests of each method alone, 6 of each batch size
	for sec, want := range map[string]float64{"each: each alone": 8, "batch: batch swept": 6} {
		for _, r := range tables[sec].Rows {
			for _, f := range r.Figures {
				if f.Name == "requests" && (len(f.Values) != 2 || f.Values[0] == nil || *f.Values[0] != want || f.Values[1] == nil || *f.Values[1] != want) {
					t.Errorf("%s: %s: requests %v; want %v against each target", sec, r.Level, f.Values, want)
				}
			}
		}
	}
	if rs := tables["each: each alone"].Rows; len(rs) != 2 || rs[0].Level != "eth_blockNumber alone" || rs[1].Level != "eth_chainId alone" || rs[1].Step != 2 {
		t.Errorf("each: each alone: rows %+v; want eth_blockNumber alone, then eth_chainId alone as step 2", rs)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
