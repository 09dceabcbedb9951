package faults_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/rpcbench/rpcbench/check"
	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/internal/faults"
	"github.com/rpcbench/rpcbench/internal/testnet"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/serve/lab"
	"github.com/rpcbench/rpcbench/transport/httpx"
)

// The cases run in parallel, so goroutines are checked once all are done: every fault server and
// every run must have ended theirs (Close waits for a server's, Run for its own).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// slack is what a run may take beyond its planned length and its time limit per request: the
// last interval's flush, closing the transport, and the scheduling of a busy machine (tests run
// with -race beside other builds).
const slack = 2*time.Second + raceSlack

// limit is the time limit of one request in most cases: long enough that a loaded machine still
// finishes a refusal, a reset or a TLS alert within it.
const limit = time.Second

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
// limit per request and slack; intended is what the plan's schedule says (want, counted by hand)
// and intended = ok + failed + never sent; every failure is of a class in allowed.
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
	if res.Intended != want {
		t.Errorf("intended %d; want %d", res.Intended, want)
	}
	// Every request sent ended as ok or failed; a request that failed before it could be
	// written (refused, no such host) may be failed without being sent. Whatever is left of the
	// intended was never sent.
	ended := tot.OK + tot.Failed()
	if tot.Sent > ended {
		t.Errorf("sent %d; ok %d + failed %d = %d: %d requests sent were never accounted for", tot.Sent, tot.OK, tot.Failed(), ended, tot.Sent-ended)
	}
	if ended > res.Intended {
		t.Errorf("ok %d + failed %d = %d; want at most the %d intended", tot.OK, tot.Failed(), ended, res.Intended)
	}
	neverSent := res.Intended - min(ended, res.Intended)
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
	o := run(t, faultPlan("http://"+testnet.RefusedAddr(t)+"/", 50, time.Second, limit), 50, result.Refused)
	every(t, o, result.Refused)
}

func TestFaultResetMidAnswer(t *testing.T) {
	t.Parallel()
	s := faults.ResetMidAnswer(t)
	o := run(t, faultPlan(s.URL()+"/", 50, time.Second, limit), 50, result.Reset)
	every(t, o, result.Reset)
	s.Close()
}

// A server that closes kept-alive connections at random, without warning: a request either gets
// its answer or fails as a reset, and most get their answer.
func TestFaultCloseKeptAliveAtRandom(t *testing.T) {
	t.Parallel()
	s := faults.CloseAtRandom(t, 0.3, 7)
	o := run(t, faultPlan(s.URL()+"/", 100, time.Second, limit), 100, result.Reset)
	if tot := o.res.Total.Total(); tot.OK < 50 {
		t.Errorf("ok %d of 100; want most (the server answers every request it reads)", tot.OK)
	}
	s.Close()
}

func TestFaultNotHTTP(t *testing.T) {
	t.Parallel()
	s := faults.Garbage(t, faults.NotHTTP)
	o := run(t, faultPlan(s.URL()+"/", 50, time.Second, limit), 50, result.Protocol)
	every(t, o, result.Protocol)
	s.Close()
}

// JSON-RPC calls answered 200 with a body that is not JSON: protocol failures, not successes.
func TestFaultNotJSON(t *testing.T) {
	t.Parallel()
	s := faults.Garbage(t, faults.NotJSON)
	p := faultPlan(s.URL()+"/", 50, time.Second, limit)
	p.Endpoints[0].Method = "POST"
	p.Endpoints[0].Body = []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	res, err := engine.Run(ctx, p, engine.WithVerifier(&check.Verifier{JSONRPC: true}))
	if err != nil {
		t.Fatal(err)
	}
	o := outcome{res, time.Since(start)}
	checkRun(t, p, o, 50, result.Protocol)
	every(t, o, result.Protocol)
	s.Close()
}

// One byte every 100 ms: the answer takes far longer than the time limit, so every request
// times out, at its limit.
func TestFaultTrickle(t *testing.T) {
	t.Parallel()
	s := faults.Trickle(t, 100*time.Millisecond)
	o := run(t, faultPlan(s.URL()+"/", 20, time.Second, limit), 20, result.Timeout)
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
	p := faultPlan(healthy.URL()+"/", 40, time.Second, limit)
	p.Endpoints[0].Name = "healthy"
	p.Endpoints = append(p.Endpoints, plan.Endpoint{Name: "trickle", URL: s.URL() + "/"})
	o := run(t, p, 40, result.Timeout)
	h := o.res.Total.Endpoints[0]
	if h.OK != h.Sent || h.Sent == 0 {
		t.Errorf("healthy endpoint: ok %d of %d sent; want all", h.OK, h.Sent)
	}
	// At least its 10 ms of service time; at most half the 1 s time limit, which every
	// trickling request takes: a busy machine (-race beside other builds) adds tens of ms, a
	// healthy request held behind a trickling one would add hundreds.
	const lo, hi = 10 * time.Millisecond, limit / 2
	if p50 := time.Duration(h.Latency.ValueAtQuantile(50)) * time.Microsecond; p50 < lo || p50 > hi {
		t.Errorf("healthy endpoint: median latency %v; want from %v to %v", p50, lo, hi)
	}
	if tr := o.res.Total.Endpoints[1]; tr.Errors[result.Timeout] != tr.Sent || tr.Sent == 0 {
		t.Errorf("trickling endpoint: %d timeouts of %d sent; want all", tr.Errors[result.Timeout], tr.Sent)
	}
	s.Close()
	healthy.Close()
}

// An answer whose body never ends (64 GiB, or chunks without end), sent as fast as it is read:
// every request times out at its limit, and the memory of the run stays bounded (bodies are read
// and dropped). Not parallel: it keeps both ends busy, and the heap is measured alone.
func TestFaultEndlessBody(t *testing.T) {
	// The run's own buffers (histograms of its intervals and workers) take about 25 MiB whatever
	// the answers; a body kept would add what was read.
	const allowed = 40 << 20
	for _, chunked := range []bool{false, true} {
		s := faults.EndlessBody(t, chunked)
		var o outcome
		var base, peak uint64
		// How much a time limit reads depends on the machine (several hundred MiB a second
		// alone, eight times less under -race beside the whole suite): a run that read too
		// little to prove anything is run again with twice the limit, three times at most.
		for limit := time.Second; ; limit *= 2 {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			base, peak = ms.HeapInuse, ms.HeapInuse
			stop := sampleHeap(&peak)
			o = run(t, faultPlan(s.URL()+"/", 10, time.Second, limit), 10, result.Timeout)
			stop()
			every(t, o, result.Timeout)
			if in := o.res.Total.Total().BytesIn; in >= 2*allowed || limit >= 4*time.Second {
				break
			} else {
				t.Logf("chunked %v: read %d MiB within a %v limit; again with %v", chunked, in>>20, limit, 2*limit)
			}
		}
		tot := o.res.Total.Total()
		if tot.BytesIn < 2*allowed {
			t.Errorf("chunked %v: read %d MiB; want over %d MiB, well above the growth allowed, or the test proves nothing", chunked, tot.BytesIn>>20, 2*allowed>>20)
		}
		if grew := peak - base; grew > allowed {
			t.Errorf("chunked %v: heap in use grew by %d MiB while reading %d MiB; want at most %d MiB", chunked, grew>>20, tot.BytesIn>>20, allowed>>20)
		}
		t.Logf("chunked %v: read %d MiB, heap grew by %d MiB", chunked, tot.BytesIn>>20, (peak-base)>>20)
		s.Close()
	}
}

// sampleHeap records the peak of the heap in use every 10 ms into *peak until stop is called.
func sampleHeap(peak *uint64) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tk := time.NewTicker(10 * time.Millisecond)
		defer tk.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			*peak = max(*peak, ms.HeapInuse)
			select {
			case <-done:
				return
			case <-tk.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}

func TestFaultTLSHandshake(t *testing.T) {
	t.Parallel()
	s := faults.TLSAlert(t)
	o := run(t, faultPlan("https://"+s.Addr+"/", 50, time.Second, limit), 50, result.TLS)
	every(t, o, result.TLS)
	s.Close()
}

// A name under .invalid (RFC 6761) never resolves. It is looked up on a name server of the test's
// own, on 127.0.0.1, which answers every question "no such name": no question leaves the machine,
// whatever /etc/resolv.conf names.
func TestFaultNameDoesNotResolve(t *testing.T) {
	t.Parallel()
	dns := faults.NewNXDomain(t)
	p := faultPlan("http://nowhere.invalid:8080/", 20, time.Second, limit)
	tr, err := httpx.New(httpx.Options{Timeout: limit, ConnectTimeout: limit, Resolver: dns.Resolver})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	res, err := engine.Run(ctx, p, engine.WithTransport(tr))
	if err != nil {
		t.Fatal(err)
	}
	o := outcome{res, time.Since(start)}
	checkRun(t, p, o, 20, result.DNS)
	every(t, o, result.DNS)
	// every failure comes from this server's answers, not from another's or from a time limit
	if dns.Questions() == 0 {
		t.Errorf("the name server answered no question; want the lookups sent to it")
	}
	if msgs := fmt.Sprint(res.Total.Total().Messages); !strings.Contains(msgs, "no such host") {
		t.Errorf("messages %s; want \"no such host\"", msgs)
	}
	dns.Close()
}

// A server that goes away mid-run and comes back on the same port: requests before and after
// succeed, the ones between are refused (or reset when cut on a connection being dropped). It
// goes away 400 ms into the run and comes back 400 ms later, on timers of its own (the run's
// ticks may come late on a loaded machine).
func TestFaultAwayAndBack(t *testing.T) {
	t.Parallel()
	f := faults.NewFlapping(t, testnet.ReservedAddr(t))
	p := faultPlan(f.URL()+"/", 50, 1500*time.Millisecond, limit)
	var servedAway atomic.Uint64 // answers written before it went away
	cameBack := make(chan struct{})
	down := time.AfterFunc(400*time.Millisecond, func() {
		f.Down()
		servedAway.Store(f.Served())
		time.AfterFunc(400*time.Millisecond, func() { f.Up(t); close(cameBack) })
	})
	defer down.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	res, err := engine.Run(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	o := outcome{res, time.Since(start)}
	select {
	case <-cameBack:
	case <-ctx.Done():
		t.Fatal("the server never came back")
	}
	checkRun(t, p, o, 75, result.Refused, result.Reset)
	tot := res.Total.Total()
	if tot.Errors[result.Refused] == 0 {
		t.Errorf("no request refused while the server was away; want some (messages %v)", tot.Messages)
	}
	// every ok before it went away is among the answers it wrote by then: more ok than those
	// means answers after it came back
	if away := servedAway.Load(); tot.OK <= away {
		t.Errorf("ok %d; want more than the %d answered before the server went away (some after it came back)", tot.OK, away)
	}
	f.Close()
}

// wsPlan is faultPlan for a JSON-RPC call over WebSocket.
func wsPlan(url string, rate float64, d, timeout time.Duration) plan.Plan {
	p := faultPlan(url, rate, d, timeout)
	p.Endpoints[0].Body = []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`)
	return p
}

// The faults that break a WebSocket connection's set-up, where the same servers break HTTP.
func TestFaultWebSocket(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		url   func(t *testing.T) string
		class result.Class
	}{
		{"refused", func(t *testing.T) string { return "ws://" + testnet.RefusedAddr(t) + "/" }, result.Refused},
		{"reset mid-answer", func(t *testing.T) string { return "ws://" + faults.WSResetAfterUpgrade(t).Addr + "/" }, result.Reset},
		{"upgrade cut by a reset", func(t *testing.T) string { return "ws://" + faults.ResetMidAnswer(t).Addr + "/" }, result.Status},
		{"no answer to calls", func(t *testing.T) string { return "ws://" + faults.WSSilent(t).Addr + "/" }, result.Timeout},
		{"not HTTP", func(t *testing.T) string { return "ws://" + faults.Garbage(t, faults.NotHTTP).Addr + "/" }, result.Protocol},
		{"TLS alert", func(t *testing.T) string { return "wss://" + faults.TLSAlert(t).Addr + "/" }, result.TLS},
		{"trickle", func(t *testing.T) string { return "ws://" + faults.Trickle(t, 100*time.Millisecond).Addr + "/" }, result.Timeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			timeout := limit
			if tt.class != result.Timeout {
				timeout = 5 * limit // a handshake on a busy machine may take a second; only the timeouts need the short limit
			}
			o := run(t, wsPlan(tt.url(t), 20, time.Second, timeout), 20, tt.class)
			every(t, o, tt.class)
		})
	}
}

// WebSocket calls that get no answer end at the time limit: their service time (sent to done)
// does not run past it.
func TestFaultWebSocketServiceWithinTimeout(t *testing.T) {
	t.Parallel()
	s := faults.WSSilent(t)
	const timeout = 500 * time.Millisecond
	o := run(t, wsPlan("ws://"+s.Addr+"/", 20, time.Second, timeout), 20, result.Timeout)
	tot := o.res.Total.Total()
	// a timer firing late on a busy machine: 300 ms
	if got := time.Duration(tot.Service.Max()) * time.Microsecond; got > timeout+300*time.Millisecond {
		t.Errorf("longest service time %v; want at most the %v time limit (+300 ms)", got, timeout)
	}
	s.Close()
}

// h2cPlan is faultPlan over HTTP/2 with prior knowledge.
func h2cPlan(url string, rate float64, d, timeout time.Duration) plan.Plan {
	p := faultPlan(url, rate, d, timeout)
	p.Protocol = "h2c"
	return p
}

// An HTTP/2 server that takes 20 requests per connection and then goes away gracefully (GOAWAY
// naming the 20th as its last stream), with 8 workers each holding a request at a time: the
// requests above the last stream were not processed, so they are sent again on a new connection
// and succeed there (each is among the first 8 of the 20 the next connection takes); no request
// fails, and the retries are counted: at least the requests the server saw above its GOAWAY's
// last stream, no more than one per such request sent (a HEADERS frame written just before the
// client closed the retired connection may never reach the server).
func TestFaultH2GoAwayAtRequestCap(t *testing.T) {
	t.Parallel()
	s := faults.H2MaxRequests(t, 20, 10*time.Millisecond)
	p := h2cPlan(s.URL()+"/", 0, time.Second, 5*limit)
	p.Load = plan.Load{Duration: time.Second, Connections: 8, Interval: 100 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	res, err := engine.Run(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if bound := p.Load.Duration + p.HTTP.Timeout + slack; time.Since(start) > bound {
		t.Errorf("run took %v; want at most %v", time.Since(start), bound)
	}
	s.Close()
	tot := res.Total.Total()
	if tot.Failed() != 0 || tot.OK == 0 || tot.OK != tot.Sent {
		t.Errorf("sent %d, ok %d, failed %d %v; want every request sent answered", tot.Sent, tot.OK, tot.Failed(), tot.Messages)
	}
	if tot.OK != s.Answered() {
		t.Errorf("ok %d; want the %d answers the server wrote, each request processed once", tot.OK, s.Answered())
	}
	if above := s.Above(); above == 0 || tot.RetriedGoAway < above {
		t.Errorf("%d retried after GOAWAY; want at least the %d requests the server saw above the last stream (and some)", tot.RetriedGoAway, above)
	}
	// each retry that opened a connection is counted, as the server saw them
	if opened := res.Total.Conns.Opened; opened != s.Conns() {
		t.Errorf("%d connections opened; want the %d the server saw", opened, s.Conns())
	}
	t.Logf("ok %d, retried after GOAWAY %d, seen above the last stream %d, connections %d", tot.OK, tot.RetriedGoAway, s.Above(), res.Total.Conns.Opened)
}

// An HTTP/2 server whose SETTINGS allow no stream: every request waits for one until its time
// limit and fails as a timeout that names the cause, counted as failed before sending (no
// service time); none reaches the server.
func TestFaultH2NoStreams(t *testing.T) {
	t.Parallel()
	s := faults.H2NoStreams(t)
	o := run(t, h2cPlan(s.URL()+"/", 20, time.Second, 500*time.Millisecond), 20, result.Timeout)
	every(t, o, result.Timeout)
	tot := o.res.Total.Total()
	if tot.Unsent != 20 || tot.Sent != 0 || tot.Service.TotalCount() != 0 {
		t.Errorf("unsent %d, sent %d, %d service times; want 20 failed before sending, none sent, no service time", tot.Unsent, tot.Sent, tot.Service.TotalCount())
	}
	for k := range tot.Messages {
		if !strings.Contains(k.Message, "MAX_CONCURRENT_STREAMS") {
			t.Errorf("message %q; want one naming MAX_CONCURRENT_STREAMS", k.Message)
		}
	}
	s.Close()
	if n := s.Requests(); n != 0 {
		t.Errorf("the server saw %d requests; want none", n)
	}
}
