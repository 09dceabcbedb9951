package engine

import (
	"fmt"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/transport"
	"github.com/rpcbench/rpcbench/transport/httpx"
	"github.com/rpcbench/rpcbench/transport/ws"
)

// NewTransport returns the transport that the URLs of a Normalized plan call for, configured from
// the plan's time limits and TLS settings: for http and https HTTP/1.1; for ws and wss JSON-RPC
// over WebSocket, with the closed model's number of connections, or in the open model as many as
// the calls in flight need (ws.DefaultSpread calls each), up to the cap of connections. keepBody
// keeps answer bodies for a Verifier. The caller closes it.
func NewTransport(p plan.Plan, keepBody bool) (transport.Transport, error) {
	web := 0
	for i, e := range p.Endpoints {
		switch scheme := schemeOf(e.URL); scheme {
		case "http", "https":
		case "ws", "wss":
			web++
		default:
			return nil, fmt.Errorf("endpoint %d: %w (scheme %q)", i+1, ErrNoTransport, scheme)
		}
	}
	if web > 0 {
		if web < len(p.Endpoints) {
			return nil, fmt.Errorf("%w: ws and http endpoints in one run; run them apart", ErrNoTransport)
		}
		// a WebSocket connection is opened to one URL and carries every call after: endpoints
		// differ by their calls (methods, params), not by where they go
		for _, e := range p.Endpoints[1:] {
			if e.URL != p.Endpoints[0].URL {
				return nil, fmt.Errorf("%w: WebSocket endpoints must share one URL, got %s and %s; run them apart", ErrNoTransport, p.Endpoints[0].URL, e.URL)
			}
		}
		spread := 0 // closed model: the connections asked for, each carrying its share
		if p.Load.Model == plan.Open {
			spread = ws.DefaultSpread // Connections caps the calls in flight: open only what they need
		}
		return ws.New(ws.Options{
			Conns:              p.Load.Connections,
			Spread:             spread,
			Timeout:            p.HTTP.Timeout,
			ConnectTimeout:     p.HTTP.ConnectTimeout,
			InsecureSkipVerify: p.HTTP.Insecure,
			KeepBody:           keepBody,
		}), nil
	}
	return httpx.New(httpx.Options{
		Timeout:            p.HTTP.Timeout,
		ConnectTimeout:     p.HTTP.ConnectTimeout,
		MaxConns:           p.Load.Connections,
		DisableKeepAlive:   p.HTTP.DisableKeepAlive,
		InsecureSkipVerify: p.HTTP.Insecure,
		KeepBody:           keepBody,
		MaxBody:            p.HTTP.MaxBody,
	})
}

func schemeOf(u string) string {
	for i := 0; i < len(u); i++ {
		if u[i] == ':' {
			return u[:i]
		}
	}
	return ""
}
