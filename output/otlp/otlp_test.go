package otlp_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/output/internal/outputtest"
	"github.com/rpcbench/rpcbench/output/otlp"
)

// receiver is an OTLP/HTTP metrics receiver on loopback that decodes each export with the
// protocol's official proto packages and keeps it.
type receiver struct {
	mu      sync.Mutex
	exports []*colmetrics.ExportMetricsServiceRequest
	status  int // answered instead of 200 when not 0
	url     string
}

func startReceiver(t *testing.T) *receiver {
	t.Helper()
	rc := &receiver{}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		req := &colmetrics.ExportMetricsServiceRequest{}
		if err == nil && r.Header.Get("Content-Type") != "application/x-protobuf" {
			err = io.ErrUnexpectedEOF
		}
		if err == nil {
			err = proto.Unmarshal(b, req)
		}
		if err != nil || r.URL.Path != "/v1/metrics" {
			http.Error(w, "bad export", http.StatusBadRequest)
			return
		}
		if rc.keep(req) {
			w.WriteHeader(rc.status)
			return
		}
		out, _ := proto.Marshal(&colmetrics.ExportMetricsServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out) //nolint:errcheck // a test receiver
	})}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l) //nolint:errcheck // closed at cleanup
	t.Cleanup(func() { srv.Close() })
	rc.url = "http://" + l.Addr().String() + "/v1/metrics"
	return rc
}

// keep stores one export, or refuses it with the receiver's status.
func (rc *receiver) keep(req *colmetrics.ExportMetricsServiceRequest) (refused bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.status != 0 {
		return true
	}
	rc.exports = append(rc.exports, req)
	return false
}

// grpcReceiver is the OTLP/gRPC metrics service of a receiver.
type grpcReceiver struct {
	colmetrics.UnimplementedMetricsServiceServer
	rc *receiver
}

func (g grpcReceiver) Export(_ context.Context, req *colmetrics.ExportMetricsServiceRequest) (*colmetrics.ExportMetricsServiceResponse, error) {
	if g.rc.keep(req) {
		return nil, status.Error(codes.InvalidArgument, "refused")
	}
	return &colmetrics.ExportMetricsServiceResponse{}, nil
}

// startGRPCReceiver is startReceiver over OTLP/gRPC: its url is the address, http://host:port.
func startGRPCReceiver(t *testing.T) *receiver {
	t.Helper()
	rc := &receiver{}
	srv := grpc.NewServer()
	colmetrics.RegisterMetricsServiceServer(srv, grpcReceiver{rc: rc})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l) //nolint:errcheck // stopped at cleanup
	t.Cleanup(srv.Stop)
	rc.url = "http://" + l.Addr().String()
	return rc
}

// last returns the values of metric name in the last export that has it, by the attribute by,
// among the data points whose attributes hold every pair of with; and whether it was a monotonic
// cumulative sum.
func (rc *receiver) last(name, by string, with map[string]string) (map[string]float64, bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for i := len(rc.exports) - 1; i >= 0; i-- {
		for _, rm := range rc.exports[i].GetResourceMetrics() {
			for _, sm := range rm.GetScopeMetrics() {
				for _, m := range sm.GetMetrics() {
					if m.GetName() != name {
						continue
					}
					var pts []*metricspb.NumberDataPoint
					sum := m.GetSum()
					if sum != nil {
						pts = sum.GetDataPoints()
					} else {
						pts = m.GetGauge().GetDataPoints()
					}
					out := map[string]float64{}
				points:
					for _, p := range pts {
						attrs := map[string]string{}
						for _, kv := range p.GetAttributes() {
							attrs[kv.GetKey()] = kv.GetValue().GetStringValue()
						}
						for k, v := range with {
							if attrs[k] != v {
								continue points
							}
						}
						out[attrs[by]] = p.GetAsDouble()
					}
					return out, sum != nil && sum.GetIsMonotonic() && sum.GetAggregationTemporality() == metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE
				}
			}
		}
	}
	return nil, false
}

// The last export holds the counts of the run's JSON report, the counts as cumulative sums, over
// HTTP and over gRPC.
func TestOTLPExport(t *testing.T) {
	t.Run("http", func(t *testing.T) { testExport(t, startReceiver(t), false) })
	t.Run("grpc", func(t *testing.T) { testExport(t, startGRPCReceiver(t), true) })
}

func testExport(t *testing.T, rc *receiver, overGRPC bool) {
	var notes strings.Builder
	o, err := otlp.New("--out otlp", rc.url, otlp.Options{PushOptions: output.PushOptions{Notes: &notes}, Version: "test", GRPC: overGRPC})
	if err != nil {
		t.Fatal(err)
	}
	rep := outputtest.Run(t, output.Run{Labels: map[string]string{"run_id": "o1", "target": "lab"}}, output.Set{o}, nil)
	if o.Dropped() != 0 {
		t.Fatalf("samples dropped with the receiver up: %s", notes.String())
	}
	run := map[string]string{"run_id": "o1", "target": "lab"}
	sent, cumulative := rc.last("rpcbench_requests_sent_total", "endpoint", run)
	if !cumulative {
		t.Error("rpcbench_requests_sent_total is not a monotonic cumulative sum")
	}
	ok, _ := rc.last("rpcbench_requests_ok_total", "endpoint", run)
	for _, e := range rep.Endpoints {
		if sent[e.Name] != float64(e.Requests.Sent) || ok[e.Name] != float64(e.Requests.OK) {
			t.Errorf("endpoint %s: sent %v, ok %v exported; %d, %d in the report", e.Name, sent[e.Name], ok[e.Name], e.Requests.Sent, e.Requests.OK)
		}
		failed, _ := rc.last("rpcbench_requests_failed_total", "class", map[string]string{"run_id": "o1", "endpoint": e.Name})
		for class, n := range e.Errors {
			if failed[class] != float64(n) {
				t.Errorf("endpoint %s: failed{class=%s} %v exported, %d in the report", e.Name, class, failed[class], n)
			}
		}
	}
	intended, _ := rc.last("rpcbench_requests_intended_total", "run_id", nil)
	if intended["o1"] != float64(rep.Requests.Intended) {
		t.Errorf("intended %v exported, %d in the report", intended["o1"], rep.Requests.Intended)
	}
	valid, cumulative := rc.last("rpcbench_run_valid", "run_id", nil)
	if want := map[bool]float64{true: 1, false: 0}[rep.Validity.Valid]; valid["o1"] != want || cumulative {
		t.Errorf("run_valid %v (a sum: %v) exported, report's valid %v", valid["o1"], cumulative, rep.Validity.Valid)
	}
	if p99, _ := rc.last("rpcbench_latency_seconds", "endpoint", map[string]string{"quantile": "0.99"}); p99["a"] <= 0 || p99["b"] <= 0 {
		t.Errorf("latency p99 by endpoint: %v", p99)
	}
	if !strings.HasPrefix(notes.String(), "--out otlp: ") || strings.Contains(notes.String(), "dropped") {
		t.Errorf("Stop's note: %q", notes.String())
	}
}

// A receiver that refuses every export: the samples are dropped and counted, over HTTP and gRPC.
func TestOTLPReceiverRefuses(t *testing.T) {
	t.Run("http", func(t *testing.T) { testRefused(t, startReceiver(t), false) })
	t.Run("grpc", func(t *testing.T) { testRefused(t, startGRPCReceiver(t), true) })
}

func testRefused(t *testing.T, rc *receiver, overGRPC bool) {
	rc.status = http.StatusBadRequest
	var notes strings.Builder
	o, err := otlp.New("--out otlp", rc.url, otlp.Options{PushOptions: output.PushOptions{Notes: &notes, FlushTimeout: 5 * time.Second}, GRPC: overGRPC})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Start(output.Run{Endpoints: []string{"a"}}); err != nil {
		t.Fatal(err)
	}
	o.Tick(&engine.Tick{})
	if err := o.Stop(nil, nil); err != nil {
		t.Fatal(err)
	}
	if o.Dropped() != 4 || o.Sent() != 0 { // intended, in flight, sent and ok of a
		t.Errorf("dropped %d, sent %d; want 4 dropped, none sent", o.Dropped(), o.Sent())
	}
}

func TestNewRejectsBadURL(t *testing.T) {
	for _, u := range []string{"", "127.0.0.1:4318", "grpc://h:4317"} {
		if _, err := otlp.New("--out otlp", u, otlp.Options{}); err == nil || !strings.Contains(err.Error(), "OTLP/HTTP URL") {
			t.Errorf("New(%q): %v", u, err)
		}
		if _, err := otlp.New("--out otlp-grpc", u, otlp.Options{GRPC: true}); err == nil || !strings.Contains(err.Error(), "OTLP/gRPC URL") {
			t.Errorf("New(%q, GRPC): %v", u, err)
		}
	}
}
