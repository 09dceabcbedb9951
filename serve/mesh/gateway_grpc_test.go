package mesh

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/rpcbench/rpcbench/serve/mesh/meshpb"
)

// The gateway's gRPC entry makes the chains POST /peer/hop and /staticPeer/hop make, over each
// transport, and answers a bad request or a failed chain with a status code a load generator counts.
func TestGatewayGRPC(t *testing.T) {
	t.Parallel()
	for _, tr := range Transports() {
		t.Run(string(tr), func(t *testing.T) {
			t.Parallel()
			m := startMesh(t, Config{Transport: tr, Timeout: 10 * time.Second})
			addr, err := m.ListenGRPC("127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			cc, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cc.Close() })
			c := meshpb.NewGatewayClient(cc)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			queue := []string{"A", "B", "C"}
			req := &meshpb.HopRequest{State: &meshpb.State{Queue: queue, Limit: 7}}
			for name, call := range map[string]func(context.Context, *meshpb.HopRequest, ...grpc.CallOption) (*meshpb.HopReply, error){
				"Hop": c.Hop, "StaticHop": c.StaticHop,
			} {
				reply, err := call(ctx, req)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				// 7 hops over A B C: A B C A B C A, the last at A, the next would be B (index 1)
				st := fromPB(reply.GetState())
				checkFinished(t, st, queue, 7, "A", 1)
			}
			for _, tc := range []struct {
				name string
				req  *meshpb.HopRequest
				want codes.Code
				msg  string // in the status message
			}{
				{"no queue", &meshpb.HopRequest{State: &meshpb.State{Limit: 3}}, codes.InvalidArgument, `want {"state":{"queue":["A","B"],"limit":N}}`},
				{"unknown peer", &meshpb.HopRequest{State: &meshpb.State{Queue: []string{"A", "Z"}, Limit: 3}}, codes.InvalidArgument, "Z"},
			} {
				_, err := c.Hop(ctx, tc.req)
				if s := status.Convert(err); s.Code() != tc.want || !strings.Contains(s.Message(), tc.msg) {
					t.Errorf("%s: status %v %q; want %v with %q", tc.name, s.Code(), s.Message(), tc.want, tc.msg)
				}
			}
		})
	}
}
