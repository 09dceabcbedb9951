package monitor

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

func mustSelectors(t *testing.T, ss ...string) []Selector {
	t.Helper()
	out := make([]Selector, len(ss))
	for i, s := range ss {
		sel, err := ParseSelector(s)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = sel
	}
	return out
}

// A loopback server exposes metrics made with the Prometheus client library; the scraper follows
// a counter (as a rate), a gauge, a histogram it cannot follow and a metric that is not there.
func TestScraper(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	reqs := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "app_requests_total", Help: "Requests."}, []string{"code"})
	depth := prometheus.NewGauge(prometheus.GaugeOpts{Name: "app_queue_depth", Help: "Queue."})
	lat := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "app_latency_seconds", Help: "Latency."})
	reg.MustRegister(reqs, depth, lat)
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()

	sc, err := NewScraper(srv.URL+"/metrics", srv.Client(), mustSelectors(t,
		`app_requests_total{code="200"}`, "app_requests_total", "app_queue_depth", "app_latency_seconds", "app_missing")...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	reqs.WithLabelValues("200").Add(5)
	reqs.WithLabelValues("500").Add(1)
	depth.Set(3)
	first, err := sc.Scrape(ctx, t0)
	if err != nil {
		t.Fatal(err)
	}
	reqs.WithLabelValues("200").Add(10)
	reqs.WithLabelValues("500").Add(4)
	depth.Set(7)
	second, err := sc.Scrape(ctx, t0.Add(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		got  MetricValue
		want MetricValue
	}{
		// A counter has no rate at the first scrape; a gauge has its value.
		{first.Values[0], MetricValue{Series: `app_requests_total{code="200"}`, Type: "counter"}},
		{first.Values[2], MetricValue{Series: "app_queue_depth", Type: "gauge", Value: 3, Known: true}},
		// 10 more requests with code 200 in 2 s: 5/s; 14 more of any code: 7/s.
		{second.Values[0], MetricValue{Series: `app_requests_total{code="200"}`, Type: "counter", Value: 5, Known: true}},
		{second.Values[1], MetricValue{Series: "app_requests_total", Type: "counter", Value: 7, Known: true}},
		{second.Values[2], MetricValue{Series: "app_queue_depth", Type: "gauge", Value: 7, Known: true}},
		{second.Values[3], MetricValue{Series: "app_latency_seconds", Type: "histogram"}},
		{second.Values[4], MetricValue{Series: "app_missing"}},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("row %d: got %+v; want %+v", i, tt.got, tt.want)
		}
	}
}

// A counter that goes down was reset: its new value is the increase.
func TestScraperObserveReset(t *testing.T) {
	t.Parallel()
	sc, err := NewScraper("http://127.0.0.1:1/metrics", nil, mustSelectors(t, "c_total")...)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, tt := range []struct {
		text string
		want float64
	}{
		{"# TYPE c_total counter\nc_total 100\n", 0},
		{"# TYPE c_total counter\nc_total 130\n", 30}, // +30 in 1 s
		{"# TYPE c_total counter\nc_total 6\n", 6},    // reset, then 6
	} {
		fams, err := ParseMetrics(strings.NewReader(tt.text))
		if err != nil {
			t.Fatal(err)
		}
		got := sc.Observe(t0.Add(time.Duration(i)*time.Second), fams).Values[0]
		if got.Value != tt.want || got.Known != (i > 0) {
			t.Errorf("scrape %d: got %+v; want value %v", i, got, tt.want)
		}
	}
}

func TestScraperErrors(t *testing.T) {
	t.Parallel()
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte("this is { not metrics\n"))
	}))
	defer garbage.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sel := mustSelectors(t, "up")
	for _, tt := range []struct {
		url  string
		want string
	}{
		{garbage.URL + "/missing", "want status 200, got 404"},
		{garbage.URL + "/metrics", "want the Prometheus text format"},
	} {
		sc, err := NewScraper(tt.url, garbage.Client(), sel...)
		if err != nil {
			t.Fatal(err)
		}
		_, err = sc.Scrape(ctx, time.Now())
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.url) {
			t.Errorf("%s: got %v; want an error naming the URL and %q", tt.url, err, tt.want)
		}
	}
	for _, tt := range []struct {
		url  string
		sel  []Selector
		want string
	}{
		{"localhost:9090", sel, `metrics URL "localhost:9090": want http://host:port/metrics`},
		{"http://127.0.0.1:9090/metrics", nil, "want at least one series"},
		{"http://127.0.0.1:9090/metrics", []Selector{{Name: "1x"}}, `selector "1x": want a metric name`},
	} {
		if _, err := NewScraper(tt.url, nil, tt.sel...); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewScraper(%q): got %v; want error containing %q", tt.url, err, tt.want)
		}
	}
}

func TestParseSelector(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Selector
		wantErr string
	}{
		{"up", Selector{Name: "up"}, ""},
		{` http_requests_total{code="200", method="GET"} `, Selector{Name: "http_requests_total", Labels: map[string]string{"code": "200", "method": "GET"}}, ""},
		{`a:b{x="q\"uote,}"}`, Selector{Name: "a:b", Labels: map[string]string{"x": `q"uote,}`}}, ""}, // escaped quote, comma and brace inside a value
		{`x{}`, Selector{Name: "x", Labels: map[string]string{}}, ""},
		{"", Selector{}, "not a metric name"},
		{"9lives", Selector{}, "not a metric name"},
		{`x{a="1"`, Selector{}, "no closing }"},
		{`x{a=1}`, Selector{}, "want a double-quoted value"},
		{`x{a="1" b="2"}`, Selector{}, "want , between labels"},
		{`x{a:b="1"}`, Selector{}, `want label="value"`},
	}
	for _, tt := range tests {
		got, err := ParseSelector(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), strconv.Quote(tt.in)) {
				t.Errorf("ParseSelector(%q): got %+v, %v; want an error naming it and %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseSelector(%q): got %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

// What ParseSelector reads, String writes back in a form it reads the same.
func FuzzParseSelector(f *testing.F) {
	f.Add(`http_requests_total{code="200",method="GET"}`)
	f.Add(`a{x="q\"uote,}"}`)
	f.Add(`x{a="1"`)
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := ParseSelector(s)
		if err != nil {
			return
		}
		again, err := ParseSelector(sel.String())
		if err != nil || again.String() != sel.String() {
			t.Errorf("%q → %q → %q, %v; want the same selector back", s, sel.String(), again.String(), err)
		}
	})
}
