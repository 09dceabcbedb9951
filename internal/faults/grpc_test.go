package faults_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/internal/faults"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
)

// echoProto describes the method the gRPC cases call; no server here has reflection.
const echoProto = `syntax = "proto3";
package echo;
service Echo { rpc Echo(In) returns (In); }
message In { string id = 1; }
`

// grpcPlan is faultPlan for the method echo.Echo/Echo at addr, described by echoProto.
func grpcPlan(t *testing.T, addr string, rate float64, d, timeout time.Duration) plan.Plan {
	t.Helper()
	p := filepath.Join(t.TempDir(), "echo.proto")
	if err := os.WriteFile(p, []byte(echoProto), 0o600); err != nil {
		t.Fatal(err)
	}
	pl := faultPlan("grpc://"+addr+"/echo.Echo/Echo", rate, d, timeout)
	pl.Endpoints[0].Body = []byte(`{"id":"1"}`)
	pl.GRPC = plan.GRPC{ProtoFiles: []string{p}}
	return pl
}

// A gRPC server whose SETTINGS allow no concurrent stream: no call opens one, so none is sent.
// Each waits for a stream until its time limit and fails as a timeout, unsent (no service time),
// the message naming the cause.
func TestFaultGRPCNoStreams(t *testing.T) {
	t.Parallel()
	s := faults.H2NoStreams(t)
	o := run(t, grpcPlan(t, s.Addr, 20, time.Second, limit), 20, result.Timeout)
	every(t, o, result.Timeout)
	tot := o.res.Total.Total()
	if tot.Sent != 0 || tot.Unsent != 20 || tot.Service.TotalCount() != 0 || tot.BytesOut != 0 {
		t.Errorf("sent %d, unsent %d, %d service times, %d bytes out; want 0 sent, 20 unsent, no service time, no byte out", tot.Sent, tot.Unsent, tot.Service.TotalCount(), tot.BytesOut)
	}
	for k, n := range tot.Messages {
		if !strings.Contains(k.Message, "MAX_CONCURRENT_STREAMS 0") {
			t.Errorf("%d failures %q; want the message to name MAX_CONCURRENT_STREAMS 0", n, k.Message)
		}
	}
}
