package engine

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/serve/lab"
)

// The event loop sends what it serves and nothing else: HTTP/1.1 over plain TCP to one host, with
// keep-alive, in the open model or the closed model without stages; every other plan keeps its
// goroutine per connection.
func TestLoopSenderServesWhatItCan(t *testing.T) {
	one := []plan.Endpoint{{URL: "http://127.0.0.1:8080/a"}, {URL: "http://127.0.0.1:8080/b"}}
	open := plan.Load{Model: plan.Open, Rate: 10, Duration: time.Second, Connections: 4}
	closed := plan.Load{Model: plan.Closed, Duration: time.Second, Connections: 4}
	stages, err := plan.ParseStages("1s:4")
	if err != nil {
		t.Fatal(err)
	}
	staged := closed
	staged.Stages, staged.Duration = stages, 0
	for _, tc := range []struct {
		name string
		p    plan.Plan
		want bool
	}{
		{"open, one host", plan.Plan{Endpoints: one, Load: open}, true},
		{"closed, one host", plan.Plan{Endpoints: one, Load: closed}, true},
		{"closed with stages", plan.Plan{Endpoints: one, Load: staged}, false},
		{"two hosts", plan.Plan{Endpoints: []plan.Endpoint{{URL: "http://127.0.0.1:8080/"}, {URL: "http://127.0.0.1:8081/"}}, Load: open}, false},
		{"https", plan.Plan{Endpoints: []plan.Endpoint{{URL: "https://127.0.0.1:8443/"}}, Load: open}, false},
		{"h2c", plan.Plan{Endpoints: one, Load: open, Protocol: "h2c"}, false},
		{"no keep-alive", plan.Plan{Endpoints: one, Load: open, HTTP: plan.HTTP{DisableKeepAlive: true}}, false},
		{"--sender goroutines", plan.Plan{Endpoints: one, Load: open, HTTP: plan.HTTP{Sender: plan.SenderGoroutines}}, false},
	} {
		prep, err := plan.Prepare(tc.p, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		s := newLoopSender(prep.Plan, prep.Origins, false)
		if got := s != nil; got != tc.want {
			t.Errorf("%s: an event loop: %v; want %v", tc.name, got, tc.want)
		}
		if s != nil {
			s.close()
		}
	}
}

// A target file whose requests go to two hosts keeps the goroutines, though its endpoints (one per
// method once it has more than 16 paths) name one host only: every request is sent and answered.
func TestLoopSenderLeavesSeveralHostsToGoroutines(t *testing.T) {
	a, b := startLab(t, lab.Config{}), startLab(t, lab.Config{})
	var file strings.Builder
	for i := range 20 {
		fmt.Fprintf(&file, "GET %s/p%d\n\nGET %s/q%d\n\n", a.URL(), i, b.URL(), i)
	}
	fsys := fstest.MapFS{"targets.txt": {Data: []byte(file.String())}}
	p := plan.Plan{Traffic: plan.Traffic{Targets: "targets.txt"}, Load: plan.Load{Model: plan.Closed, Requests: 400, Connections: 4}}
	prep, err := plan.Prepare(p, fsys)
	if err != nil {
		t.Fatal(err)
	}
	if len(prep.Plan.Endpoints) != 1 || len(prep.Origins) != 2 {
		t.Fatalf("%d endpoints, origins %v; want one endpoint (GET) and two origins", len(prep.Plan.Endpoints), prep.Origins)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	res, err := RunPrepared(ctx, prep)
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Total.Total(); c.OK != 400 || res.Sender != "" {
		t.Errorf("ok %d of 400 (failures %v), sender %q; want all answered by the goroutines", c.OK, c.Errors, res.Sender)
	}
	if a.Served() != 200 || b.Served() != 200 {
		t.Errorf("the hosts answered %d and %d; want 200 each", a.Served(), b.Served())
	}
}

// A closed model whose every request fails before anything is sent (a header value from the data
// file holds a line break) ends at its planned length and counts the failures, as the goroutines
// do; the event loop once restarted such calls for ever, deaf to the stop.
func TestLoopSenderEndsWhenEveryRequestFailsAtOnce(t *testing.T) {
	srv := startLab(t, lab.Config{})
	fsys := fstest.MapFS{"d.jsonl": {Data: []byte("{\"v\":\"a\\nb\"}\n")}}
	p := plan.Plan{
		Endpoints: []plan.Endpoint{{URL: srv.URL(), Header: []result.RequestHeader{{Name: "X-A", Value: "{{.v}}"}}}},
		Traffic:   plan.Traffic{Data: "d.jsonl"},
		Load:      plan.Load{Model: plan.Closed, Duration: 300 * time.Millisecond, Connections: 2},
	}
	prep, err := plan.Prepare(p, fsys)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *Result, 1)
	go func() {
		res, err := RunPrepared(t.Context(), prep)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	select {
	case res := <-done:
		if res == nil {
			return
		}
		c := res.Total.Total()
		if c.OK != 0 || c.Failed() == 0 || res.Sender != SenderLoop {
			t.Errorf("ok %d, failed %d, sender %q; want every request failed, by the event loop", c.OK, c.Failed(), res.Sender)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("a 300ms run did not end within 15s")
	}
}

// With a send slack the event loop reads answers in batches and reports no first byte (the kernel
// keeps the last of merged packets' stamps); without one every answer has its first byte.
func TestLoopSenderFirstByteOnlyWhenAnswersWake(t *testing.T) {
	srv := startLab(t, lab.Config{})
	for _, slack := range []time.Duration{0, time.Millisecond} {
		p := plan.Plan{Endpoints: []plan.Endpoint{{URL: srv.URL()}}, Load: plan.Load{Model: plan.Open, Rate: 2000, Requests: 400, Connections: 20, SendSlack: slack}}
		res := runPlan(t, p)
		c := res.Total.Endpoints[0]
		if c.OK != 400 || res.Sender != SenderLoop {
			t.Fatalf("slack %v: ok %d of 400 (failures %v), sender %q", slack, c.OK, c.Errors, res.Sender)
		}
		want := uint64(400)
		if slack > 0 {
			want = 0
		}
		if got := uint64(c.TTFB.TotalCount()); got != want {
			t.Errorf("slack %v: %d answers with a first byte; want %d", slack, got, want)
		}
	}
}

// Run with the event loop and with a goroutine per connection, the same plan sends the same
// requests: the server counts what each sent, the result what each measured.
func TestLoopSenderMatchesGoroutines(t *testing.T) {
	srv := startLab(t, lab.Config{})
	for _, tc := range []struct {
		name string
		load plan.Load
		want uint64
	}{
		{"closed, a count", plan.Load{Model: plan.Closed, Requests: 3000, Connections: 8}, 3000},
		{"open, 400/s for 1s after a 0.5s warm-up", plan.Load{Model: plan.Open, Rate: 400, Duration: time.Second, Warmup: 500 * time.Millisecond, Connections: 50}, 400},
	} {
		for _, sender := range []string{plan.SenderAuto, plan.SenderGoroutines} {
			before := srv.Served()
			p := plan.Plan{Endpoints: []plan.Endpoint{{URL: srv.URL()}}, Load: tc.load, HTTP: plan.HTTP{Sender: sender}}
			res := runPlan(t, p)
			served := srv.Served() - before
			c := res.Total.Endpoints[0]
			if want := map[string]string{plan.SenderAuto: SenderLoop}[sender]; res.Sender != want {
				t.Errorf("%s, %s: the result names the sender %q; want %q", tc.name, sender, res.Sender, want)
			}
			if c.OK != tc.want || res.Intended != tc.want {
				t.Errorf("%s, %s: ok %d of intended %d (failures %v); want %d", tc.name, sender, c.OK, res.Intended, c.Errors, tc.want)
			}
			if want := tc.want + res.WarmupSent; uint64(served) != want {
				t.Errorf("%s, %s: the server answered %d; want %d (%d measured, %d in the warm-up)", tc.name, sender, served, want, tc.want, res.WarmupSent)
			}
			if res.Total.Conns.Opened > uint64(tc.load.Connections) {
				t.Errorf("%s, %s: opened %d connections; want at most %d", tc.name, sender, res.Total.Conns.Opened, tc.load.Connections)
			}
		}
	}
}

// fastServer answers every request it reads with the same 38 bytes, allocating nothing per
// request, so that a count of the process's allocations is the generator's.
func fastServer(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	answer := []byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				buf := make([]byte, 4096)
				out := make([]byte, 0, 64*len(answer))
				pending := 0
				for {
					n, err := c.Read(buf[pending:])
					if err != nil {
						return
					}
					b := buf[:pending+n]
					out = out[:0]
					for {
						i := bytes.Index(b, []byte("\r\n\r\n"))
						if i < 0 {
							break
						}
						out = append(out, answer...)
						b = b[i+4:]
					}
					pending = copy(buf, b)
					if _, err := c.Write(out); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/"
}

// The event loop's per-request path — pacing, filling, writing, reading, parsing, recording —
// allocates nothing in steady state, in both models.
func TestLoopSenderAllocatesNothingPerRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("counts allocations over 30,000 requests")
	}
	url := fastServer(t)
	for _, tc := range []struct {
		name string
		load plan.Load
	}{
		{"closed", plan.Load{Model: plan.Closed, Connections: 4}},
		{"open", plan.Load{Model: plan.Open, Rate: 40000, Connections: 4}}, // few connections: all open in the short run too
	} {
		t.Run(tc.name, func(t *testing.T) {
			allocs := func(n uint64) uint64 {
				l := tc.load
				l.Requests = n
				p := plan.Plan{Endpoints: []plan.Endpoint{{URL: url}}, Load: l}
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				res, err := Run(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				runtime.ReadMemStats(&after)
				if c := res.Total.Endpoints[0]; c.OK != n || res.Sender != SenderLoop {
					t.Fatalf("ok %d of %d (failures %v), sender %q; want all, by the event loop", c.OK, n, c.Errors, res.Sender)
				}
				return after.Mallocs - before.Mallocs
			}
			allocs(1000) // warm up the runtime's own caches
			small, large := allocs(1000), allocs(31000)
			perRequest := (float64(large) - float64(small)) / 30000
			t.Logf("%d allocations for 1,000 requests, %d for 31,000", small, large)
			if perRequest > 0.01 {
				t.Errorf("%.3f allocations per request (%d for 1,000 requests, %d for 31,000); want 0", perRequest, small, large)
			}
		})
	}
}
