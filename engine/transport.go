package engine

import (
	"fmt"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/transport"
	_ "github.com/rpcbench/rpcbench/transport/protocols" // registers every protocol's transport
)

// NewTransport returns the transport of a Normalized plan's protocol, made from the plan's time
// limits, connections and TLS settings through the transport registry (transport.New). keepBody
// keeps answer bodies for a Verifier. The caller closes it.
func NewTransport(p plan.Plan, keepBody bool) (transport.Transport, error) {
	proto := p.ProtocolOf()
	conns, open := p.Load.Connections, p.Load.Model == plan.Open
	if proto == transport.GRPC && p.GRPC.Connections > 0 {
		// the calls spread over exactly that many connections, as ghz's --connections
		conns, open = p.GRPC.Connections, false
	}
	tr, err := transport.New(proto, transport.Config{
		Timeout:            p.HTTP.Timeout,
		ConnectTimeout:     p.HTTP.ConnectTimeout,
		Conns:              conns,
		Open:               open,
		DisableKeepAlive:   p.HTTP.DisableKeepAlive,
		InsecureSkipVerify: p.HTTP.Insecure,
		KeepBody:           keepBody,
		MaxBody:            p.HTTP.MaxBody,
		ProtoFiles:         p.GRPC.ProtoFiles,
		ImportPaths:        p.GRPC.ImportPaths,
		Protoset:           p.GRPC.Protoset,
		TLS:                p.TLS,
		Streams:            p.HTTP.Streams,
		StreamRate:         p.GRPC.StreamRate,
		StreamCount:        p.GRPC.StreamCount,
		StreamDuration:     p.GRPC.StreamDuration,
		GRPCClient:         p.GRPC.Client,
	})
	if err != nil {
		return nil, fmt.Errorf("plan's protocol %q: %w", proto, err)
	}
	return tr, nil
}
