package lab

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func newServer(t testing.TB, cfg Config, opts ...Option) *Server {
	t.Helper()
	s, err := New(cfg, opts...)
	if err != nil {
		t.Fatalf("New(%+v): %v", cfg, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestNewRejectsBadConfig(t *testing.T) {
	t.Parallel()
	if s, err := New(Config{ErrorRate: 2}); err == nil {
		s.Close()
		t.Fatal("New with ErrorRate 2: got no error; want one")
	}
	if s, err := New(Config{Burn: time.Millisecond}); err == nil {
		s.Close()
		t.Fatal("New with a Burn and no BurnFor: got no error; want one")
	}
	if s, err := New(Config{Addr: "127.0.0.1:bad"}); err == nil {
		s.Close()
		t.Fatal(`New with Addr "127.0.0.1:bad": got no error; want one`)
	}
}

func TestBodyBytesExact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		size   int
		method string
		path   string
	}{
		{0, "GET", "/"},
		{1, "POST", "/anything/at/all?q=1"},
		{100, "GET", "/x"},
		{100000, "PUT", "/big"},
	}
	for _, tt := range tests {
		s := newServer(t, Config{BodyBytes: tt.size})
		req, _ := http.NewRequest(tt.method, s.URL()+tt.path, strings.NewReader("some request body"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", tt.method, tt.path, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || len(body) != tt.size || resp.ContentLength != int64(tt.size) {
			t.Errorf("%s %s with BodyBytes %d: got status %d, %d bytes (Content-Length %d), err %v; want 200, %d bytes",
				tt.method, tt.path, tt.size, resp.StatusCode, len(body), resp.ContentLength, err, tt.size)
		}
		if got := s.Served(); got != 1 {
			t.Errorf("Served() = %d; want 1", got)
		}
	}
}

// get sends one POST (not retried by net/http on a broken connection, unlike GET) and returns the
// status, the arrival index from X-Lab-Seq (-1 if none) and the error.
func post(c *http.Client, url string) (status int, seq int64, err error) {
	resp, err := c.Post(url, "text/plain", strings.NewReader("x"))
	if err != nil {
		return 0, -1, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0, -1, err
	}
	seq = -1
	if v := resp.Header.Get("X-Lab-Seq"); v != "" {
		seq, _ = strconv.ParseInt(v, 10, 64)
	}
	return resp.StatusCode, seq, nil
}

// TestErrorAndResetRates sends a fixed number of requests one after another: the n-th arrival's
// outcome is Draw(n), so the counts the client sees must equal the counts of the draws exactly,
// and those must be within statistical bounds of the rates.
func TestErrorAndResetRates(t *testing.T) {
	t.Parallel()
	const n = 600
	cfg := Config{ErrorRate: 0.1, ResetRate: 0.05, Seed: 3, BodyBytes: 10}
	s := newServer(t, cfg)
	c := &http.Client{Timeout: 10 * time.Second}
	var ok, errs, resets int
	for i := 0; i < n; i++ {
		status, seq, err := post(c, s.URL())
		want := s.Draw(uint64(i)).Outcome
		switch {
		case err != nil:
			if !errors.Is(err, syscall.ECONNRESET) {
				t.Fatalf("request %d: %v; want a connection reset", i, err)
			}
			resets++
		case status == 500:
			errs++
		case status == 200:
			ok++
		default:
			t.Fatalf("request %d: status %d; want 200, 500 or a reset", i, status)
		}
		if err == nil && seq != int64(i) {
			t.Fatalf("request %d: X-Lab-Seq %d; want %d", i, seq, i)
		}
		if got := map[bool]Outcome{true: Reset}[err != nil]; err != nil && got != want {
			t.Fatalf("request %d: reset; Draw(%d) says %v", i, i, want)
		}
	}
	var wantErrs, wantResets int
	for i := uint64(0); i < n; i++ {
		switch s.Draw(i).Outcome {
		case Error:
			wantErrs++
		case Reset:
			wantResets++
		}
	}
	if errs != wantErrs || resets != wantResets || ok != n-wantErrs-wantResets {
		t.Errorf("got %d ok, %d errors, %d resets; want %d, %d, %d as drawn",
			ok, errs, resets, n-wantErrs-wantResets, wantErrs, wantResets)
	}
	// Binomial bounds (5 sd) for n=600: errors 60 ± 37, resets 30 ± 27.
	if errs < 23 || errs > 97 || resets < 3 || resets > 57 {
		t.Errorf("got %d errors and %d resets of %d; want about 60 and 30", errs, resets, n)
	}
	if st := s.Stats(); st != (Stats{Served: n, Errors: uint64(errs), Resets: uint64(resets)}) {
		t.Errorf("Stats() = %+v; want {Served:%d Errors:%d Resets:%d}", st, n, errs, resets)
	}
}

// TestLatencyIsAtLeastTheServiceTime checks the fixed and distributed service times: no answer
// comes before its drawn service time has passed (lower bounds only: a busy machine may be late).
func TestLatencyIsAtLeastTheServiceTime(t *testing.T) {
	t.Parallel()
	cfg := Config{Latency: 2 * time.Millisecond, Dist: Dist{Kind: DistUniform, Min: 0, Max: 4 * time.Millisecond}, Seed: 9, SpinWait: time.Millisecond}
	s := newServer(t, cfg)
	c := &http.Client{Timeout: 10 * time.Second}
	for i := 0; i < 30; i++ {
		t0 := time.Now()
		status, seq, err := post(c, s.URL())
		took := time.Since(t0)
		if err != nil || status != 200 || seq < 0 {
			t.Fatalf("request %d: status %d, seq %d, err %v; want 200", i, status, seq, err)
		}
		d := s.Draw(uint64(seq))
		if d.Service < cfg.Latency || d.Service > cfg.Latency+4*time.Millisecond {
			t.Fatalf("Draw(%d).Service = %v; want in [2ms, 6ms]", seq, d.Service)
		}
		if took < d.Service {
			t.Errorf("request %d took %v; want at least its service time %v", i, took, d.Service)
		}
	}
}

// waitFor blocks until the clock reaches t: the behaviour under test is tied to the clock.
func waitFor(t time.Time) {
	if d := time.Until(t); d > 0 {
		<-time.After(d)
	}
}

// TestStallHappensOnSchedule sends requests just before and inside a stall. Finish is
// non-decreasing in the arrival time and the server's arrival comes after the client's send, so
// a response can never come before Finish(send, service): that is the bound checked.
func TestStallHappensOnSchedule(t *testing.T) {
	t.Parallel()
	cfg := Config{Stall: 400 * time.Millisecond, Every: 1200 * time.Millisecond, StallStart: 150 * time.Millisecond, SpinWait: time.Millisecond}
	s := newServer(t, cfg)
	sched := s.Schedule()
	ws := s.StallWindows(s.Started(), s.Started().Add(2*time.Second))
	if len(ws) != 2 {
		t.Fatalf("StallWindows over 2s = %v; want 2 windows", ws)
	}
	if got, want := ws[0].Start.Sub(s.Started()), 150*time.Millisecond; got != want {
		t.Errorf("first stall at +%v; want +%v", got, want)
	}
	if got, want := ws[1].Start.Sub(ws[0].Start), 1200*time.Millisecond; got != want {
		t.Errorf("stalls %v apart; want %v", got, want)
	}
	c := &http.Client{Timeout: 10 * time.Second}
	inStall := 0
	for _, w := range ws {
		for _, off := range []time.Duration{0, 100 * time.Millisecond, 250 * time.Millisecond} {
			waitFor(w.Start.Add(off))
			t0 := time.Now()
			status, _, err := post(c, s.URL())
			done := time.Now()
			if err != nil || status != 200 {
				t.Fatalf("request at stall+%v: status %d, err %v", off, status, err)
			}
			if want := sched.Finish(t0, 0); done.Before(want) {
				t.Errorf("request sent at stall+%v answered at +%v; want not before the stall's end +%v",
					t0.Sub(w.Start), done.Sub(s.Started()), want.Sub(s.Started()))
			}
			if t0.Before(w.End) {
				inStall++
			}
		}
	}
	if inStall == 0 {
		t.Fatal("no request was sent inside a stall; the machine is too slow for this test")
	}
}

// TestStallFreezesWorkInProgress: a request whose service time runs into a stall finishes the
// stall's length later than it would have.
func TestStallFreezesWorkInProgress(t *testing.T) {
	t.Parallel()
	cfg := Config{Latency: 200 * time.Millisecond, Stall: 300 * time.Millisecond, StallStart: 300 * time.Millisecond}
	s := newServer(t, cfg)
	w := s.StallWindows(s.Started(), s.Started().Add(time.Hour))[0]
	waitFor(w.Start.Add(-100 * time.Millisecond))
	t0 := time.Now()
	status, _, err := post(&http.Client{Timeout: 10 * time.Second}, s.URL())
	done := time.Now()
	if err != nil || status != 200 {
		t.Fatalf("status %d, err %v", status, err)
	}
	want := s.Schedule().Finish(t0, cfg.Latency)
	if t0.Before(w.Start) && want.Sub(t0) < 500*time.Millisecond {
		t.Fatalf("Finish(stall-%v, 200ms) = +%v after the send; want 200ms of work + 300ms of stall", w.Start.Sub(t0), want.Sub(t0))
	}
	if done.Before(want) {
		t.Errorf("answered %v after the send; want at least %v (200ms of work frozen by the 300ms stall)", done.Sub(t0), want.Sub(t0))
	}
}

// entered returns a middleware that signals each request's arrival on ch.
func entered(ch chan<- struct{}) Option {
	return WithMiddleware(func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ch <- struct{}{}
			h.ServeHTTP(w, r)
		})
	})
}

func TestCloseCutsWaitsShort(t *testing.T) {
	t.Parallel()
	in := make(chan struct{}, 1)
	s := newServer(t, Config{Latency: time.Hour}, entered(in))
	type res struct {
		status int
		err    error
	}
	out := make(chan res, 1)
	go func() {
		status, _, err := post(&http.Client{Timeout: time.Minute}, s.URL())
		out <- res{status, err}
	}()
	<-in
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	r := <-out
	if r.err != nil || r.status != http.StatusServiceUnavailable {
		t.Errorf("request in flight at Close: status %d, err %v; want 503", r.status, r.err)
	}
	if got := s.Served(); got != 0 {
		t.Errorf("Served() = %d; want 0 (the request was cut short)", got)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestShutdownWaitsForInFlight(t *testing.T) {
	t.Parallel()
	in := make(chan struct{}, 1)
	s := newServer(t, Config{Latency: 100 * time.Millisecond, BodyBytes: 5}, entered(in))
	out := make(chan int, 1)
	go func() {
		status, _, err := post(&http.Client{Timeout: time.Minute}, s.URL())
		if err != nil {
			status = -1
		}
		out <- status
	}()
	<-in
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if got := s.Served(); got != 1 {
		t.Errorf("Served() after Shutdown = %d; want 1", got)
	}
	if got := <-out; got != 200 {
		t.Errorf("request in flight at Shutdown: status %d; want 200", got)
	}
}

func BenchmarkServe(b *testing.B) {
	b.ReportAllocs()
	s := newServer(b, Config{BodyBytes: 100})
	c := &http.Client{}
	for b.Loop() {
		resp, err := c.Get(s.URL())
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// BenchmarkWaitOvershoot measures how late a 2ms wait ends, with and without SpinWait; it reports
// the median and the 99th percentile of the lateness in µs.
func BenchmarkWaitOvershoot(b *testing.B) {
	for _, spin := range []time.Duration{0, time.Millisecond} {
		b.Run("spin="+spin.String(), func(b *testing.B) {
			b.ReportAllocs()
			s := &Server{cfg: Config{SpinWait: spin}}
			var late []time.Duration
			for b.Loop() {
				deadline := time.Now().Add(2 * time.Millisecond)
				s.waitUntil(context.Background(), deadline)
				late = append(late, time.Since(deadline))
			}
			slices.Sort(late)
			b.ReportMetric(float64(late[len(late)/2].Nanoseconds())/1e3, "p50-late-µs")
			b.ReportMetric(float64(late[len(late)*99/100].Nanoseconds())/1e3, "p99-late-µs")
		})
	}
}
