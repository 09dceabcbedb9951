package cli

import (
	"context"
	"flag"
	"io"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/plan"
)

// What a command of another package (the k8s commands, a program of their own: internal/cli/k8scmd)
// uses of this one's, so that its help, errors and exit codes are rpcbench's.

// NewFlagSet returns the flag set of the command name: its help prints "Usage: rpcbench SYNOPSIS",
// the examples and the flags with two dashes.
func NewFlagSet(e *Env, name, synopsis, examples string) *flag.FlagSet {
	return newFlagSet(e, name, synopsis, examples)
}

// ParseArgs parses args into fs, flags and positional arguments interleaved. done=true says the
// command must return code: after --help (0), or a bad flag, printed (2).
func ParseArgs(e *Env, fs *flag.FlagSet, args []string) (pos []string, code int, done bool) {
	return parseArgs(e, fs, args)
}

// ParseFlags is ParseArgs for a command that takes no positional argument.
func ParseFlags(e *Env, fs *flag.FlagSet, args []string) (code int, done bool) {
	return parseFlags(e, fs, args)
}

// Usagef makes an error of bad input, which Fail turns into exit code 2.
func Usagef(format string, a ...any) error { return usagef(format, a...) }

// Fail prints err as "rpcbench CMD: err" and returns its exit code: 2 for an error of Usagef, else
// code.
func Fail(e *Env, cmd string, err error, code int) int { return fail(e, cmd, err, code) }

// PositiveDuration is the flag value of a duration above 0.
func PositiveDuration(p *time.Duration) flag.Value { return positiveDurationFlag{durationFlag{p}} }

// DefineReportFormat defines --format, one of the formats of rpcbench report, default text.
func DefineReportFormat(fs *flag.FlagSet, p *string) {
	*p = "text"
	fs.Var(choiceFlag{p, reportFormats}, "format", "report `format`: "+strings.Join(reportFormats, ", "))
}

// WriteOutput writes a file through write, whole or not at all (see writeOutput).
func WriteOutput(path string, write func(io.Writer) error) error { return writeOutput(path, write) }

// MakeRunDir creates the directory of a run's result files, or takes an empty one.
func MakeRunDir(dir string) error { return makeRunDir(dir) }

// Report runs rpcbench report with args.
func Report(ctx context.Context, e *Env, args []string) int { return runReport(ctx, e, args) }

// SelectRun reads a plan file and chooses one run of it (a scenario, a target and a step), as
// rpcbench run --plan does; a problem is a usage error naming the file or the flag.
func SelectRun(file, scenario, target string, step int) (*plan.Bench, plan.Scenario, plan.BenchTarget, int, error) {
	b, err := readBenchFile(file)
	if err != nil {
		return nil, plan.Scenario{}, plan.BenchTarget{}, 0, err
	}
	_, s, t, k, err := b.Select(scenario, target, step)
	if err != nil {
		return nil, s, t, k, selectError(err)
	}
	return b, s, t, k, nil
}

// CheckRunArgs parses the run flags of a Job's generators as `rpcbench run` would, and checks the
// plan they make; the flags the Job sets itself are refused. It returns the URL, if any.
func CheckRunArgs(e *Env, args []string) (string, error) {
	var errb strings.Builder
	re := &env{stdout: io.Discard, stderr: &errb, stdin: e.stdin}
	fs := newFlagSet(re, "run", "", "")
	f := &runFlags{format: "text"}
	f.define(fs)
	f.defineRunOnly(fs)
	pos, _, done := parseArgs(re, fs, args)
	if done {
		return "", usagef("after --: %s", strings.TrimSpace(strings.SplitN(errb.String(), "\n", 2)[0]))
	}
	var set []string
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "segment", "segment-index", "segment-sequence", "start-at", "out", "out-log", "no-verdict", "live", "html", "report-file":
			set = append(set, "--"+fl.Name)
		}
	})
	if f.planf.file != "" {
		return "", usagef("after --: --plan: give the plan file as the argument of k8s job (k8s job [flags] PLAN.yaml), which puts it into the Job's ConfigMap")
	}
	if len(set) > 0 {
		return "", usagef("after --: %s: the Job sets each pod's part, start and result file; leave %s out", strings.Join(set, ", "), strings.Join(set, ", "))
	}
	if len(pos) > 1 || len(pos) == 0 && !f.traffic.given() {
		return "", usagef("after --: want the run's flags and one URL (or --targets, --endpoint), got %d arguments", len(pos))
	}
	p, err := f.plan(strings.Join(pos, ""))
	if err != nil {
		return "", usagef("after --: %v", err)
	}
	if p.Traffic.Targets == "" && p.Traffic.Data == "" && p.Traffic.Setup == "" && p.JSONRPC.CallsFile == "" {
		if err := p.Validate(); err != nil {
			return "", usagef("after --: %s", strings.ReplaceAll(err.Error(), "plan: ", ""))
		}
	}
	return strings.Join(pos, ""), nil
}
