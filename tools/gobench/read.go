package gobench

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"golang.org/x/perf/benchfmt"
)

// File is the benchmark results read from one input. The zero value is an empty file with no name.
type File struct {
	// Name names the file in tables and messages: its path, or a label.
	Name string
	// Config is the file's configuration lines (goos, goarch, pkg, cpu …) in order of first
	// appearance, with every value a key took in the file, in order.
	Config []Config
	// Results is every benchmark result, in the order of the file.
	Results []Result
	// Skipped says which lines looked like a result and were not one
	// ("old.txt:7: missing iteration count"); they are left out of the figures.
	Skipped []string

	units benchfmt.UnitMetadataMap
}

// Config is one configuration key of a file and the values it took.
type Config struct {
	Key    string   `json:"key"`
	Values []string `json:"values"`
}

// Result is one benchmark line: a run of one benchmark, with each of its measurements.
type Result struct {
	// Pkg is the package the line's pkg configuration named, "" when none did.
	Pkg string
	// Name is the benchmark's full name without its Benchmark prefix: "Encode/size=1k-8".
	Name string
	// Iters is the number of iterations the values are averaged over.
	Iters int
	// Values are the measurements in base units (ns/op is read as sec/op, MB/s as B/s).
	Values []Value
}

// Value is one measurement and its unit.
type Value struct {
	Value float64
	Unit  string
}

// ReadFile reads the benchmark results in the file at path; see Read.
func ReadFile(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// Read reads the output of `go test -bench` from r; name names it in messages. Lines other than
// results, configuration and unit metadata (PASS, ok, test logs) are ignored; a line that begins
// like a result and is not one is listed in Skipped. It is an error when r holds no result at all.
func Read(r io.Reader, name string) (*File, error) {
	br := benchfmt.NewReader(r, name)
	f := &File{Name: name}
	seen := map[string]int{} // config key → index in f.Config
	for br.Scan() {
		switch rec := br.Result().(type) {
		case *benchfmt.SyntaxError:
			f.Skipped = append(f.Skipped, rec.Error())
		case *benchfmt.Result:
			res := Result{Pkg: rec.GetConfig("pkg"), Name: string(rec.Name.Full()), Iters: rec.Iters}
			for _, v := range rec.Values {
				res.Values = append(res.Values, Value{v.Value, v.Unit})
			}
			f.Results = append(f.Results, res)
			for _, c := range rec.Config {
				if !c.File {
					continue
				}
				i, ok := seen[c.Key]
				if !ok {
					i = len(f.Config)
					seen[c.Key] = i
					f.Config = append(f.Config, Config{Key: c.Key})
				}
				if v := string(c.Value); !slices.Contains(f.Config[i].Values, v) {
					f.Config[i].Values = append(f.Config[i].Values, v)
				}
			}
		}
	}
	if err := br.Err(); err != nil {
		return nil, err
	}
	f.units = br.Units()
	if len(f.Results) == 0 {
		msg := fmt.Sprintf("gobench: %s: no benchmark results: want lines like \"BenchmarkEncode-8  1000  1234 ns/op  128 B/op  2 allocs/op\", the output of go test -bench", name)
		if len(f.Skipped) > 0 {
			msg += "; " + f.Skipped[0]
		}
		return nil, errors.New(msg)
	}
	return f, nil
}

// Sniff reports whether head, the start of a file, holds Go benchmark output: whether one of its
// complete lines is a benchmark result. whole says head is the whole file, so that its last line
// counts even without a newline; otherwise a last line without one is taken as cut and left out.
// A caller can so decide from the first few kilobytes of a file whether to read it as benchmarks.
func Sniff(head []byte, whole bool) bool {
	if !whole {
		head = head[:bytes.LastIndexByte(head, '\n')+1]
	}
	br := benchfmt.NewReader(bytes.NewReader(head), "")
	for br.Scan() {
		if _, ok := br.Result().(*benchfmt.Result); ok {
			return true
		}
	}
	return false
}
