package runner_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/runner"
	"github.com/rpcbench/rpcbench/serve/items"
	"github.com/rpcbench/rpcbench/serve/lab"
	"github.com/rpcbench/rpcbench/summary"
)

// recorder is an output that records what the runner told it, and can fail.
type recorder struct {
	name              string
	startErr, stopErr error
	started, ticks    int
	stops             []string // "run" for a stop with a result, "none" for a run that did not happen
}

func (r *recorder) Name() string { return r.name }
func (r *recorder) Start(output.Run) error {
	r.started++
	return r.startErr
}
func (r *recorder) Tick(*engine.Tick) { r.ticks++ }
func (r *recorder) Stop(res *engine.Result, s *summary.Summary) error {
	if res == nil && s == nil {
		r.stops = append(r.stops, "none")
	} else if res != nil && s != nil {
		r.stops = append(r.stops, "run")
	} else {
		r.stops = append(r.stops, "half")
	}
	return r.stopErr
}

func prepared(t *testing.T, p plan.Plan) (*plan.Prepared, *lab.Server) {
	t.Helper()
	return preparedOn(t, lab.Config{}, p)
}

func preparedOn(t *testing.T, cfg lab.Config, p plan.Plan) (*plan.Prepared, *lab.Server) {
	t.Helper()
	srv, err := lab.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	for i := range p.Endpoints {
		p.Endpoints[i].URL = srv.URL() + p.Endpoints[i].URL
	}
	if p.Traffic.Setup != "" {
		p.Traffic.Base = srv.URL()
	}
	prep, err := plan.Prepare(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return prep, srv
}

// An output that cannot start stops the run before anything is sent: the outputs started before it
// are stopped with nothing (the result file it had created is removed), those after are never
// started, and the error names it.
func TestAnOutputThatCannotStartSendsNothing(t *testing.T) {
	t.Parallel()
	prep, srv := prepared(t, plan.Plan{Endpoints: []plan.Endpoint{{URL: "/x"}}, Load: plan.Load{Rate: 100, Requests: 10}})
	file := filepath.Join(t.TempDir(), "run.rb")
	first, bad, last := &recorder{name: "first"}, &recorder{name: "--live", startErr: errors.New("disk full")}, &recorder{name: "last"}
	_, err := runner.Run(context.Background(), prep, runner.Options{Outputs: output.Set{output.NewResultFile("--out", file), first, bad, last}})
	var oe *runner.OutputError
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), "--live: disk full") {
		t.Fatalf("got %v; want an OutputError naming --live", err)
	}
	if srv.Served() != 0 {
		t.Errorf("the target served %d requests; want none", srv.Served())
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the result file of a run that did not happen is there (%v); want it removed", err)
	}
	if strings.Join(first.stops, ",") != "none" || last.started != 0 || len(last.stops) != 0 {
		t.Errorf("first stopped %v, last started %d times; want first stopped with nothing, last never started", first.stops, last.started)
	}
}

// An output that fails at the end does not keep the others from finishing, nor the figures from
// being returned: each failure is named.
func TestAnOutputThatFailsAtTheEndKeepsTheFigures(t *testing.T) {
	t.Parallel()
	prep, _ := prepared(t, plan.Plan{Endpoints: []plan.Endpoint{{URL: "/x"}}, Load: plan.Load{Rate: 100, Requests: 10}})
	a := &recorder{name: "--html", stopErr: errors.New("no space left on device")}
	b := &recorder{name: "b"}
	run, err := runner.Run(context.Background(), prep, runner.Options{Outputs: output.Set{a, b}})
	if err != nil {
		t.Fatal(err)
	}
	if run.Summary.Requests.OK != 10 {
		t.Errorf("ok %d; want 10", run.Summary.Requests.OK)
	}
	if run.OutputErr == nil || run.OutputErr.Error() != "--html: no space left on device" {
		t.Errorf("output error %v; want the --html one, named", run.OutputErr)
	}
	if strings.Join(b.stops, ",") != "run" || b.ticks == 0 {
		t.Errorf("b stopped %v after %d ticks; want stopped once with the run, after its ticks", b.stops, b.ticks)
	}
}

// A setup phase that fails is a SetupError, and no output starts: no file holds a run that was
// not measured.
func TestASetupThatFailsStartsNoOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	setup := filepath.Join(dir, "setup.http")
	if err := os.WriteFile(setup, []byte("GET /put\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prep, _ := preparedOn(t, lab.Config{ErrorRate: 1}, plan.Plan{Endpoints: []plan.Endpoint{{URL: "/x"}}, Load: plan.Load{Rate: 100, Requests: 10},
		Traffic: plan.Traffic{Setup: setup, SetupCount: 3}})
	r := &recorder{name: "r"}
	_, err := runner.Run(context.Background(), prep, runner.Options{Outputs: output.Set{r}})
	var se *runner.SetupError
	if !errors.As(err, &se) {
		t.Fatalf("got %v; want a SetupError", err)
	}
	if r.started != 0 {
		t.Errorf("the output started %d times; want never", r.started)
	}
}

// An interrupted run still stops every output with what was measured.
func TestAnInterruptedRunStopsItsOutputsWithItsFigures(t *testing.T) {
	t.Parallel()
	prep, _ := prepared(t, plan.Plan{Endpoints: []plan.Endpoint{{URL: "/x"}}, Load: plan.Load{Rate: 200, Requests: 100000, Interval: 50e6}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopAt := &recorder{name: "stopper"}
	cutter := &tickFunc{f: func(t *engine.Tick) {
		if t.Interval.Sent() > 0 {
			cancel() // as Ctrl-C does
		}
	}}
	run, err := runner.Run(ctx, prep, runner.Options{Outputs: output.Set{cutter, stopAt}})
	if err != nil {
		t.Fatal(err)
	}
	if !run.Result.Interrupted || run.Summary.Requests.Sent == 0 || run.Summary.Requests.Sent >= 100000 {
		t.Errorf("interrupted %v after %d requests; want interrupted with some sent", run.Result.Interrupted, run.Summary.Requests.Sent)
	}
	if strings.Join(stopAt.stops, ",") != "run" {
		t.Errorf("stopped %v; want once with the run's figures", stopAt.stops)
	}
}

type tickFunc struct{ f func(*engine.Tick) }

func (t *tickFunc) Name() string                                { return "tick" }
func (t *tickFunc) Start(output.Run) error                      { return nil }
func (t *tickFunc) Tick(tk *engine.Tick)                        { t.f(tk) }
func (t *tickFunc) Stop(*engine.Result, *summary.Summary) error { return nil }

// A library run checks a gRPC plan before sending, as the command line does: a method the server
// does not have is a PreflightError that is not about connecting, a server that is not there one
// that is; either way nothing is sent and no output starts.
func TestPreflightOfAGRPCPlan(t *testing.T) {
	t.Parallel()
	srv, err := items.New(items.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	for _, c := range []struct {
		name, url string
		connect   bool
	}{
		{"unknown method", "grpc://" + srv.GRPCAddr() + "/rpz.ItemService/NoSuchMethod", false},
		{"no server", "grpc://127.0.0.1:1/rpz.ItemService/GetItem", true},
	} {
		prep, err := plan.Prepare(plan.Plan{Endpoints: []plan.Endpoint{{URL: c.url, Body: []byte(`{"id":"1"}`)}},
			Load: plan.Load{Rate: 10, Requests: 5}, HTTP: plan.HTTP{ConnectTimeout: 2e9}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		r := &recorder{name: "r"}
		_, err = runner.Run(context.Background(), prep, runner.Options{Outputs: output.Set{r}})
		var pe *runner.PreflightError
		if !errors.As(err, &pe) || pe.Connect != c.connect {
			t.Errorf("%s: got %v (%#v); want a PreflightError, connect %v", c.name, err, pe, c.connect)
		}
		if r.started != 0 {
			t.Errorf("%s: an output started; want none", c.name)
		}
	}
}
