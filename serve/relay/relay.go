package relay

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"

	"github.com/rpcbench/rpcbench/plan"
)

// DefaultMaxIdle is the idle connections kept to the upstream when Config.MaxIdle is 0.
const DefaultMaxIdle = 1024

// Config says where a relay listens and what it forwards to. Upstream is required; the zero
// values of the rest listen on 127.0.0.1:0 and keep DefaultMaxIdle idle connections.
type Config struct {
	// Addr is host:port to listen on; "" is 127.0.0.1:0.
	Addr string
	// Upstream is the URL every request is forwarded to; a request's path is joined to its path.
	Upstream string
	// MaxIdle bounds the idle connections kept to the upstream.
	MaxIdle int
	// Wrap, when set, wraps the relay's handler (to serve /debug/pprof beside it, say).
	Wrap func(http.Handler) http.Handler
}

// Server is a running relay. Its methods are safe for concurrent use.
type Server struct {
	ln  net.Listener
	srv *http.Server
	tr  *http.Transport
	up  *url.URL
}

// New checks cfg, listens and serves until Close or Shutdown.
func New(cfg Config) (*Server, error) {
	up, err := url.Parse(cfg.Upstream)
	if err != nil || up.Scheme != "http" && up.Scheme != "https" || up.Host == "" {
		return nil, fmt.Errorf("relay: upstream %q: want an http:// or https:// URL with a host", plan.RedactURL(cfg.Upstream))
	}
	if cfg.MaxIdle < 0 {
		return nil, fmt.Errorf("relay: max idle %d: want 0 (the default) or more", cfg.MaxIdle)
	}
	if cfg.MaxIdle == 0 {
		cfg.MaxIdle = DefaultMaxIdle
	}
	addr := cfg.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("relay: %w", err)
	}
	tr := &http.Transport{
		Proxy: nil, MaxIdleConns: cfg.MaxIdle, MaxIdleConnsPerHost: cfg.MaxIdle,
		IdleConnTimeout: 90 * time.Second, DialContext: (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
	}
	rp := httputil.NewSingleHostReverseProxy(up)
	rp.Transport = tr
	rp.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) {
		http.Error(w, "relay: upstream: "+err.Error(), http.StatusBadGateway)
	}
	var h http.Handler = rp
	if cfg.Wrap != nil {
		h = cfg.Wrap(h)
	}
	s := &Server{ln: ln, tr: tr, up: up, srv: &http.Server{Handler: fullDuplex(h), ReadHeaderTimeout: 30 * time.Second}}
	go s.srv.Serve(ln)
	return s, nil
}

// fullDuplex lets h read the request body while it writes the answer. A proxy needs it: the
// transport to the upstream sends a body of known length, then reads it once more to see its end,
// and that read can come after the upstream has answered and the relay has begun relaying the
// answer. net/http's HTTP/1 server closes an unread request body when a handler that is not full
// duplex begins its answer; the transport's read then fails, it closes the connection to the
// upstream, and the answer being relayed is cut mid-body ("ReverseProxy read error during body
// copy: … use of closed network connection"). The server always answers HTTP/1, where
// EnableFullDuplex cannot fail.
func fullDuplex(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).EnableFullDuplex()
		h.ServeHTTP(w, r)
	})
}

// URL is where the relay answers: "http://127.0.0.1:PORT/".
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() + "/" }

// Upstream is the URL the relay forwards to.
func (s *Server) Upstream() string { return s.up.String() }

// Shutdown stops listening and waits for requests in flight until ctx ends.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	s.tr.CloseIdleConnections()
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Close stops the relay, waiting for the requests in flight.
func (s *Server) Close() error { return s.Shutdown(context.Background()) }
