package ethrpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// Defaults and limits of Config.
const (
	DefaultBlocks          = 10_000
	MaxBlocks              = 2_000_000
	DefaultTxPerBlock      = 8
	MaxTxPerBlock          = 1000
	DefaultChainID         = 1337
	DefaultMaxBatch        = 1000
	DefaultMaxRequestBytes = 5 << 20
	DefaultMaxStorageRange = 100_000
	DefaultMaxInFlight     = 256
)

// Config says what chain to serve and how. The zero value is ready to use: 10,000 blocks from
// seed 0, chain id 1337, on 127.0.0.1 on a free port.
type Config struct {
	// Addr is the host:port to listen on. Empty: "127.0.0.1:0", a free loopback port.
	Addr string
	// Seed selects the chain: the same seed, Blocks and TxPerBlock give the same chain, block for
	// block and byte for byte. Zero is a seed like any other.
	Seed uint64
	// Blocks is the length of the chain: blocks 0 … Blocks-1, the last is "latest". Zero:
	// DefaultBlocks; at most MaxBlocks. The chain is built in New: about 1 s per 100,000 blocks.
	Blocks uint64
	// TxPerBlock is the average number of transactions in a block (each block draws 0 to twice
	// it; the genesis block has none). Zero: DefaultTxPerBlock; at most MaxTxPerBlock.
	TxPerBlock uint64
	// ChainID is what eth_chainId and net_version answer. Zero: DefaultChainID.
	ChainID uint64
	// MaxBatch caps the calls in one batch; a bigger batch gets one -32600 error. Zero:
	// DefaultMaxBatch.
	MaxBatch int
	// MaxRequestBytes caps an HTTP body or a WebSocket message (413, or the connection closed).
	// Zero: DefaultMaxRequestBytes.
	MaxRequestBytes int64
	// MaxStorageRange caps debug_storageRangeAt's maxResult (above it: -32602). Zero:
	// DefaultMaxStorageRange.
	MaxStorageRange int
	// MaxInFlight caps the calls running at once on one WebSocket connection; the connection is
	// not read while it is reached. Zero: DefaultMaxInFlight.
	MaxInFlight int
	// BlockTime, when above 0, grows the chain by a block every BlockTime from New on, and
	// pushes each to the subscriptions of WebSocket connections (eth_subscribe newHeads, logs,
	// newPendingTransactions; see subscribe.go). Zero: the chain stays as built.
	BlockTime time.Duration
	// NewBlocks, when above 0, stops the block loop after that many blocks: a bounded stream of
	// notifications, for tests that count them. Zero: no end.
	NewBlocks uint64
	// AwaitSubscriptions, when above 0, holds the block loop until that many subscriptions have
	// been made: block 1 is due BlockTime after the last of them (stall windows still count from
	// New). For tests that count every notification of a bounded stream (NewBlocks), so that a
	// client slow to subscribe does not miss the first blocks. Zero: blocks from New on.
	AwaitSubscriptions int
	// StallFor and StallEvery are a fault for tests of subscribers: the notifications of the
	// events due in [k·StallEvery, k·StallEvery + StallFor) after New, k ≥ 1, are held until the
	// window's end, then written at once. Both zero: no stall.
	StallFor, StallEvery time.Duration
	// DropEvery, when above 0, is a fault for tests: the first subscription made on the node
	// loses every DropEvery-th of its notifications (its rpcbenchSeq and, for newHeads, its
	// block number skip one).
	DropEvery int
	// PushDelayPerCall, when above 0, is a fault for tests of subscriptions beside a call load:
	// each block's notifications are held, from the block's due time, PushDelayPerCall for every
	// call the node ran since the block before (on any connection, subscribe calls included), so
	// that push delivery slows as call load rises, as on a node busy with calls.
	PushDelayPerCall time.Duration
	// Wrap, if set, wraps the service's handler, e.g. to serve /debug/pprof/ beside it.
	Wrap func(http.Handler) http.Handler
	// Noise adds a member "noise" with a random value (0x and 16 hex digits) to every answer
	// that has a result: a field that differs between two nodes by nature, for diff's noise
	// learning.
	Noise bool
	// InjectShare, from 0 to 1, is the share of the answers with a result that carry a member
	// "injected": true, a difference at a known path: the answers numbered n (from 1, in the
	// order they are made) for which floor(n*InjectShare) grows, so exactly
	// floor(N*InjectShare) of the first N. Injected says how many so far.
	InjectShare float64
}

// Server is a running node. Its methods are safe for concurrent use; Close may be called more
// than once.
type Server struct {
	chain           *chain
	maxBatch        int
	maxRequest      int64
	maxStorageRange int
	maxInFlight     int
	noise           bool
	injectShare     float64
	answers         atomic.Uint64 // answers with a result, for InjectShare
	injected        atomic.Uint64
	ln              net.Listener
	srv             *http.Server
	served          chan struct{}
	bufs            sync.Pool // *[]byte answer buffers

	// Subscriptions: the block loop and its faults.
	blockTime, stallFor, stallEvery time.Duration
	newBlocks                       uint64
	dropEvery                       int
	pushDelay                       time.Duration // PushDelayPerCall
	sinceBlock                      atomic.Uint64 // calls run since the last block, with pushDelay
	notified                        atomic.Uint64 // notifications written
	clock0                          time.Time     // the block loop's time 0
	stop, published                 chan struct{}
	stopOnce                        sync.Once
	subMu                           sync.Mutex
	subs                            map[string]*subscription // by id; those whose answer is out
	opened                          int                      // subscriptions activated so far
	awaitSubs                       int                      // Config.AwaitSubscriptions
	subscribed                      chan struct{}            // closed when awaitSubs are opened
	relMu                           sync.Mutex
	releases                        []Release // see StallReleases

	mu       sync.Mutex
	closing  bool
	closed   bool
	inflight sync.WaitGroup
	conns    map[*wsConn]struct{}
}

// New binds cfg.Addr, builds the chain and starts serving; connections that arrive during the
// build wait in the listen queue. ctx bounds the build.
func New(ctx context.Context, cfg Config) (*Server, error) {
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Addr) // first, so that a busy port fails fast
	if err != nil {
		return nil, fmt.Errorf("ethrpc: listen on %s: %w", cfg.Addr, err)
	}
	c, err := newChain(ctx, cfg.Seed, cfg.ChainID, cfg.Blocks, cfg.TxPerBlock)
	if err != nil {
		ln.Close()
		return nil, err
	}
	s := &Server{
		chain: c, maxBatch: cfg.MaxBatch, maxRequest: cfg.MaxRequestBytes,
		maxStorageRange: cfg.MaxStorageRange, maxInFlight: cfg.MaxInFlight,
		noise: cfg.Noise, injectShare: cfg.InjectShare,
		ln: ln, served: make(chan struct{}), conns: map[*wsConn]struct{}{},
		blockTime: cfg.BlockTime, stallFor: cfg.StallFor, stallEvery: cfg.StallEvery, dropEvery: cfg.DropEvery,
		newBlocks: cfg.NewBlocks, pushDelay: cfg.PushDelayPerCall, awaitSubs: cfg.AwaitSubscriptions, subscribed: make(chan struct{}),
		stop: make(chan struct{}), published: make(chan struct{}), subs: map[string]*subscription{},
	}
	s.clock0 = time.Now()
	if s.blockTime > 0 {
		go s.publish()
	}
	var h http.Handler = s
	if cfg.Wrap != nil {
		h = cfg.Wrap(h)
	}
	s.srv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	go func() {
		defer close(s.served)
		s.srv.Serve(s.ln) //nolint:errcheck // returns ErrServerClosed after Shutdown
	}()
	return s, nil
}

// fill applies the defaults and checks the limits.
func (c *Config) fill() error {
	def := func(v *uint64, d uint64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.Blocks, DefaultBlocks)
	def(&c.TxPerBlock, DefaultTxPerBlock)
	def(&c.ChainID, DefaultChainID)
	if c.Addr == "" {
		c.Addr = "127.0.0.1:0"
	}
	if c.MaxBatch == 0 {
		c.MaxBatch = DefaultMaxBatch
	}
	if c.MaxRequestBytes == 0 {
		c.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if c.MaxStorageRange == 0 {
		c.MaxStorageRange = DefaultMaxStorageRange
	}
	if c.MaxInFlight == 0 {
		c.MaxInFlight = DefaultMaxInFlight
	}
	var errs []error
	if c.Blocks > MaxBlocks {
		errs = append(errs, fmt.Errorf("ethrpc: Blocks is %d; want at most %d", c.Blocks, MaxBlocks))
	}
	if c.TxPerBlock > MaxTxPerBlock {
		errs = append(errs, fmt.Errorf("ethrpc: TxPerBlock is %d; want at most %d", c.TxPerBlock, MaxTxPerBlock))
	}
	if !(c.InjectShare >= 0 && c.InjectShare <= 1) {
		errs = append(errs, fmt.Errorf("ethrpc: InjectShare is %v; want 0 to 1", c.InjectShare))
	}
	if c.MaxBatch < 0 || c.MaxRequestBytes < 0 || c.MaxStorageRange < 0 || c.MaxInFlight < 0 {
		errs = append(errs, errors.New("ethrpc: MaxBatch, MaxRequestBytes, MaxStorageRange and MaxInFlight must not be negative"))
	}
	if c.BlockTime < 0 || c.StallFor < 0 || c.StallEvery < 0 || c.DropEvery < 0 || c.PushDelayPerCall < 0 || c.AwaitSubscriptions < 0 {
		errs = append(errs, errors.New("ethrpc: BlockTime, StallFor, StallEvery, DropEvery, PushDelayPerCall and AwaitSubscriptions must not be negative"))
	}
	if (c.StallFor > 0) != (c.StallEvery > 0) || c.StallFor >= c.StallEvery && c.StallEvery > 0 {
		errs = append(errs, fmt.Errorf("ethrpc: StallFor %v and StallEvery %v: give both, StallFor shorter than StallEvery", c.StallFor, c.StallEvery))
	}
	return errors.Join(errs...)
}

// URL is the HTTP endpoint, "http://127.0.0.1:PORT/".
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() + "/" }

// WebSocketURL is the WebSocket endpoint, "ws://127.0.0.1:PORT/".
func (s *Server) WebSocketURL() string { return "ws://" + s.ln.Addr().String() + "/" }

// Addr is the host:port the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Injected is how many answers carried the injected member so far (Config.InjectShare).
func (s *Server) Injected() uint64 { return s.injected.Load() }

// Notified is the number of subscription notifications written to connections so far.
func (s *Server) Notified() uint64 { return s.notified.Load() }

// Head is the number of the latest block.
func (s *Server) Head() uint64 { return s.chain.head() }

// BlockHash is the hash of block n as eth_getBlockByNumber shows it ("0x…"); "" past the head.
func (s *Server) BlockHash(n uint64) string {
	if n > s.chain.head() {
		return ""
	}
	h := s.chain.hashAt(n)
	return string(appendData(nil, h[:]))
}

// Close stops accepting calls, waits for those in flight to be answered, and closes every
// connection (WebSocket ones with status 1001, going away).
func (s *Server) Close() error { return s.Shutdown(context.Background()) }

// Shutdown is Close with a bound: when ctx is done first, the remaining connections are cut and
// Shutdown waits only for the handlers to return.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closing = true
	s.mu.Unlock()
	s.stopPublishing()
	s.mu.Lock()
	conns := make([]*wsConn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()

	if err := s.srv.Shutdown(ctx); err != nil {
		s.srv.Close() //nolint:errcheck // forcing: the connection errors are expected
	}
	<-s.served
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() { c.shutdown(ctx) })
	}
	wg.Wait()
	s.inflight.Wait()
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	return nil
}

func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.inflight.Add(1)
	return true
}

// ServeHTTP answers JSON-RPC POSTed to /, and upgrades GET / to a WebSocket.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
		return
	}
	defer s.inflight.Done()
	if r.URL.Path != "/" {
		http.Error(w, "not found: JSON-RPC is served on /", http.StatusNotFound)
		return
	}
	if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		s.serveWebSocket(w, r)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "method not allowed: POST JSON-RPC calls to /, or open a WebSocket on it", http.StatusMethodNotAllowed)
		return
	}
	if r.ContentLength > s.maxRequest {
		http.Error(w, fmt.Sprintf("body of %d bytes is over the limit of %d", r.ContentLength, s.maxRequest), http.StatusRequestEntityTooLarge)
		return
	}
	in := s.getBuf()
	defer s.putBuf(in)
	body, err := readBody(r.Body, (*in)[:0], s.maxRequest)
	if err != nil {
		code := http.StatusBadRequest
		if errors.Is(err, errTooLarge) {
			code = http.StatusRequestEntityTooLarge
		}
		http.Error(w, err.Error(), code)
		return
	}
	*in = body[:0]
	buf := s.getBuf()
	defer s.putBuf(buf)
	out := s.handle(body, (*buf)[:0])
	*buf = out[:0]
	w.Header().Set("Content-Type", "application/json")
	w.Write(out) //nolint:errcheck // the client went away
}

var errTooLarge = errors.New("request body over the size limit")

// readBody appends all of r to b, up to limit bytes.
func readBody(r io.Reader, b []byte, limit int64) ([]byte, error) {
	for {
		if int64(len(b)) > limit {
			return nil, errTooLarge
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			if int64(len(b)) > limit {
				return nil, errTooLarge
			}
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func (s *Server) getBuf() *[]byte {
	if b, ok := s.bufs.Get().(*[]byte); ok {
		return b
	}
	b := make([]byte, 0, 4096)
	return &b
}

// putBuf returns a buffer to the pool, unless it grew too big to keep.
func (s *Server) putBuf(b *[]byte) {
	if cap(*b) <= 1<<20 {
		s.bufs.Put(b)
	}
}

// wsConn is one WebSocket connection and its calls in flight.
type wsConn struct {
	c       *websocket.Conn
	mu      sync.Mutex
	closing bool
	calls   sync.WaitGroup
	done    chan struct{} // closed when the read loop ends
	notes   chan note     // notifications to write; nil until the first subscription
	writer  chan struct{} // closed when the notification writer returns
}

// wsWriteTimeout bounds one answer's write: a client that stops reading loses its connection.
const wsWriteTimeout = 30 * time.Second

func (s *Server) serveWebSocket(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		InsecureSkipVerify: true, // a benchmark target: any origin may call it
		CompressionMode:    websocket.CompressionDisabled,
	})
	if err != nil {
		return // Accept has answered
	}
	c.SetReadLimit(s.maxRequest)
	wc := &wsConn{c: c, done: make(chan struct{})}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		c.Close(websocket.StatusGoingAway, "server shutting down") //nolint:errcheck
		return
	}
	s.conns[wc] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, wc)
		s.mu.Unlock()
	}()

	sem := make(chan struct{}, s.maxInFlight)
	for {
		typ, msg, err := c.Read(context.Background())
		if err != nil {
			break // closed by the peer, by shutdown, or broken
		}
		sem <- struct{}{}
		if !wc.begin() {
			<-sem
			continue // shutting down: the close frame follows
		}
		go func() {
			defer func() { <-sem; wc.calls.Done() }()
			buf := s.getBuf()
			cc := callConn{wc: wc}
			out := s.handleOn(msg, (*buf)[:0], &cc)
			if len(out) > 0 {
				ctx, cancel := context.WithTimeout(context.Background(), wsWriteTimeout)
				c.Write(ctx, typ, out) //nolint:errcheck // a broken connection ends the read loop
				cancel()
			}
			s.activate(&cc)
			*buf = out[:0]
			s.putBuf(buf)
		}()
	}
	wc.calls.Wait()
	s.forget(wc)
	close(wc.done)
	wc.mu.Lock()
	writer := wc.writer
	wc.mu.Unlock()
	if writer != nil {
		<-writer
	}
	c.CloseNow() //nolint:errcheck // already closed, usually
}

// begin registers a call in flight; false once the connection is shutting down.
func (wc *wsConn) begin() bool {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	if wc.closing {
		return false
	}
	wc.calls.Add(1)
	return true
}

// shutdown stops taking calls, lets those in flight answer (until ctx is done), then closes.
func (wc *wsConn) shutdown(ctx context.Context) {
	wc.mu.Lock()
	wc.closing = true
	wc.mu.Unlock()
	done := make(chan struct{})
	go func() { wc.calls.Wait(); close(done) }()
	select {
	case <-done:
		closed := make(chan struct{})
		go func() { wc.c.Close(websocket.StatusGoingAway, "server shutting down"); close(closed) }() //nolint:errcheck
		select {
		case <-closed:
		case <-ctx.Done():
			wc.c.CloseNow() //nolint:errcheck
		}
	case <-ctx.Done():
		wc.c.CloseNow() //nolint:errcheck
	}
}
