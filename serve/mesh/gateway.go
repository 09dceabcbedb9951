package mesh

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"time"
)

// Gateway starts chains: POST /peer/hop over the transport, POST /staticPeer/hop as function calls.
// It is an http.Handler, safe for concurrent use; its zero value is not usable: make one with
// NewGateway (or Start and Listen, which serve one).
type Gateway struct {
	cfg    Config
	link   link
	static map[string]*hopper
	budget *connBudget
	// local: the peers run in this process and share budget, so an HTTP/1.1 hop costs two of its
	// file descriptors and a chain too deep for them is refused before it starts.
	local bool
}

// NewGateway returns a gateway to the peers of cfg.Peers (required). Close releases its connections.
func NewGateway(cfg Config) (*Gateway, error) {
	return newGateway(cfg, newConnBudget(cfg.fileBudget()), false)
}

func newGateway(cfg Config, b *connBudget, local bool) (*Gateway, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(cfg.Peers) == 0 {
		return nil, errors.New("mesh: Peers: empty; a gateway needs the directory of the mesh")
	}
	cfg.Peers = maps.Clone(cfg.Peers)
	l, err := newLink(cfg.transport(), cfg.Peers, b, cfg.maxLimit())
	if err != nil {
		return nil, err
	}
	g := &Gateway{cfg: cfg, link: l, budget: b, local: local, static: map[string]*hopper{}}
	// The static peers do the same work per hop as the real ones, with a function call for a link.
	direct := directLink(g.static)
	for n := range cfg.Peers {
		g.static[n] = &hopper{name: n, maxLimit: cfg.maxLimit(), next: direct}
	}
	return g, nil
}

// directLink hands a State to a peer of the map by a plain function call.
type directLink map[string]*hopper

func (d directLink) call(ctx context.Context, to string, st State) (State, string, error) {
	h, ok := d[to]
	if !ok {
		return st, "", fmt.Errorf("unknown peer %q", to)
	}
	ans, failure := h.arrive(ctx, st)
	return ans, failure, nil
}

func (directLink) close() {}

// Peers returns a copy of the directory the gateway calls.
func (g *Gateway) Peers() map[string]string { return maps.Clone(g.cfg.Peers) }

// Transport is the transport the gateway and its peers use.
func (g *Gateway) Transport() Transport { return g.cfg.transport() }

// Close releases the gateway's idle connections to the peers.
func (g *Gateway) Close() error {
	g.link.close()
	return nil
}

// Hop runs the chain req asks for over the transport and returns its Response. The error is nil on
// success; else it wraps ErrBadRequest (the chain did not start), or ErrChain and maybe ErrTimeout
// (it started and failed; the Response says how far it got).
func (g *Gateway) Hop(ctx context.Context, req HopRequest) (Response, error) {
	return g.run(ctx, req, g.link)
}

// StaticHop runs the chain req asks for as plain function calls between the same peers, in this
// process: the baseline without a network. Errors are as for Hop.
func (g *Gateway) StaticHop(ctx context.Context, req HopRequest) (Response, error) {
	return g.run(ctx, req, directLink(g.static))
}

func (g *Gateway) run(ctx context.Context, req HopRequest, l link) (Response, error) {
	if err := g.check(req, l); err != nil {
		return Response{Error: ptr(err.Error())}, err
	}
	timeout := g.cfg.ChainTimeout(req.Limit)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	st := State{Start: start.UnixNano(), Queue: slices.Clone(req.Queue), Limit: req.Limit}
	ans, failure, err := l.call(ctx, st.Queue[0], st)
	// Current is Start plus the monotonic time elapsed, so HopLatency agrees with the times shown
	// even if the wall clock was stepped meanwhile.
	elapsed := time.Since(start).Nanoseconds()
	if err != nil {
		ans, failure = st, hopFailure(ctx, 1, "gateway", st.Queue[0], err)
	}
	ans.Start, ans.Current = st.Start, st.Start+elapsed
	if failure == "" && ans.HopCount != req.Limit {
		failure = fmt.Sprintf("the chain came back with %d hops; want %d", ans.HopCount, req.Limit)
	}
	if failure != "" {
		wrap := ErrChain
		// A peer may notice the shared deadline and answer a moment before the gateway's own timer.
		if d, _ := ctx.Deadline(); errors.Is(ctx.Err(), context.DeadlineExceeded) || !time.Now().Before(d) {
			failure = fmt.Sprintf("chain did not finish within %v (%s): %s", timeout, g.cfg.timeoutHint(req.Limit), failure)
			wrap = errors.Join(ErrChain, ErrTimeout)
		}
		return Response{State: ans, Error: &failure}, fmt.Errorf("%w: %s", wrap, failure)
	}
	ans.HopLatency = elapsed / int64(ans.HopCount)
	return Response{State: ans}, nil
}

// check validates req for a chain over l.
func (g *Gateway) check(req HopRequest, l link) error {
	if err := checkRequest(req, g.cfg.Peers, g.cfg.maxLimit()); err != nil {
		return err
	}
	if _, static := l.(directLink); static || !g.local || g.budget == nil || g.cfg.transport() != HTTP {
		return nil
	}
	// In one process an open HTTP/1.1 hop holds both ends of its connection.
	if need := 2 * int64(req.Limit); need > int64(g.budget.limit) {
		return badRequest("limit %d over HTTP/1.1 needs about %d file descriptors in this process (two per open hop); "+
			"the open-file limit leaves %d: lower the limit, raise ulimit -n, or use transport h2c or grpc",
			req.Limit, need, g.budget.limit)
	}
	return nil
}

// ServeHTTP serves POST /peer/hop, POST /staticPeer/hop and GET /peers (the directory and transport).
// Answers are JSON Responses: 200, 400 for a bad request, 502 for a failed chain, 504 for one out of
// time.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/peer/hop", "/staticPeer/hop":
	case "/peers":
		writeJSON(w, http.StatusOK, struct {
			Transport Transport
			Peers     map[string]string
		}{g.cfg.transport(), g.cfg.Peers})
		return
	default:
		writeJSON(w, http.StatusNotFound, Response{Error: ptr(fmt.Sprintf("no such path %q; want POST /peer/hop or POST /staticPeer/hop", r.URL.Path))})
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeJSON(w, http.StatusMethodNotAllowed, Response{Error: ptr(r.Method + " " + r.URL.Path + ": use POST")})
		return
	}
	var req HopRequest
	if err := decodeStrict(http.MaxBytesReader(w, r.Body, maxBody), &req); err != nil {
		msg := fmt.Sprintf("%v: body: %v; want {\"queue\":[\"A\",\"B\"],\"limit\":N}", ErrBadRequest, err)
		writeJSON(w, http.StatusBadRequest, Response{Error: &msg})
		return
	}
	run := g.Hop
	if r.URL.Path == "/staticPeer/hop" {
		run = g.StaticHop
	}
	resp, err := run(r.Context(), req)
	code := http.StatusOK
	switch {
	case errors.Is(err, ErrBadRequest):
		code = http.StatusBadRequest
	case errors.Is(err, ErrTimeout):
		code = http.StatusGatewayTimeout
	case err != nil:
		code = http.StatusBadGateway
	}
	writeJSON(w, code, resp)
}
