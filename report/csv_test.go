package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata from the renderers' output")

// The fixed result files the golden files render, written by real runs against the lab service:
// one endpoint with 1% errors, a second run of the same, and three weighted endpoints.
var fixtures = []string{"testdata/one.rb", "testdata/two.rb", "testdata/multi.rb"}

// load reads a result file into the Summary the run printed, with its timeline.
func load(t *testing.T, path string) *summary.Summary {
	t.Helper()
	var tl summary.Timeline
	f, err := result.ReadFile(path, func(f *result.File, iv *result.Interval) error { tl.Add(iv, f.Header.Endpoints); return nil })
	if err != nil {
		t.Fatal(err)
	}
	s, err := summary.OfFile(f, tl.Points, false)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: got:\n%s\nwant:\n%s", name, got, want)
	}
}

func TestCSVGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		golden string
		files  []string
		labels []string
	}{
		{"one.csv", fixtures[:1], []string{"one.rb"}},
		{"multi.csv", fixtures[2:], nil}, // a row per endpoint and one for all; label defaults to "run 1"
		{"two.csv", fixtures[:2], []string{"one.rb", "two.rb"}},
	}
	for _, tc := range tests {
		var runs []*summary.Summary
		for _, f := range tc.files {
			runs = append(runs, load(t, f))
		}
		var b bytes.Buffer
		if err := CSV(&b, runs, tc.labels); err != nil {
			t.Fatal(err)
		}
		golden(t, tc.golden, b.Bytes())
	}
}
