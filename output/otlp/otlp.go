// Package otlp is the output that sends a run's live series (output.Series) as OpenTelemetry
// metrics over OTLP — HTTP (protobuf) or gRPC — as the run goes, through the OpenTelemetry Go SDK's
// exporters:
// to an OpenTelemetry Collector, Grafana Alloy, or any backend that takes OTLP. The counts are
// cumulative monotonic sums from the run's start, the rest gauges; the metric names and attributes
// are those of remote write, so that one dashboard reads either.
//
// A receiver that is slow or down never slows the run (output.Pusher): the ticks queue, the
// exporter retries with its own back-off, and what cannot be sent is dropped, counted and said at
// Stop.
package otlp

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/summary"
)

// Options configure the output; the zero value of each field takes the default named.
type Options struct {
	output.PushOptions
	// Timeout bounds each export, retries included; 10s.
	Timeout time.Duration
	// Version is the tool's version, the resource's service.version.
	Version string
	// GRPC sends over OTLP/gRPC instead of OTLP/HTTP: the URL is then the receiver's address,
	// http://host:4317 in cleartext or https:// over TLS.
	GRPC bool
}

// exporter is what the output needs of the SDK's OTLP exporters (otlpmetrichttp, otlpmetricgrpc).
type exporter interface {
	Export(ctx context.Context, rm *metricdata.ResourceMetrics) error
	Shutdown(ctx context.Context) error
}

// Output sends the series to one OTLP/HTTP receiver. Build it with New.
type Output struct {
	*output.Pusher
	exp     exporter
	res     *resource.Resource
	started time.Time
	o       Options
	raw     string // the receiver's URL as given, redacted in messages
}

// New returns the output that exports to the OTLP/HTTP receiver at rawURL, the full URL of its
// metrics path (e.g. http://127.0.0.1:4318/v1/metrics), or with o.GRPC to the OTLP/gRPC receiver
// at rawURL (e.g. http://127.0.0.1:4317); name is its name in messages.
func New(name, rawURL string, o Options) (*Output, error) {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	var exp exporter
	if o.GRPC {
		u, err := output.PushURL(rawURL, "OTLP/gRPC", "http://127.0.0.1:4317")
		if err != nil {
			return nil, err
		}
		exp, err = otlpmetricgrpc.New(context.Background(), otlpmetricgrpc.WithEndpointURL(u), otlpmetricgrpc.WithTimeout(o.Timeout),
			otlpmetricgrpc.WithRetry(otlpmetricgrpc.RetryConfig{Enabled: true, InitialInterval: 100 * time.Millisecond, MaxInterval: 5 * time.Second, MaxElapsedTime: o.Timeout}))
		if err != nil {
			return nil, err
		}
	} else {
		u, err := output.PushURL(rawURL, "OTLP/HTTP", "http://127.0.0.1:4318/v1/metrics")
		if err != nil {
			return nil, err
		}
		exp, err = otlpmetrichttp.New(context.Background(), otlpmetrichttp.WithEndpointURL(u), otlpmetrichttp.WithTimeout(o.Timeout),
			otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{Enabled: true, InitialInterval: 100 * time.Millisecond, MaxInterval: 5 * time.Second, MaxElapsedTime: o.Timeout}))
		if err != nil {
			return nil, err
		}
	}
	p := &Output{exp: exp, o: o, raw: rawURL}
	p.Pusher = output.NewPusher(name, o.PushOptions, p.send)
	return p, nil
}

// Start keeps the run's start, the start of its cumulative sums, and starts the sender.
func (p *Output) Start(r output.Run) error {
	p.started = r.Started
	if p.started.IsZero() {
		p.started = time.Now()
	}
	p.res = resource.NewSchemaless(semconv.ServiceName("rpcbench"), semconv.ServiceVersion(p.o.Version))
	return p.Pusher.Start(r)
}

// send exports one batch: a metric per name, a data point per series.
func (p *Output) send(ctx context.Context, b output.Batch) error {
	at := time.UnixMilli(b.At)
	var metrics []metricdata.Metrics
	index := map[string]int{}
	for _, s := range b.Samples {
		kvs := make([]attribute.KeyValue, len(s.Labels))
		for i, l := range s.Labels {
			kvs[i] = attribute.String(l.Name, l.Value)
		}
		attrs := attribute.NewSet(kvs...)
		i, ok := index[s.Name]
		if !ok {
			i = len(metrics)
			index[s.Name] = i
			m := metricdata.Metrics{Name: s.Name, Description: output.SeriesHelp[s.Name]}
			if s.Kind == output.Counter {
				m.Data = metricdata.Sum[float64]{Temporality: metricdata.CumulativeTemporality, IsMonotonic: true}
			} else {
				m.Data = metricdata.Gauge[float64]{}
			}
			metrics = append(metrics, m)
		}
		switch d := metrics[i].Data.(type) {
		case metricdata.Sum[float64]:
			d.DataPoints = append(d.DataPoints, metricdata.DataPoint[float64]{Attributes: attrs, StartTime: p.started, Time: at, Value: s.Value})
			metrics[i].Data = d
		case metricdata.Gauge[float64]:
			d.DataPoints = append(d.DataPoints, metricdata.DataPoint[float64]{Attributes: attrs, Time: at, Value: s.Value})
			metrics[i].Data = d
		}
	}
	rm := &metricdata.ResourceMetrics{Resource: p.res, ScopeMetrics: []metricdata.ScopeMetrics{{
		Scope:   instrumentation.Scope{Name: "github.com/rpcbench/rpcbench/output/otlp", Version: p.o.Version},
		Metrics: metrics,
	}}}
	if err := p.exp.Export(ctx, rm); err != nil {
		return output.RedactedErr(err, p.raw) // the exporter's messages may quote the endpoint
	}
	return nil
}

// Stop sends what is queued (output.Pusher.Stop) and shuts the exporter.
func (p *Output) Stop(res *engine.Result, sum *summary.Summary) error {
	err := p.Pusher.Stop(res, sum)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	p.exp.Shutdown(ctx) //nolint:errcheck // it holds nothing to flush: the batches went through Pusher
	return err
}

var _ output.ResourceObserver = (*Output)(nil)
