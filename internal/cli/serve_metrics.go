package cli

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metricsHandler wraps h so that, with --metrics, /metrics serves the service's Prometheus metrics
// beside it: the requests it answered by status code (rpcbench_serve_requests_total), those in
// flight (rpcbench_serve_in_flight), and the Go runtime's and the process's own figures — a target
// whose metrics `run --monitor-metrics` can follow — and the kind's own (serveEnv.Collectors).
func (s *serveEnv) metricsHandler(h http.Handler) http.Handler {
	if !s.Metrics {
		return h
	}
	reg := prometheus.NewRegistry()
	reqs := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rpcbench_serve_requests_total",
		Help: "Requests answered, by status code."}, []string{"code"})
	inFlight := prometheus.NewGauge(prometheus.GaugeOpts{Name: "rpcbench_serve_in_flight",
		Help: "Requests being served."})
	reg.MustRegister(reqs, inFlight, collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.MustRegister(s.Collectors...)
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.Handle("/", promhttp.InstrumentHandlerInFlight(inFlight, promhttp.InstrumentHandlerCounter(reqs, h)))
	return mux
}
