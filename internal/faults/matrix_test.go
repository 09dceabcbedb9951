package faults_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/internal/faults"
	"github.com/rpcbench/rpcbench/internal/testnet"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/serve/lab"
)

// The cases run in parallel, so goroutines are checked once all are done: every fault server and
// every run must have ended theirs (Close waits for a server's, Run for its own).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// slack is what a run may take beyond its planned length and its time limit per request: the
// last interval's flush and the scheduling of a busy machine.
const slack = time.Second

// faultPlan is an open-model run of rate per second for d against url, requests limited to
// timeout (connecting included). It is due rate·d arrivals.
func faultPlan(url string, rate float64, d, timeout time.Duration) plan.Plan {
	return plan.Plan{
		Endpoints: []plan.Endpoint{{URL: url}},
		Load:      plan.Load{Rate: rate, Duration: d, Connections: 100, Interval: 100 * time.Millisecond},
		HTTP:      plan.HTTP{Timeout: timeout, ConnectTimeout: timeout},
	}
}

// outcome is what a matrix case checks of a run.
type outcome struct {
	res  *engine.Result
	wall time.Duration
}

// run runs p and checks what every case must hold: it ends within its planned length, the time
// limit per request and slack; intended = ok + failed + never sent, with intended as the plan's
// schedule says (want, counted by hand); and every failure is of a class in allowed.
func run(t *testing.T, p plan.Plan, want uint64, allowed ...result.Class) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	res, err := engine.Run(ctx, p)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	o := outcome{res, time.Since(start)}
	checkRun(t, p, o, want, allowed...)
	return o
}

// checkRun checks what every case must hold (see run).
func checkRun(t *testing.T, p plan.Plan, o outcome, want uint64, allowed ...result.Class) {
	t.Helper()
	res, wall := o.res, o.wall
	if bound := p.Load.Duration + p.HTTP.Timeout + slack; wall > bound {
		t.Errorf("run took %v; want at most %v (duration %v + timeout %v + %v)", wall, bound, p.Load.Duration, p.HTTP.Timeout, slack)
	}
	if res.Interrupted {
		t.Errorf("run was interrupted by the test's own 30 s limit")
	}
	tot := res.Total.Total()
	neverSent := res.Intended - min(res.Intended, tot.Sent)
	if res.Intended != want {
		t.Errorf("intended %d; want %d", res.Intended, want)
	}
	if tot.Sent > res.Intended {
		t.Errorf("sent %d; want at most the %d intended", tot.Sent, res.Intended)
	}
	if got := tot.OK + tot.Failed() + neverSent; got != res.Intended {
		t.Errorf("ok %d + failed %d + never sent %d = %d; want intended %d", tot.OK, tot.Failed(), neverSent, got, res.Intended)
	}
	ok := map[result.Class]bool{}
	for _, c := range allowed {
		ok[c] = true
	}
	for c, n := range tot.Errors {
		if n > 0 && !ok[result.Class(c)] {
			t.Errorf("%d failures of class %v; want only classes %v (messages %v)", n, result.Class(c), allowed, tot.Messages)
		}
	}
	t.Logf("wall %v: intended %d, ok %d, failed %d %v, never sent %d", wall.Round(time.Millisecond), res.Intended, tot.OK, tot.Failed(), tot.Messages, neverSent)
}

// every checks that all of the intended requests failed with class c.
func every(t *testing.T, o outcome, c result.Class) {
	t.Helper()
	tot := o.res.Total.Total()
	if tot.Errors[c] != o.res.Intended {
		t.Errorf("%d of %d requests failed as %v; want all", tot.Errors[c], o.res.Intended, c)
	}
}

func TestFaultRefused(t *testing.T) {
	t.Parallel()
	o := run(t, faultPlan("http://"+testnet.RefusedAddr(t)+"/", 50, time.Second, 500*time.Millisecond), 50, result.Refused)
	every(t, o, result.Refused)
}

func TestFaultResetMidAnswer(t *testing.T) {
	t.Parallel()
	s := faults.ResetMidAnswer(t)
	o := run(t, faultPlan(s.URL()+"/", 50, time.Second, 500*time.Millisecond), 50, result.Reset)
	every(t, o, result.Reset)
	s.Close()
}

// A server that closes kept-alive connections at random, without warning: a request either gets
// its answer or fails as a reset, and most get their answer.
func TestFaultCloseKeptAliveAtRandom(t *testing.T) {
	t.Parallel()
	s := faults.CloseAtRandom(t, 0.3, 7)
	o := run(t, faultPlan(s.URL()+"/", 100, time.Second, 500*time.Millisecond), 100, result.Reset)
	if tot := o.res.Total.Total(); tot.OK < 50 {
		t.Errorf("ok %d of 100; want most (the server answers every request it reads)", tot.OK)
	}
	s.Close()
}

func TestFaultNotHTTP(t *testing.T) {
	t.Parallel()
	s := faults.Garbage(t, faults.NotHTTP)
	o := run(t, faultPlan(s.URL()+"/", 50, time.Second, 500*time.Millisecond), 50, result.Protocol)
	every(t, o, result.Protocol)
	s.Close()
}

// One byte every 100 ms: the answer takes far longer than the time limit, so every request
// times out, at its limit.
func TestFaultTrickle(t *testing.T) {
	t.Parallel()
	s := faults.Trickle(t, 100*time.Millisecond)
	o := run(t, faultPlan(s.URL()+"/", 20, time.Second, 500*time.Millisecond), 20, result.Timeout)
	every(t, o, result.Timeout)
	s.Close()
}

// A healthy endpoint beside one that trickles: the healthy one's latency stays its own service
// time (10 ms, by the server's setting), not the trickling one's.
func TestFaultHealthyLatencyBesideTrickle(t *testing.T) {
	t.Parallel()
	healthy, err := lab.New(lab.Config{Latency: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	s := faults.Trickle(t, 100*time.Millisecond)
	p := faultPlan(healthy.URL()+"/", 40, time.Second, 500*time.Millisecond)
	p.Endpoints[0].Name = "healthy"
	p.Endpoints = append(p.Endpoints, plan.Endpoint{Name: "trickle", URL: s.URL() + "/"})
	o := run(t, p, 40, result.Timeout)
	h := o.res.Total.Endpoints[0]
	if h.OK != h.Sent || h.Sent == 0 {
		t.Errorf("healthy endpoint: ok %d of %d sent; want all", h.OK, h.Sent)
	}
	// 10 ms of service time, plus a loopback round trip and a late wake-up on a busy machine
	const lo, hi = 10 * time.Millisecond, 60 * time.Millisecond
	if p50 := time.Duration(h.Latency.ValueAtQuantile(50)) * time.Microsecond; p50 < lo || p50 > hi {
		t.Errorf("healthy endpoint: median latency %v; want from %v to %v", p50, lo, hi)
	}
	if tr := o.res.Total.Endpoints[1]; tr.Errors[result.Timeout] != tr.Sent || tr.Sent == 0 {
		t.Errorf("trickling endpoint: %d timeouts of %d sent; want all", tr.Errors[result.Timeout], tr.Sent)
	}
	s.Close()
	healthy.Close()
}

func TestFaultEndlessBody(t *testing.T) {
	t.Parallel()
	for _, chunked := range []bool{false, true} {
		s := faults.EndlessBody(t, chunked)
		o := run(t, faultPlan(s.URL()+"/", 5, time.Second, 500*time.Millisecond), 5, result.Timeout)
		every(t, o, result.Timeout)
		s.Close()
	}
}

func TestFaultTLSHandshake(t *testing.T) {
	t.Parallel()
	s := faults.TLSAlert(t)
	o := run(t, faultPlan("https://"+s.Addr+"/", 50, time.Second, 500*time.Millisecond), 50, result.TLS)
	every(t, o, result.TLS)
	s.Close()
}

// A name under .invalid (RFC 6761) never resolves. Only with a resolver on this machine: with
// another, the question would leave the machine.
func TestFaultNameDoesNotResolve(t *testing.T) {
	t.Parallel()
	if !loopbackResolver(t) {
		t.Skip("the resolver is not on loopback (/etc/resolv.conf): a lookup would leave the machine")
	}
	o := run(t, faultPlan("http://nowhere.invalid:8080/", 20, time.Second, 500*time.Millisecond), 20, result.DNS)
	every(t, o, result.DNS)
}

// loopbackResolver reports whether every name server of /etc/resolv.conf is on loopback.
func loopbackResolver(t *testing.T) bool {
	b, err := os.ReadFile("/etc/resolv.conf")
	if err != nil {
		t.Logf("resolv.conf: %v", err)
		return false
	}
	any := false
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "nameserver" {
			if !strings.HasPrefix(f[1], "127.") && f[1] != "::1" {
				return false
			}
			any = true
		}
	}
	return any
}

// A server that goes away mid-run and comes back on the same port: requests before and after
// succeed, the ones between are refused (or reset when cut on a connection being dropped).
func TestFaultAwayAndBack(t *testing.T) {
	t.Parallel()
	f := faults.NewFlapping(t, testnet.ReservedAddr(t))
	p := faultPlan(f.URL()+"/", 50, 1500*time.Millisecond, 500*time.Millisecond)
	var down, up bool
	var okAfter uint64
	observe := func(tk *engine.Tick) { // one goroutine, in order
		switch {
		case !down && tk.Elapsed >= 500*time.Millisecond:
			down = true
			f.Down()
		case down && !up && tk.Elapsed >= time.Second:
			up = true
			f.Up(t)
		case up:
			for _, c := range tk.Interval.Endpoints {
				okAfter += c.OK
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	res, err := engine.Run(ctx, p, engine.WithObserver(observe))
	if err != nil {
		t.Fatal(err)
	}
	o := outcome{res, time.Since(start)}
	checkRun(t, p, o, 75, result.Refused, result.Reset)
	tot := res.Total.Total()
	if tot.Errors[result.Refused] == 0 {
		t.Errorf("no request refused while the server was away; want some (messages %v)", tot.Messages)
	}
	if okAfter == 0 {
		t.Errorf("no request succeeded after the server came back; want the ones after it")
	}
	f.Close()
}
