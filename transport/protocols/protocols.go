// Package protocols registers the transport of every protocol this module has with the transport
// package's registry, so that a plan's protocol finds its transport: HTTP/1.1 (transport/httpx),
// HTTP/2 as h2 and h2c (transport/h2), HTTP/3 as h3 (transport/h3), JSON-RPC over WebSocket (transport/ws) and gRPC
// (transport/grpcx). Import it for its side effect, as the engine does; a
// program that wants fewer protocols in its binary imports the ones it needs and registers them
// itself.
package protocols

import (
	"context"
	"crypto/tls"
	"fmt"

	"github.com/rpcbench/rpcbench/transport"
	"github.com/rpcbench/rpcbench/transport/grpcx"
	"github.com/rpcbench/rpcbench/transport/h2"
	"github.com/rpcbench/rpcbench/transport/h3"
	"github.com/rpcbench/rpcbench/transport/httpx"
	"github.com/rpcbench/rpcbench/transport/ws"
)

func init() {
	transport.Register(transport.HTTP1, HTTP1)
	transport.Register(transport.WS, WS)
	transport.Register(transport.GRPC, GRPC)
	transport.Register(transport.H2, H2)
	transport.Register(transport.H2C, H2C)
	transport.Register(transport.H3, H3)
}

// tlsConfig returns the TLS settings c's files describe, or nil for the defaults.
func tlsConfig(c transport.Config) (*tls.Config, error) {
	if c.TLS.IsZero() {
		return nil, nil
	}
	return transport.TLSConfig(c.TLS, c.InsecureSkipVerify)
}

// HTTP1 makes the HTTP/1.1 transport: a pool capped at c.Conns connections.
func HTTP1(c transport.Config) (transport.Transport, error) {
	tc, err := tlsConfig(c)
	if err != nil {
		return nil, fmt.Errorf("httpx: %w", err)
	}
	return httpx.New(httpx.Options{
		Timeout:            c.Timeout,
		ConnectTimeout:     c.ConnectTimeout,
		MaxConns:           c.Conns,
		DisableKeepAlive:   c.DisableKeepAlive,
		InsecureSkipVerify: c.InsecureSkipVerify,
		TLSConfig:          tc,
		KeepBody:           c.KeepBody,
		MaxBody:            c.MaxBody,
	})
}

// H2 makes the HTTP/2 transport for https:// URLs: h2 when the server's ALPN chooses it, else
// HTTP/1.1 on the same connection; c.Streams requests per connection, at most c.Conns
// connections.
func H2(c transport.Config) (transport.Transport, error) { return newH2(c, false) }

// H2C makes the HTTP/2 transport for http:// URLs, with prior knowledge: c.Streams requests per
// connection, at most c.Conns connections.
func H2C(c transport.Config) (transport.Transport, error) { return newH2(c, true) }

func newH2(c transport.Config, cleartext bool) (transport.Transport, error) {
	tc, err := tlsConfig(c)
	if err != nil {
		return nil, fmt.Errorf("h2: %w", err)
	}
	return h2.New(h2.Options{
		Cleartext:          cleartext,
		Timeout:            c.Timeout,
		ConnectTimeout:     c.ConnectTimeout,
		MaxConns:           c.Conns,
		Streams:            c.Streams,
		DisableKeepAlive:   c.DisableKeepAlive,
		InsecureSkipVerify: c.InsecureSkipVerify,
		TLS:                tc,
		KeepBody:           c.KeepBody,
		MaxBody:            c.MaxBody,
	})
}

// H3 makes the HTTP/3 transport for https:// URLs: HTTP over QUIC, c.Streams requests per
// connection, at most c.Conns connections.
func H3(c transport.Config) (transport.Transport, error) {
	tc, err := tlsConfig(c)
	if err != nil {
		return nil, fmt.Errorf("h3: %w", err)
	}
	t, err := h3.New(h3.Options{
		Timeout:            c.Timeout,
		ConnectTimeout:     c.ConnectTimeout,
		MaxConns:           c.Conns,
		Streams:            c.Streams,
		DisableKeepAlive:   c.DisableKeepAlive,
		InsecureSkipVerify: c.InsecureSkipVerify,
		TLS:                tc,
		KeepBody:           c.KeepBody,
		MaxBody:            c.MaxBody,
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// WS makes the JSON-RPC over WebSocket transport: in the closed model c.Conns connections, each
// carrying its share of the calls; in the open model as many as the calls in flight need
// (ws.DefaultSpread calls each), up to c.Conns.
func WS(c transport.Config) (transport.Transport, error) {
	tc, err := tlsConfig(c)
	if err != nil {
		return nil, fmt.Errorf("ws: %w", err)
	}
	spread := 0
	if c.Open {
		spread = ws.DefaultSpread
	}
	return ws.New(ws.Options{
		Conns:              c.Conns,
		Spread:             spread,
		Timeout:            c.Timeout,
		ConnectTimeout:     c.ConnectTimeout,
		InsecureSkipVerify: c.InsecureSkipVerify,
		TLS:                tc,
		KeepBody:           c.KeepBody,
		ReadLimit:          c.MaxBody, // a longer message closes its connection; 0: ws's default
	}), nil
}

// GRPC makes the gRPC transport: in the closed model c.Conns connections per server, each
// carrying its share of the calls; in the open model as many as the calls in flight need
// (grpcx.DefaultSpread calls each), up to c.Conns. The methods are described by c.ProtoFiles
// (compiled now, so a bad file fails here, naming file:line:column), else by c.Protoset, else by
// each server's reflection service.
func GRPC(c transport.Config) (transport.Transport, error) {
	o := grpcx.Options{
		Conns:              c.Conns,
		Timeout:            c.Timeout,
		ConnectTimeout:     c.ConnectTimeout,
		InsecureSkipVerify: c.InsecureSkipVerify,
		KeepBody:           c.KeepBody,
		MaxBody:            c.MaxBody,
		StreamRate:         c.StreamRate,
		StreamCount:        c.StreamCount,
		StreamDuration:     c.StreamDuration,
		Client:             c.GRPCClient,
	}
	if err := grpcx.CheckClient(c.GRPCClient); err != nil {
		return nil, fmt.Errorf("grpcx: %w", err)
	}
	if c.Open {
		o.Spread = grpcx.DefaultSpread
	}
	if c.Streams > 0 {
		o.Spread = c.Streams
	}
	if !c.TLS.IsZero() {
		tc, err := transport.TLSConfig(c.TLS, c.InsecureSkipVerify)
		if err != nil {
			return nil, fmt.Errorf("grpcx: %w", err)
		}
		o.TLS = tc
	}
	var err error
	switch {
	case len(c.ProtoFiles) > 0:
		o.Resolver, err = grpcx.FromProto(context.Background(), c.ImportPaths, c.ProtoFiles...)
	case c.Protoset != "":
		o.Resolver, err = grpcx.FromProtoset(c.Protoset)
	}
	if err != nil {
		return nil, err
	}
	return grpcx.New(o), nil
}
