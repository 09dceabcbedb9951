package mesh

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"sync/atomic"
	"time"
)

// link carries a State to another peer and brings back its answer. Safe for concurrent use.
type link interface {
	// call delivers st to the peer named to. It returns the peer's answer — the State the chain ended
	// with and, if the chain failed further on, the failure's message — or err if this call failed.
	call(ctx context.Context, to string, st State) (ans State, failure string, err error)
	// close releases the link's connections.
	close()
}

// newLink returns the link of transport t to the peers of the directory. Each HTTP/1.1 connection
// counts against b.
func newLink(t Transport, peers map[string]string, b *connBudget, idlePerHost int) (link, error) {
	switch t {
	case HTTP, H2C:
		return newHTTPLink(t, peers, b, idlePerHost), nil
	case GRPC:
		return newGRPCLink(peers)
	}
	return nil, fmt.Errorf("mesh: unknown transport %q", t)
}

// hopper is the work every peer does on a hop, whatever carries the hop: count it, and, unless the
// chain is long enough, hand it on to the next peer of the queue and wait for the answer. The zero
// value is not usable; a hopper is safe for concurrent use.
type hopper struct {
	name     string
	maxLimit int
	next     link
	hops     atomic.Int64 // hops that arrived here and were counted
}

// arrive handles a State delivered to this peer and returns the State the chain ended with and, if
// it failed, the failure's message.
func (h *hopper) arrive(ctx context.Context, st State) (State, string) {
	if msg := h.check(st); msg != "" {
		return st, msg
	}
	// As the suite's peers do: stamp the arrival, name this peer, move the index on to the next.
	st.HopCount++
	st.Current = time.Now().UnixNano()
	st.Last = h.name
	st.QueueIdx = (st.QueueIdx + 1) % len(st.Queue)
	h.hops.Add(1)
	if st.HopCount >= st.Limit {
		return st, ""
	}
	to := st.Queue[st.QueueIdx]
	ans, failure, err := h.next.call(ctx, to, st)
	if err != nil {
		return st, hopFailure(ctx, st.HopCount+1, h.name, to, err)
	}
	return ans, failure
}

// check validates a State that arrived from the network, so that a bad or misrouted one fails with a
// message instead of looping or indexing out of range.
func (h *hopper) check(st State) string {
	hop := st.HopCount + 1
	switch {
	case st.Limit < 1 || st.Limit > h.maxLimit:
		return fmt.Sprintf("hop %d at %s: limit %d out of range 1 to %d", hop, h.name, st.Limit, h.maxLimit)
	case len(st.Queue) == 0 || len(st.Queue) > MaxQueue:
		return fmt.Sprintf("hop %d at %s: queue of %d names; want 1 to %d", hop, h.name, len(st.Queue), MaxQueue)
	case st.QueueIdx < 0 || st.QueueIdx >= len(st.Queue):
		return fmt.Sprintf("hop %d at %s: queue index %d out of range 0 to %d", hop, h.name, st.QueueIdx, len(st.Queue)-1)
	case st.Queue[st.QueueIdx] != h.name:
		return fmt.Sprintf("hop %d: misrouted: state for %q arrived at %q", hop, st.Queue[st.QueueIdx], h.name)
	case st.HopCount < 0 || st.HopCount >= st.Limit:
		return fmt.Sprintf("hop %d at %s: hop count %d out of range 0 to %d", hop, h.name, st.HopCount, st.Limit-1)
	}
	return ""
}

// hopFailure is the message of a call from one peer to the next that failed.
func hopFailure(ctx context.Context, hop int, from, to string, err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := fmt.Sprintf("hop %d %s→%s: %v", hop, from, to, err)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		msg += " (the chain's deadline passed)"
	}
	return msg
}

// Peer is one peer of the mesh, serving its transport on a listener. It is safe for concurrent use;
// its zero value is not usable: make one with ServePeer or ListenPeer.
type Peer struct {
	h      hopper
	cfg    Config
	ln     net.Listener
	base   context.Context
	cancel context.CancelFunc
	stop   func(ctx context.Context) error // shuts the server down, waiting for calls in flight
	link   link
}

// ListenPeer listens on addr and serves the peer name there; see ServePeer.
func ListenPeer(addr, name string, cfg Config) (*Peer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("mesh: peer %s: %w", name, err)
	}
	p, err := ServePeer(ln, name, cfg)
	if err != nil {
		ln.Close()
	}
	return p, err
}

// ServePeer serves the peer name of cfg.Peers on ln, over cfg.Transport, until Close. It calls the
// other peers at their addresses in cfg.Peers, connecting when first needed, so the peers of a mesh
// can start in any order. ln is usually the address cfg.Peers gives for name, but need not be.
func ServePeer(ln net.Listener, name string, cfg Config) (*Peer, error) {
	files := cfg.fileBudget()
	return servePeer(ln, name, cfg, newConnBudget(files))
}

func servePeer(ln net.Listener, name string, cfg Config, b *connBudget) (*Peer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(cfg.Peers) == 0 {
		return nil, errors.New("mesh: Peers: empty; a peer needs the directory of the mesh")
	}
	if _, ok := cfg.Peers[name]; !ok {
		return nil, fmt.Errorf("mesh: peer %q is not in Peers (%s)", name, quoteNames(cfg.Peers))
	}
	cfg.Peers = maps.Clone(cfg.Peers)
	l, err := newLink(cfg.transport(), cfg.Peers, b, cfg.maxLimit())
	if err != nil {
		return nil, err
	}
	p := &Peer{cfg: cfg, ln: ln, link: l}
	p.h.name, p.h.maxLimit, p.h.next = name, cfg.maxLimit(), l
	p.base, p.cancel = context.WithCancel(context.Background())
	switch cfg.transport() {
	case GRPC:
		p.stop = p.serveGRPC(ln)
	default:
		p.stop = p.serveHTTP(ln, b)
	}
	return p, nil
}

// Name is the peer's name.
func (p *Peer) Name() string { return p.h.name }

// Hops is how many hops have arrived at this peer and been counted since it started.
func (p *Peer) Hops() int64 { return p.h.hops.Load() }

// Addr is the HOST:PORT the peer listens on.
func (p *Peer) Addr() string { return p.ln.Addr().String() }

// hopContext bounds a hop's work: by the deadline that travels with the chain if there is one, else
// by the chain timeout for its limit; and by the peer's life.
func (p *Peer) hopContext(ctx context.Context, deadline time.Time, limit int) (context.Context, context.CancelFunc) {
	var cancel context.CancelFunc
	if !deadline.IsZero() {
		ctx, cancel = context.WithDeadline(ctx, deadline)
	} else {
		ctx, cancel = context.WithTimeout(ctx, p.cfg.ChainTimeout(limit))
	}
	stop := context.AfterFunc(p.base, cancel)
	return ctx, func() { stop(); cancel() }
}

// closeWait bounds how long Close waits for calls in flight, which it has already cancelled.
const closeWait = 5 * time.Second

// Close cancels the chains passing through the peer, stops serving and waits (a few seconds at most)
// for the calls in flight to return.
func (p *Peer) Close() error {
	p.cancel()
	ctx, cancel := context.WithTimeout(context.Background(), closeWait)
	defer cancel()
	err := p.stop(ctx)
	p.link.close()
	return err
}
