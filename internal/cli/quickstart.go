package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/serve/lab"
)

func init() {
	register(command{name: "quickstart", summary: "start a built-in service on 127.0.0.1 and benchmark it for a few seconds", run: runQuickstart})
}

const quickstartExamples = `  rpcbench quickstart
  rpcbench quickstart --rate 5000 --duration 5s
  rpcbench quickstart --latency 2ms
  rpcbench quickstart --format json`

func runQuickstart(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "quickstart", "quickstart [flags]\n\nStart a built-in lab service on 127.0.0.1, load it at a constant rate and print the report —\nrpcbench end to end, with nothing to set up.", quickstartExamples)
	rate := rateFlag{v: 1000, set: true}
	duration := 10 * time.Second // 10,000 latencies at 1000/s: enough for the p99.99 the report shows
	format := "text"
	quiet := false
	latency := time.Duration(0)
	fs.Var(&rate, "rate", "arrivals per second (`RATE`)")
	fs.Var(durationFlag{&duration}, "duration", "measured length of the run")
	fs.Var(choiceFlag{&format, []string{"text", "json"}}, "format", "report `format`: text or json")
	fs.BoolVar(&quiet, "quiet", false, "no live progress line")
	fs.Var(durationFlag{&latency}, "latency", "service time the built-in service adds to every request (default: answer at once)")
	pos, code, done := parseArgs(e, fs, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintf(e.stderr, "rpcbench quickstart: unexpected argument %q\n", pos[0])
		return ExitUsage
	}
	if rate.v <= 0 {
		return fail(e, "quickstart", usagef("--rate: want a rate above 0, e.g. 1000/s"), ExitUsage)
	}
	if duration <= 0 {
		return fail(e, "quickstart", usagef("--duration: want a duration above 0, e.g. 3s"), ExitUsage)
	}
	srv, err := lab.New(lab.Config{Latency: latency})
	if err != nil {
		return fail(e, "quickstart", fmt.Errorf("starting the built-in service: %w", err), ExitCannotStart)
	}
	defer srv.Close()
	service := "answers at once"
	if latency > 0 {
		service = "service time " + latency.String()
	}
	fmt.Fprintf(e.stderr, "rpcbench quickstart: built-in lab service on %s (%s); %s/s for %s in the open model\n\n",
		srv.URL(), service, trimRate(rate.v), duration)
	p := plan.Plan{
		Endpoints: []plan.Endpoint{{URL: srv.URL() + "/quickstart"}},
		Load:      plan.Load{Model: plan.Open, Rate: rate.v, Duration: duration, Connections: 200},
	}
	if err := p.Validate(); err != nil {
		return fail(e, "quickstart", usageError{err.Error()}, ExitUsage)
	}
	prep, err := prepare(e, p)
	if err != nil {
		return fail(e, "quickstart", err, ExitUsage)
	}
	code = execute(ctx, e, prep, outputs{cmdName: "quickstart", format: format, quiet: quiet})
	if code == ExitOK && format == "text" {
		fmt.Fprint(e.stderr, quickstartNext)
	}
	return code
}

// quickstartNext is the next step printed after a quickstart: its own service has stopped by then, so
// it starts one to load first. The two commands work as printed, in one shell.
const quickstartNext = `
Next, start a service that stays up and load it yourself (rpcbench help run):
  rpcbench serve lab --addr 127.0.0.1:8080 --latency 1ms &
  rpcbench run --rate 1000 --duration 30s http://127.0.0.1:8080/
`

func trimRate(v float64) string { return fmt.Sprint(v) }
