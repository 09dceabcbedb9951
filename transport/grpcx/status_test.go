package grpcx

import (
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/rpcbench/rpcbench/transport"
)

// The reports name gRPC's codes as grpc-go does, without importing it.
func TestStatusNamesAreGRPCs(t *testing.T) {
	t.Parallel()
	for c := codes.OK; c <= codes.Unauthenticated; c++ {
		if got, want := transport.GRPC.StatusName(int(c)), c.String(); got != want {
			t.Errorf("StatusName(%d) = %q; want %q", c, got, want)
		}
	}
	if got := transport.GRPC.StatusName(99); got != "Code(99)" {
		t.Errorf("StatusName(99) = %q; want Code(99)", got)
	}
	if got := transport.HTTP1.StatusName(404); got != "404" {
		t.Errorf("HTTP1.StatusName(404) = %q; want 404", got)
	}
	for name, ok := range map[string]bool{"OK": true, "NotFound": false, "200": true, "301": true, "101": true, "404": false, "Code(99)": false} {
		if transport.SuccessName(name) != ok {
			t.Errorf("SuccessName(%q) = %v; want %v", name, !ok, ok)
		}
	}
}
