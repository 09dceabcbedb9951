package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rpcbench/rpcbench/report"
)

func init() {
	register(command{name: "plot", summary: "plot each request's latency over time from per-request logs (--log of run), as vegeta plot does", run: runPlot})
}

const plotExamples = `  rpcbench run --rate 500 --duration 30s --log requests.csv http://127.0.0.1:8080/
  rpcbench plot -o plot.html requests.csv                  one run: its OK and failed requests
  rpcbench plot -o plot.html --label before --label after a.csv b.csv  two runs, each from its own start`

// runPlot writes vegeta plot's page from per-request logs: result files hold histograms and
// intervals, not each request, so the plot reads the logs that run --log (and a plan's reports:
// [plot]) write.
func runPlot(_ context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "plot", "plot [flags] LOG.csv…\n\nWrite one self-contained HTML page with the service time of each request (from its send to its\nanswer's last byte) at the time it was sent, a series for the requests that succeeded and one for\nthose that failed, per run, as vegeta plot does. The requests come from per-request logs\n(`rpcbench run --log FILE`; a plan file's `reports: [plot]`): result files (.rb) keep histograms\nand intervals, not each request.", plotExamples)
	out, title := "", "rpcbench plot"
	fs.StringVar(&out, "o", "", "write to `FILE` instead of stdout")
	fs.StringVar(&title, "title", title, "the page's `title`")
	var labels []string
	fs.Var(appended(&labels, runLabel), "label", "name the runs `NAME` instead of by their file names (repeatable: one per file, in order)")
	files, code, done := parseArgs(e, fs, args)
	if done {
		return code
	}
	if len(files) == 0 {
		fmt.Fprintln(e.stderr, "rpcbench plot: want at least one per-request log (LOG.csv, from run --log)\n(see: rpcbench plot --help)")
		return ExitUsage
	}
	if err := checkLabels(labels, len(files), false); err != nil {
		return fail(e, "plot", err, ExitUsage)
	}
	inputs := make([]namedFile, len(files))
	for i, f := range files {
		inputs[i] = namedFile{"a per-request log to read", f}
	}
	if err := distinctFiles([]namedFile{{"-o", out}}, inputs); err != nil {
		return fail(e, "plot", err, ExitUsage)
	}
	if err := checkOutput("-o", out); err != nil {
		return fail(e, "plot", err, ExitUsage)
	}
	runs, err := readPlotRuns(files, labels)
	if err != nil {
		return fail(e, "plot", usageError{err.Error()}, ExitUsage)
	}
	write := func(w io.Writer) error { return report.Plot(w, runs, title, Version()) }
	if out == "" {
		err = write(e.stdout)
	} else {
		err = writeOutput(out, write)
	}
	if err != nil {
		return fail(e, "plot", fmt.Errorf("writing the plot: %w", err), ExitCannotStart)
	}
	return ExitOK
}

// readPlotRuns reads the per-request logs files, labelled by labels (else by their file names).
func readPlotRuns(files, labels []string) ([]report.PlotRun, error) {
	var runs []report.PlotRun
	for i, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		r, err := report.ReadRequestLog(name, f)
		f.Close()
		if err != nil {
			return nil, err
		}
		r.Label = filepath.Base(name)
		if i < len(labels) {
			r.Label = labels[i]
		}
		runs = append(runs, r)
	}
	return runs, nil
}
