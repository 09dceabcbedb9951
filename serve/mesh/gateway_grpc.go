package mesh

import (
	"context"
	"errors"
	"fmt"
	"net"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"

	"github.com/rpcbench/rpcbench/serve/mesh/meshpb"
)

// grpcGateway adapts a Gateway to the generated Gateway service: the gateway's gRPC entry, the
// counterpart of POST /peer/hop and POST /staticPeer/hop.
type grpcGateway struct {
	meshpb.UnimplementedGatewayServer
	g *Gateway
}

func (s grpcGateway) Hop(ctx context.Context, req *meshpb.HopRequest) (*meshpb.HopReply, error) {
	return s.serve(ctx, req, s.g.Hop)
}

func (s grpcGateway) StaticHop(ctx context.Context, req *meshpb.HopRequest) (*meshpb.HopReply, error) {
	return s.serve(ctx, req, s.g.StaticHop)
}

// serve runs the chain of the request's queue and limit. A chain that did not start is
// InvalidArgument, one out of time DeadlineExceeded, one that failed on the way Unavailable, so that
// a load generator counts them by code; the status message says which hop failed and why.
func (s grpcGateway) serve(ctx context.Context, req *meshpb.HopRequest, run func(context.Context, HopRequest) (Response, error)) (*meshpb.HopReply, error) {
	st := req.GetState()
	resp, err := run(ctx, HopRequest{Queue: st.GetQueue(), Limit: int(st.GetLimit())})
	switch {
	case err == nil:
		return &meshpb.HopReply{State: toPB(resp.State)}, nil
	case errors.Is(err, ErrBadRequest):
		return nil, status.Error(codes.InvalidArgument, err.Error()+`; want {"state":{"queue":["A","B"],"limit":N}}`)
	case errors.Is(err, ErrTimeout):
		return nil, status.Error(codes.DeadlineExceeded, err.Error())
	}
	return nil, status.Error(codes.Unavailable, err.Error())
}

// ListenGRPC serves the gateway's gRPC entry on addr: the service rpcbench.mesh.v1.Gateway (Hop,
// StaticHop; see meshpb), with server reflection, so that a load generator needs no .proto file.
// Close stops it. It returns the address it listens on. Call it before the Mesh is in use, not
// concurrently with Close.
func (m *Mesh) ListenGRPC(addr string) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("mesh: gateway gRPC: %w", err)
	}
	srv := grpc.NewServer()
	meshpb.RegisterGatewayServer(srv, grpcGateway{g: m.gw})
	reflection.Register(srv)
	go srv.Serve(ln) //nolint:errcheck // returns after Stop
	m.grpcSrvs = append(m.grpcSrvs, srv)
	return ln.Addr().String(), nil
}
