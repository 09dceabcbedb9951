package cli

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// With --metrics a built-in service answers /metrics in the Prometheus text format, counting the
// requests it answered by status code; without it, /metrics is the service's own path.
func TestServeMetrics(t *testing.T) {
	t.Parallel()
	svc := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fail" {
			w.WriteHeader(http.StatusInternalServerError)
		}
		io.WriteString(w, "service")
	})
	get := func(t *testing.T, url string) string {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	on := httptest.NewServer((&serveEnv{Metrics: true}).PprofHandler(svc))
	defer on.Close()
	for _, p := range []string{"/", "/a", "/fail"} {
		if got := get(t, on.URL+p); got != "service" {
			t.Fatalf("%s: got %q; want the service's answer", p, got)
		}
	}
	m := get(t, on.URL+"/metrics")
	for _, want := range []string{"rpcbench_serve_requests_total{code=\"200\"} 2\n", "rpcbench_serve_requests_total{code=\"500\"} 1\n",
		"rpcbench_serve_in_flight 0\n", "go_goroutines ", "process_resident_memory_bytes "} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics: got\n%s\nwant a line %q", m, want)
		}
	}
	off := httptest.NewServer((&serveEnv{}).PprofHandler(svc))
	defer off.Close()
	if got := get(t, off.URL+"/metrics"); got != "service" {
		t.Errorf("without --metrics: /metrics got %q; want the service's answer", got)
	}
}
