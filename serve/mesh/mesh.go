package mesh

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"

	"google.golang.org/grpc"
)

// Mesh is a gateway served over HTTP, with the peers it started in this process, if any. It is safe
// for concurrent use; its zero value is not usable: make one with Start or Listen.
type Mesh struct {
	gw     *Gateway
	ln     net.Listener
	srv    *http.Server
	cancel context.CancelFunc
	peers  []*Peer
	// grpcSrvs serve the gateway's gRPC entry (ListenGRPC); Close stops them.
	grpcSrvs []*grpc.Server
}

// Option changes how Listen serves the gateway. A nil Option is not allowed.
type Option func(*options)

type options struct {
	middleware func(http.Handler) http.Handler
}

// WithMiddleware serves wrap(gateway) instead of the gateway, for instance to add a profiler.
func WithMiddleware(wrap func(http.Handler) http.Handler) Option {
	return func(o *options) { o.middleware = wrap }
}

// Start is Listen on 127.0.0.1:0: a gateway and peers A–E (or cfg.Peers) on loopback ports, like
// httptest.NewServer. Close it when done.
func Start(cfg Config) (*Mesh, error) { return Listen("127.0.0.1:0", cfg) }

// Listen serves a gateway over HTTP on addr. If cfg.Peers is empty, it first starts peers A–E in this
// process, each on its own 127.0.0.1:0 port, over cfg.Transport; else the gateway calls the peers at
// the addresses of cfg.Peers, which run elsewhere (ServePeer, or `rpcbench serve mesh --peer`).
func Listen(addr string, cfg Config, opts ...Option) (*Mesh, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := &Mesh{}
	b := newConnBudget(cfg.fileBudget())
	local := len(cfg.Peers) == 0
	if local {
		peers, err := m.startPeers(cfg, b)
		if err != nil {
			m.Close()
			return nil, err
		}
		cfg.Peers = peers
	}
	gw, err := newGateway(cfg, b, local)
	if err != nil {
		m.Close()
		return nil, err
	}
	m.gw = gw
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		m.Close()
		return nil, fmt.Errorf("mesh: gateway: %w", err)
	}
	var h http.Handler = gw
	if o.middleware != nil {
		h = o.middleware(h)
	}
	base, cancel := context.WithCancel(context.Background())
	m.ln, m.cancel = ln, cancel
	m.srv = newHTTPServer(h, base, b)
	go m.srv.Serve(ln) //nolint:errcheck // returns ErrServerClosed after Shutdown
	return m, nil
}

// startPeers binds a loopback port for each default peer, then serves each with the full directory.
func (m *Mesh) startPeers(cfg Config, b *connBudget) (map[string]string, error) {
	var lns []net.Listener
	peers := map[string]string{}
	for _, n := range DefaultNames() {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			for _, l := range lns {
				l.Close()
			}
			return nil, fmt.Errorf("mesh: peer %s: %w", n, err)
		}
		lns = append(lns, ln)
		peers[n] = ln.Addr().String()
	}
	cfg.Peers = peers
	for i, n := range DefaultNames() {
		p, err := servePeer(lns[i], n, cfg, b)
		if err != nil {
			for _, l := range lns[i:] {
				l.Close()
			}
			return nil, err
		}
		m.peers = append(m.peers, p)
	}
	return peers, nil
}

// URL is the gateway's base URL, such as http://127.0.0.1:41234.
func (m *Mesh) URL() string { return "http://" + m.ln.Addr().String() }

// Addr is the HOST:PORT the gateway listens on.
func (m *Mesh) Addr() string { return m.ln.Addr().String() }

// Gateway is the gateway the Mesh serves, to start chains without HTTP.
func (m *Mesh) Gateway() *Gateway { return m.gw }

// Peers returns a copy of the directory: the peers' names and addresses.
func (m *Mesh) Peers() map[string]string { return maps.Clone(m.gw.cfg.Peers) }

// Peer returns the peer of that name if Listen started it in this process, else nil.
func (m *Mesh) Peer(name string) *Peer {
	for _, p := range m.peers {
		if p.Name() == name {
			return p
		}
	}
	return nil
}

// Close cancels the chains in flight, stops the gateway and the peers it started, and waits (a few
// seconds at most) for their calls to return.
func (m *Mesh) Close() error {
	var errs []error
	if m.cancel != nil {
		m.cancel()
	}
	for _, p := range m.peers {
		p.cancel() // cancel everything first, so no peer waits for another while closing
	}
	if m.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), closeWait)
		if err := m.srv.Shutdown(ctx); err != nil {
			m.srv.Close()
			errs = append(errs, fmt.Errorf("mesh: gateway: %w", err))
		}
		cancel()
	}
	for _, srv := range m.grpcSrvs {
		srv.Stop() // the chains were canceled above: their calls end at once
	}
	for _, p := range m.peers {
		errs = append(errs, p.Close())
	}
	if m.gw != nil {
		m.gw.Close()
	}
	return errors.Join(errs...)
}
