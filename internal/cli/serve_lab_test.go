package cli

import (
	"bufio"
	"context"
	"flag"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/serve/lab"
)

func TestServeLabFlags(t *testing.T) {
	t.Parallel()
	tests := []cliCase{
		{"help", []string{"--help"}, ExitOK, []string{"Examples:", "rpcbench serve lab --latency 2ms", "-latency-dist", "-stall-start"}, nil},
		{"bad dist kind", []string{"--latency-dist", "pareto:1ms"}, ExitUsage, nil, []string{"-latency-dist", `unknown distribution "pareto"`}},
		{"bad dist value", []string{"--latency-dist", "exp:fast"}, ExitUsage, nil, []string{"-latency-dist", `mean "fast" is not a duration`}},
		{"bad uniform", []string{"--latency-dist", "uniform:3ms-1ms"}, ExitUsage, nil, []string{"-latency-dist", "min 3ms is above max 1ms"}},
		{"bad latency", []string{"--latency", "2"}, ExitUsage, nil, []string{"-latency"}},
		{"negative latency", []string{"--latency", "-2ms"}, ExitUsage, nil, []string{"--latency -2ms is negative"}},
		{"error rate above 1", []string{"--error-rate", "1.5"}, ExitUsage, nil, []string{"--error-rate 1.5 is not a fraction"}},
		{"rates add above 1", []string{"--error-rate", "0.6", "--reset-rate", "0.6"}, ExitUsage, nil, []string{"add up to more than 1"}},
		{"stall as long as every", []string{"--stall", "1s", "--every", "1s"}, ExitUsage, nil, []string{"--stall 1s must be shorter than --every 1s"}},
		{"every without stall", []string{"--every", "10s"}, ExitUsage, nil, []string{"need --stall"}},
		{"burn without its window", []string{"--burn", "20ms"}, ExitUsage, nil, []string{"--burn, --burn-for and --burn-start go together"}},
		{"burn window without burn", []string{"--burn-start", "5s", "--burn-for", "1s"}, ExitUsage, nil, []string{"--burn, --burn-for and --burn-start go together"}},
		{"negative burn", []string{"--burn", "-1ms", "--burn-for", "1s"}, ExitUsage, nil, []string{"--burn -1ms is negative"}},
		{"negative body", []string{"--body-bytes", "-1"}, ExitUsage, nil, []string{"--body-bytes -1 is out of range"}},
		{"stray argument", []string{"extra"}, ExitUsage, nil, []string{`unexpected argument "extra"`}},
		{"bad addr", []string{"--addr", "127.0.0.1:notaport"}, ExitUsage, nil, []string{"serve lab", "--addr", "notaport"}},
	}
	runCLICases(t, []string{"serve", "lab"}, tests)
}

// TestLabRateOutOfRangeSaidOnce: a rate that is not a fraction is one error, not also a sum.
func TestLabRateOutOfRangeSaidOnce(t *testing.T) {
	t.Parallel()
	err := checkLabFlags(lab.Config{ErrorRate: 2})
	if err == nil || strings.Count(err.Error(), "\n") != 0 || !strings.Contains(err.Error(), "--error-rate 2 is not a fraction") {
		t.Errorf("checkLabFlags(ErrorRate 2) = %v; want the one line \"--error-rate 2 is not a fraction…\"", err)
	}
}

// lineWriter hands what a serve kind prints to a test, line by line; safe for concurrent use
// through the pipe.
type lineWriter struct {
	w     *io.PipeWriter
	lines chan string
}

func newLineWriter() *lineWriter {
	r, w := io.Pipe()
	lw := &lineWriter{w: w, lines: make(chan string, 64)}
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lw.lines <- sc.Text()
		}
		close(lw.lines)
	}()
	return lw
}

// next returns the next printed line, failing the test after a while without one.
func (lw *lineWriter) next(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-lw.lines:
		if !ok {
			t.Fatal("the service printed nothing more")
		}
		return l
	case <-time.After(10 * time.Second):
		t.Fatal("the service printed nothing within 10s")
	}
	return ""
}

// startServeKind runs kind with args in the background as `rpcbench serve` does, and returns
// its output lines and a stop function that cancels it and returns run's error.
func startServeKind(t *testing.T, kind string, pprof bool, args ...string) (*lineWriter, func() error) {
	t.Helper()
	fs := flag.NewFlagSet(kind, flag.ContinueOnError)
	run := serveKinds[kind].flags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("flags %q: %v", args, err)
	}
	lw := newLineWriter()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, &serveEnv{Addr: "127.0.0.1:0", Out: lw.w, Pprof: pprof})
		lw.w.Close()
	}()
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-errc:
			return err
		case <-time.After(20 * time.Second):
			t.Fatal("the service did not stop within 20s of its context's end")
		}
		return nil
	}
	t.Cleanup(func() { stop() })
	return lw, stop
}

func TestServeLabRuns(t *testing.T) {
	t.Parallel()
	lw, stop := startServeKind(t, "lab", true, "--body-bytes", "7", "--stall", "1h", "--stall-start", "1h")
	line := lw.next(t)
	url, ok := strings.CutPrefix(line, "lab listening on ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q; want \"lab listening on http://127.0.0.1:PORT\"", line)
	}
	if got := lw.next(t); !strings.Contains(got, "/debug/pprof/") {
		t.Errorf("second line %q; want the pprof address", got)
	}
	if got, want := lw.next(t), "one stall of 1h0m0s, 1h0m0s after the start"; got != want {
		t.Errorf("third line %q; want %q", got, want)
	}
	for _, path := range []string{"/", "/debug/pprof/"} {
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || (path == "/" && string(body) != "lab.lab") {
			t.Errorf("GET %s: status %d, body %.40q; want 200 (and \"lab.lab\" for /)", path, resp.StatusCode, body)
		}
	}
	if err := stop(); err != nil {
		t.Errorf("run after cancel: %v; want nil (clean shutdown)", err)
	}
}
