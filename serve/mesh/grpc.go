package mesh

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/rpcbench/rpcbench/serve/mesh/meshpb"
)

// grpcLink calls peers over gRPC, one multiplexed connection per peer, dialled when first used.
// Safe for concurrent use.
type grpcLink struct {
	conns   []*grpc.ClientConn
	clients map[string]meshpb.PeerClient
}

func newGRPCLink(peers map[string]string) (*grpcLink, error) {
	l := &grpcLink{clients: make(map[string]meshpb.PeerClient, len(peers))}
	for n, a := range peers {
		cc, err := grpc.NewClient("passthrough:///"+a, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			l.close()
			return nil, fmt.Errorf("mesh: peer %s at %s: %w", n, a, err)
		}
		l.conns = append(l.conns, cc)
		l.clients[n] = meshpb.NewPeerClient(cc)
	}
	return l, nil
}

func (l *grpcLink) call(ctx context.Context, to string, st State) (State, string, error) {
	c, ok := l.clients[to]
	if !ok {
		return st, "", fmt.Errorf("unknown peer %q", to)
	}
	reply, err := c.Hop(ctx, &meshpb.HopRequest{State: toPB(st)})
	if err != nil {
		return st, "", err
	}
	if reply.GetState() == nil {
		return st, "", errors.New("answer without a state")
	}
	return fromPB(reply.GetState()), reply.GetError(), nil
}

func (l *grpcLink) close() {
	for _, cc := range l.conns {
		cc.Close()
	}
}

// grpcPeer adapts a Peer to the generated service interface.
type grpcPeer struct {
	meshpb.UnimplementedPeerServer
	p *Peer
}

func (g grpcPeer) Hop(ctx context.Context, req *meshpb.HopRequest) (*meshpb.HopReply, error) {
	st := fromPB(req.GetState())
	ctx, cancel := g.p.hopContext(ctx, time.Time{}, st.Limit)
	defer cancel()
	ans, failure := g.p.h.arrive(ctx, st)
	return &meshpb.HopReply{State: toPB(ans), Error: failure}, nil
}

// serveGRPC serves the peer's gRPC service on ln and returns the function that stops it.
func (p *Peer) serveGRPC(ln net.Listener) func(context.Context) error {
	srv := grpc.NewServer()
	meshpb.RegisterPeerServer(srv, grpcPeer{p: p})
	go srv.Serve(ln) //nolint:errcheck // returns after Stop
	return func(ctx context.Context) error {
		done := make(chan struct{})
		go func() { srv.GracefulStop(); close(done) }()
		select {
		case <-done:
			return nil
		case <-ctx.Done():
			srv.Stop()
			<-done
			return fmt.Errorf("mesh: peer %s: calls still in flight after %v; stopped", p.h.name, closeWait)
		}
	}
}

func toPB(st State) *meshpb.State {
	return &meshpb.State{
		StartUnixNano:   st.Start,
		CurrentUnixNano: st.Current,
		Last:            st.Last,
		Queue:           st.Queue,
		QueueIdx:        int32(st.QueueIdx),
		Limit:           int32(st.Limit),
		HopCount:        int32(st.HopCount),
		HopLatency:      st.HopLatency,
	}
}

func fromPB(s *meshpb.State) State {
	return State{
		Start:      s.GetStartUnixNano(),
		Current:    s.GetCurrentUnixNano(),
		Last:       s.GetLast(),
		Queue:      s.GetQueue(),
		QueueIdx:   int(s.GetQueueIdx()),
		Limit:      int(s.GetLimit()),
		HopCount:   int(s.GetHopCount()),
		HopLatency: s.GetHopLatency(),
	}
}
