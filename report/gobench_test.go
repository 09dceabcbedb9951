package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/tools/gobench"
)

// goBenchTable is the comparison of the hand-written files in gobench/testdata, whose figures
// gobench's tests work out by hand.
func goBenchTable(t *testing.T, paths ...string) *gobench.Table {
	t.Helper()
	var fs []*gobench.File
	for _, p := range paths {
		f, err := gobench.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	tb, err := gobench.Compare(fs, gobench.Options{Labels: []string{"old", "new"}})
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

const oldBench, newBench = "../tools/gobench/testdata/old.txt", "../tools/gobench/testdata/new.txt"

func TestGoBenchGolden(t *testing.T) {
	t.Parallel()
	tb := goBenchTable(t, oldBench, newBench)
	for _, c := range []struct{ format, golden string }{
		{"text", "gobench.txt"},
		{"markdown", "gobench.md"},
		{"json", "gobench.json"},
		{"html", "gobench.html"},
	} {
		var b bytes.Buffer
		if err := GoBench(&b, tb, c.format); err != nil {
			t.Fatal(err)
		}
		golden(t, c.golden, b.Bytes())
	}
}

// TestGoBenchText checks the figures of the text table line by line, apart from the golden file.
func TestGoBenchText(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := GoBench(&b, goBenchTable(t, oldBench, newBench), "text"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"goos: linux\n", "cpu: Test CPU @ 2.00GHz\n", "pkg: example.com/codec\n",
		// Encode: medians 1002.5 and 901 ns, all new values below all old ones
		"-10.12% (p=0.002 n=6)",
		// Decode: the samples interleave
		"~ (p=0.699 n=6)",
		// Decode B/op: 256 everywhere, with the note why no test ran
		"~ (p=1.000 n=6)¹",
		"¹ all samples are equal\n",
		"geomean", "-4.90%",
		"changes against old with the U-test's p-value",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text: no %q in\n%s", want, out)
		}
	}
	// columns line up: every line of a table has the change column at the same rune offset
	var at []int
	for _, l := range strings.Split(out, "\n") {
		if i := strings.Index(l, "vs old"); i >= 0 {
			at = append(at, len([]rune(l[:i])))
		}
		if i := strings.Index(l, "-10.12%"); i >= 0 {
			at = append(at, len([]rune(l[:i])))
		}
	}
	if len(at) < 2 || at[0] != at[1] {
		t.Errorf("got the header's change column at %v; want the Encode change under it", at)
	}
}

func TestGoBenchOneFile(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := GoBench(&b, goBenchTable(t, oldBench), "text"); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); strings.Contains(out, "vs ") || !strings.Contains(out, "1.003µ ± 2%") {
		t.Errorf("one file: got\n%s\nwant no change columns and Encode's median 1.003µ ± 2%%", out)
	}
}

func TestGoBenchHTML(t *testing.T) {
	t.Parallel()
	tb := goBenchTable(t, oldBench, newBench)
	tb.Labels[1] = `<script>alert(1)</script>`
	var b bytes.Buffer
	if err := GoBench(&b, tb, "html"); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if strings.Contains(page, "<script>alert") {
		t.Error("a label reached the page unescaped")
	}
	for _, want := range []string{`<td class="better">-10.12% (p=0.002 n=6)</td>`, `<td>~ (p=0.699 n=6)</td>`, "<li>all samples are equal</li>", `<tr class="total">`} {
		if !strings.Contains(page, want) {
			t.Errorf("html: no %q", want)
		}
	}
	if strings.Contains(page, "src=") || strings.Contains(page, "href=") {
		t.Error("html: the page loads something; want it self-contained")
	}
}

func TestGoBenchJSON(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := GoBench(&b, goBenchTable(t, oldBench, newBench), "json"); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Schema string        `json:"schema"`
		Table  gobench.Table `json:"table"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	d := got.Table.Sections[0].Units[0].Rows[0].Deltas[0]
	if got.Schema != GoBenchSchema || d.Text != "-10.12%" || d.Verdict != "better" {
		t.Errorf("json: got schema %s, Encode change %+v; want %s, -10.12%% better", got.Schema, d, GoBenchSchema)
	}
}

func TestGoBenchFormatError(t *testing.T) {
	t.Parallel()
	err := GoBench(&bytes.Buffer{}, goBenchTable(t, oldBench), "csv")
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Format != "csv" || !strings.Contains(fe.Reason, "text, json, markdown, html") {
		t.Errorf("csv: got %v; want a FormatError naming the formats that render benchmarks", err)
	}
}
