// Package promscrape is the output that serves a run's live series (output.Series) on an HTTP
// endpoint for a Prometheus server to scrape while the run goes (--metrics-addr), for setups that
// pull instead of receiving remote write. The series are those remote write sends; each scrape
// gets the values of the last interval, exposed with prometheus/client_golang.
package promscrape

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// Output serves the series at /metrics on one address. Build it with New.
type Output struct {
	name, addr string
	series     *output.Series
	srv        *http.Server
	served     chan error
	bound      string

	mu     sync.Mutex
	latest []output.Sample
}

// New returns the output that listens on addr (host:port; port 0 picks a free one, see Addr) from
// Start to Stop; name is its name in messages (--metrics-addr).
func New(name, addr string) (*Output, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, fmt.Errorf("%q is not an address to listen on: expected host:port, e.g. 127.0.0.1:9464", addr)
	}
	return &Output{name: name, addr: addr}, nil
}

// Name says which output it is.
func (p *Output) Name() string { return p.name }

// Addr is the address it listens on, once started.
func (p *Output) Addr() string { return p.bound }

// Start listens and serves.
func (p *Output) Start(r output.Run) error {
	l, err := net.Listen("tcp", p.addr)
	if err != nil {
		return err
	}
	p.bound = l.Addr().String()
	p.series = output.NewSeries(r)
	reg := prometheus.NewRegistry()
	if err := reg.Register(collector{p}); err != nil {
		l.Close()
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	p.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	p.served = make(chan error, 1)
	go func() { p.served <- p.srv.Serve(l) }()
	return nil
}

// Tick makes t's samples the ones served.
func (p *Output) Tick(t *engine.Tick) {
	if s := p.series.Tick(t); s != nil {
		p.set(s)
	}
}

func (p *Output) set(s []output.Sample) {
	p.mu.Lock()
	p.latest = s
	p.mu.Unlock()
}

// Resource keeps the last sample of a watched target for the next tick.
func (p *Output) Resource(target string, s result.ResourceSample) {
	if p.series != nil {
		p.series.Resource(target, s)
	}
}

// Stop stops serving; a second Stop does nothing.
func (p *Output) Stop(*engine.Result, *summary.Summary) error {
	if p.srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := p.srv.Shutdown(ctx)
	p.srv = nil
	if serr := <-p.served; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// collector exposes the latest samples. It describes no metric up front (an unchecked collector):
// the endpoints' and classes' series appear as the run meets them.
type collector struct{ p *Output }

func (collector) Describe(chan<- *prometheus.Desc) {}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	c.p.mu.Lock()
	latest := c.p.latest
	c.p.mu.Unlock()
	for _, s := range latest {
		names := make([]string, len(s.Labels))
		values := make([]string, len(s.Labels))
		for i, l := range s.Labels {
			names[i], values[i] = l.Name, l.Value
		}
		typ := prometheus.GaugeValue
		if s.Kind == output.Counter {
			typ = prometheus.CounterValue
		}
		m, err := prometheus.NewConstMetric(prometheus.NewDesc(s.Name, output.SeriesHelp[s.Name], names, nil), typ, s.Value, values...)
		if err != nil {
			m = prometheus.NewInvalidMetric(prometheus.NewDesc(s.Name, output.SeriesHelp[s.Name], nil, nil), err)
		}
		ch <- m
	}
}

var _ output.ResourceObserver = (*Output)(nil)
