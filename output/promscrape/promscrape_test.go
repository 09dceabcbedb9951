package promscrape_test

import (
	"net/http"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/rpcbench/rpcbench/monitor"
	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/output/internal/outputtest"
	"github.com/rpcbench/rpcbench/output/promscrape"
)

// labelsOf returns the labels of m by name.
func labelsOf(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// A scrape after the last tick reads the counts of the run's JSON report, typed as counters.
func TestScrapeEndpoint(t *testing.T) {
	sc, err := promscrape.New("--metrics-addr", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var fams map[string]*dto.MetricFamily
	rep := outputtest.Run(t, output.Run{Labels: map[string]string{"run_id": "s1"}}, output.Set{sc}, func() {
		resp, err := http.Get("http://" + sc.Addr() + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if fams, err = monitor.ParseMetrics(resp.Body); err != nil {
			t.Fatal(err)
		}
	})
	byEndpoint := func(name string, extra map[string]string) map[string]float64 {
		f := fams[name]
		if f == nil {
			t.Fatalf("no %s in the scrape", name)
		}
		if f.GetType() != dto.MetricType_COUNTER {
			t.Errorf("%s is a %v, want a counter", name, f.GetType())
		}
		out := map[string]float64{}
	metrics:
		for _, m := range f.GetMetric() {
			ls := labelsOf(m)
			if ls["run_id"] != "s1" {
				t.Errorf("%s without run_id s1: %v", name, ls)
			}
			for k, v := range extra {
				if ls[k] != v {
					continue metrics
				}
			}
			out[ls["endpoint"]] = m.GetCounter().GetValue()
		}
		return out
	}
	sent := byEndpoint("rpcbench_requests_sent_total", nil)
	ok := byEndpoint("rpcbench_requests_ok_total", nil)
	for _, e := range rep.Endpoints {
		if sent[e.Name] != float64(e.Requests.Sent) || ok[e.Name] != float64(e.Requests.OK) {
			t.Errorf("endpoint %s: sent %v, ok %v scraped; %d, %d in the report", e.Name, sent[e.Name], ok[e.Name], e.Requests.Sent, e.Requests.OK)
		}
		for class, n := range e.Errors {
			if got := byEndpoint("rpcbench_requests_failed_total", map[string]string{"class": class})[e.Name]; got != float64(n) {
				t.Errorf("endpoint %s: failed{class=%s} %v scraped, %d in the report", e.Name, class, got, n)
			}
		}
	}
	if err := sc.Stop(nil, nil); err != nil { // a second Stop: the server is already shut
		t.Fatal(err)
	}
	if _, err := http.Get("http://" + sc.Addr() + "/metrics"); err == nil {
		t.Error("the endpoint still serves after Stop")
	}
}

func TestNewRejectsBadAddress(t *testing.T) {
	for _, a := range []string{"", "9464", "http://127.0.0.1:9464"} {
		if _, err := promscrape.New("--metrics-addr", a); err == nil || !strings.Contains(err.Error(), "host:port") {
			t.Errorf("New(%q): %v", a, err)
		}
	}
}
