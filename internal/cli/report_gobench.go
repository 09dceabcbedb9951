package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rpcbench/rpcbench/report"
	"github.com/rpcbench/rpcbench/tools/gobench"
)

// goBenchExamples are report's examples for Go benchmark output.
const goBenchExamples = `
  go test -bench . -benchmem -count 6 > old.txt            (then change the code)
  go test -bench . -benchmem -count 6 > new.txt
  rpcbench report old.txt new.txt                          Go benchmark output is recognised: medians, changes and p-values
  rpcbench report --gobench --format html -o bench.html old.txt new.txt   the same as a page`

// goBenchFlags are the flags of `report` on Go benchmark output.
type goBenchFlags struct {
	force             bool
	format, out       string
	labels            []string
	alpha, confidence float64
}

// define adds the flags that only Go benchmark output takes; report's FlagSet has them too, so
// that its help lists them.
func (f *goBenchFlags) define(fs *flag.FlagSet) {
	fs.BoolVar(&f.force, "gobench", false, "read the files as the output of go test -bench (recognised by content without it)")
	fs.Float64Var(&f.alpha, "alpha", 0.05, "Go benchmarks: the significance level; a change with a higher p-value shows as ~")
	fs.Float64Var(&f.confidence, "confidence", 0.95, "Go benchmarks: the level of the medians' confidence intervals")
}

// reportGoBench is `rpcbench report` on the output of go test -bench. It takes the command when
// --gobench is given or when every file holds benchmark results, and says ok=false to leave the
// arguments to the result-file report otherwise.
func reportGoBench(e *env, args []string) (code int, ok bool) {
	var f goBenchFlags
	fs := newFlagSet(e, "report", "report [flags] FILE…", "")
	fs.Usage = func() {} // the flag package calls it on --help and on errors: the report's help says it
	f.define(fs)
	fs.StringVar(&f.format, "format", "", "")
	fs.StringVar(&f.out, "o", "", "")
	fs.Var(appended(&f.labels, runLabel), "label", "")
	var files []string
	if slices.ContainsFunc(args, isGoBenchFlag) {
		var done bool
		if files, code, done = parseArgs(e, fs, args); done {
			if code == ExitOK { // --help: the report's own
				return 0, false
			}
			return code, true
		}
	} else {
		pos, err := parseInterleaved(fs, args)
		if err != nil || len(pos) == 0 {
			return 0, false // a flag of result files, --help, or no file: the result-file report says
		}
		bench, err := sniffGoBench(pos)
		if err != nil || len(bench) == 0 {
			return 0, false
		}
		if len(bench) < len(pos) {
			other := pos[slices.IndexFunc(pos, func(p string) bool { return !slices.Contains(bench, p) })]
			return fail(e, "report", usagef("%s is go test -bench output and %s is not: report renders result files or Go benchmark output, one kind at a time", bench[0], other), ExitUsage), true
		}
		files = pos
	}
	return f.run(e, files), true
}

// isGoBenchFlag says whether arg names --gobench, --alpha or --confidence.
func isGoBenchFlag(arg string) bool {
	name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	return strings.HasPrefix(arg, "-") && (name == "gobench" || name == "alpha" || name == "confidence")
}

// sniffGoBench is the files among paths whose first 64 KiB hold a Go benchmark result.
func sniffGoBench(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		fh, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		head := make([]byte, 64<<10)
		n, err := io.ReadFull(fh, head)
		fh.Close()
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if gobench.Sniff(head[:n], n < len(head)) {
			out = append(out, p)
		}
	}
	return out, nil
}

func (f *goBenchFlags) run(e *env, files []string) int {
	if len(files) == 0 {
		fmt.Fprintln(e.stderr, "rpcbench report: want at least one file of go test -bench output\n(see: rpcbench report --help)")
		return ExitUsage
	}
	if f.format == "" {
		f.format = "text"
		if f.out != "" {
			f.format = report.FormatForPath(f.out)
		}
	}
	if !slices.Contains(report.GoBenchFormats, f.format) {
		return fail(e, "report", usagef("--format %s does not render Go benchmarks; want one of %s", f.format, strings.Join(report.GoBenchFormats, ", ")), ExitUsage)
	}
	if err := checkLabels(f.labels, len(files), false); err != nil {
		return fail(e, "report", err, ExitUsage)
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"--alpha", f.alpha}, {"--confidence", f.confidence}} {
		if !(c.v > 0 && c.v < 1) {
			return fail(e, "report", usagef("%s %v: want a level between 0 and 1, such as %s", c.name, c.v, map[string]string{"--alpha": "0.05", "--confidence": "0.95"}[c.name]), ExitUsage)
		}
	}
	inputs := make([]namedFile, len(files))
	for i, p := range files {
		inputs[i] = namedFile{"a benchmark file to read", p}
	}
	if err := distinctFiles([]namedFile{{"-o", f.out}}, inputs); err != nil {
		return fail(e, "report", err, ExitUsage)
	}
	if err := checkOutput("-o", f.out); err != nil {
		return fail(e, "report", err, ExitUsage)
	}
	var read []*gobench.File
	for _, p := range files {
		bf, err := gobench.ReadFile(p)
		if err != nil {
			return fail(e, "report", err, ExitUsage)
		}
		for _, s := range bf.Skipped {
			fmt.Fprintf(e.stderr, "rpcbench report: %s (line skipped)\n", s)
		}
		read = append(read, bf)
	}
	t, err := gobench.Compare(read, gobench.Options{Labels: goBenchLabels(files, f.labels), Alpha: f.alpha, Confidence: f.confidence})
	if err != nil {
		return fail(e, "report", err, ExitUsage)
	}
	write := func(w io.Writer) error { return report.GoBench(w, t, f.format) }
	if f.out == "" || f.out == "-" {
		err = write(e.stdout)
	} else {
		err = writeOutput(f.out, write)
	}
	if err != nil {
		return fail(e, "report", fmt.Errorf("writing the report: %w", err), ExitCannotStart)
	}
	return ExitOK
}

// goBenchLabels names the columns: the labels given, else the files' base names, or their paths
// where two base names are the same.
func goBenchLabels(files, labels []string) []string {
	if len(labels) > 0 {
		return labels
	}
	out := make([]string, len(files))
	seen := map[string]int{}
	for i, p := range files {
		out[i] = filepath.Base(p)
		seen[out[i]]++
	}
	for i := range out {
		if seen[out[i]] > 1 {
			out[i] = files[i]
		}
	}
	return out
}
