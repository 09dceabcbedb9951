package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rpcbench/rpcbench/serve/h3serve"
)

// Option changes how New builds a Server; options inject dependencies, the Config says what the
// server does.
type Option func(*options)

type options struct {
	wrap func(http.Handler) http.Handler
}

// WithMiddleware wraps the server's handler, for example to serve net/http/pprof beside it. Paths
// the wrapper answers itself are not lab requests: they are neither delayed nor counted.
func WithMiddleware(wrap func(http.Handler) http.Handler) Option {
	return func(o *options) { o.wrap = wrap }
}

// Server is a running lab service. Create it with New; it is serving when New returns.
//
// The zero value is not usable. All methods are safe for concurrent use.
type Server struct {
	cfg    Config
	ln     net.Listener
	srv    *http.Server
	origin time.Time
	sched  Schedule
	body   []byte
	done   chan struct{} // closed when serving ends

	baseCtx context.Context // cancelled by Close: cuts waits short
	cancel  context.CancelFunc

	mu     sync.Mutex
	idle   *sync.Cond // signalled when active drops to 0
	active int
	closed bool

	next                   atomic.Uint64 // arrival index of the next request
	served, errors, resets atomic.Uint64
	closeOnce              sync.Once
	serveErr               error
	h3                     *h3serve.Server // nil without H3Addr
}

// Stats counts the requests a Server has finished.
type Stats struct {
	Served uint64 // all finished requests: OK + Errors + Resets
	Errors uint64 // answered 500
	Resets uint64 // connection reset
}

// New validates cfg, listens on cfg.Addr and starts serving. The server's start (the origin of its
// stall schedule) is the instant it begins to accept connections.
func New(cfg Config, opts ...Option) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("lab: %w", err)
	}
	s := &Server{cfg: cfg, ln: ln, done: make(chan struct{})}
	s.idle = sync.NewCond(&s.mu)
	s.body = make([]byte, cfg.BodyBytes)
	for i := range s.body {
		s.body[i] = "lab."[i%4]
	}
	s.baseCtx, s.cancel = context.WithCancel(context.Background())
	var h http.Handler = http.HandlerFunc(s.serveHTTP)
	if o.wrap != nil {
		h = o.wrap(h)
	}
	s.srv = &http.Server{
		Handler:           h,
		ReadHeaderTimeout: time.Minute,
		BaseContext:       func(net.Listener) context.Context { return s.baseCtx },
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	if cfg.H3Addr != "" {
		tc, _, err := h3serve.SelfSignedTLS("rpcbench lab")
		if err == nil {
			s.h3, err = h3serve.Listen(cfg.H3Addr, tc, h)
		}
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("lab: HTTP/3: %w", err)
		}
	}
	s.origin = time.Now()
	s.sched = cfg.schedule(s.origin)
	go func() {
		err := s.srv.Serve(ln)
		if !errors.Is(err, http.ErrServerClosed) {
			s.serveErr = err
		}
		close(s.done)
	}()
	return s, nil
}

// URL returns the base URL, e.g. http://127.0.0.1:41234. Any path serves.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// H3Addr returns the UDP host:port of the service over HTTP/3, or "" without it.
func (s *Server) H3Addr() string {
	if s.h3 == nil {
		return ""
	}
	return s.h3.Addr()
}

// Addr returns the address the server listens on, host:port.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Config returns the config the server runs with (Addr filled in with its default).
func (s *Server) Config() Config { return s.cfg }

// Started returns the server's start: the origin of its stall schedule.
func (s *Server) Started() time.Time { return s.origin }

// Schedule returns the server's stall schedule.
func (s *Server) Schedule() Schedule { return s.sched }

// StallWindows returns the stalls that overlap [from, to).
func (s *Server) StallWindows(from, to time.Time) []Window { return s.sched.Windows(from, to) }

// Draw returns the random decisions for the n-th request to arrive (n counts from 0 in the order
// the handler is entered; each answer carries its n in the X-Lab-Seq header). It depends only on
// the Config, so it can be called before, during or after the request.
func (s *Server) Draw(n uint64) Draw { return s.cfg.draw(n) }

// Served returns how many requests have finished, whatever their outcome.
func (s *Server) Served() uint64 { return s.served.Load() }

// Stats returns the counts of finished requests.
func (s *Server) Stats() Stats {
	return Stats{Served: s.served.Load(), Errors: s.errors.Load(), Resets: s.resets.Load()}
}

// serveHTTP handles one request: draw, read the body, wait until Schedule.Finish, answer.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	arrive := time.Now()
	if !s.enter() {
		http.Error(w, "lab: server closing", http.StatusServiceUnavailable)
		return
	}
	defer s.leave()
	n := s.next.Add(1) - 1
	d := s.cfg.draw(n)
	io.Copy(io.Discard, r.Body) //nolint:errcheck // a short body is the client's business
	if s.Burning(arrive) {
		for spun := time.Now(); time.Since(spun) < s.cfg.Burn && r.Context().Err() == nil; {
		}
	}
	if !s.waitUntil(r.Context(), s.sched.Finish(arrive, d.Service)) {
		if s.baseCtx.Err() != nil {
			http.Error(w, "lab: server closing", http.StatusServiceUnavailable)
		}
		return // else the client went away
	}
	// Counted before the answer goes out: once its bytes are on the wire the client may ask
	// Served before this handler returns.
	s.served.Add(1)
	switch d.Outcome {
	case Reset:
		s.resets.Add(1)
		s.reset(w)
	case Error:
		s.errors.Add(1)
		hdr := w.Header()
		hdr["X-Lab-Seq"] = []string{strconv.FormatUint(n, 10)}
		http.Error(w, "lab: injected error", http.StatusInternalServerError)
	default:
		hdr := w.Header()
		hdr["X-Lab-Seq"] = []string{strconv.FormatUint(n, 10)}
		hdr["Content-Type"] = []string{"text/plain; charset=utf-8"}
		hdr["Content-Length"] = []string{strconv.Itoa(len(s.body))}
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			w.Write(s.body) //nolint:errcheck // the client may have gone
		}
	}
}

// Burning says whether instant t is in the burn window (Config.Burn), when each request arriving
// spins the CPU.
func (s *Server) Burning(t time.Time) bool {
	rel := t.Sub(s.origin)
	return s.cfg.Burn > 0 && rel >= s.cfg.BurnStart && rel < s.cfg.BurnStart+s.cfg.BurnFor
}

// reset closes the request's connection with SO_LINGER 0, so the client sees a TCP RST. Should
// the connection not be hijackable (a middleware that hides it), the handler aborts instead, which
// closes the connection without an answer.
func (s *Server) reset(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0) //nolint:errcheck // best effort: a plain close is the fallback
	}
	conn.Close()
}

// waitUntil waits until deadline, or until ctx is done (then it returns false). It sleeps on a
// timer for all but the last SpinWait, which it spends polling the clock.
func (s *Server) waitUntil(ctx context.Context, deadline time.Time) bool {
	d := time.Until(deadline)
	if d <= 0 {
		return true
	}
	if sleep := d - s.cfg.SpinWait; sleep > 0 {
		t := time.NewTimer(sleep)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return false
		}
	}
	for time.Now().Before(deadline) {
		if ctx.Err() != nil {
			return false
		}
		runtime.Gosched()
	}
	return true
}

func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.active++
	return true
}

func (s *Server) leave() {
	s.mu.Lock()
	s.active--
	if s.active == 0 {
		s.idle.Broadcast()
	}
	s.mu.Unlock()
}

// waitIdle marks the server closed to new requests and waits for the active ones to finish.
func (s *Server) waitIdle() {
	s.mu.Lock()
	s.closed = true
	for s.active > 0 {
		s.idle.Wait()
	}
	s.mu.Unlock()
}

// closeGrace bounds how long Close lets cut-short answers reach their clients.
const closeGrace = 2 * time.Second

// Shutdown stops accepting connections and waits until every request in flight has been answered
// on its schedule (a request caught in a stall waits the stall out), or until ctx is done; then it
// closes the server as Close does and returns ctx's error if it was done first.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if err == nil {
		idle := make(chan struct{})
		go func() { s.waitIdle(); close(idle) }() // hijacked (reset) requests are not in Shutdown's count
		select {
		case <-idle:
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return err
}

// Close stops the server at once: requests still waiting (service time or stall) are cut short
// and answered 503, as are requests that arrive on open connections meanwhile. It gives those
// answers up to 2s to be written, closes every connection, and returns when every handler has
// returned. Closing twice is harmless.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		s.cancel()
		ctx, cancel := context.WithTimeout(context.Background(), closeGrace)
		s.srv.Shutdown(ctx) //nolint:errcheck // on timeout, Close below ends what is left
		if s.h3 != nil {
			s.h3.Shutdown(ctx) //nolint:errcheck // it closes its socket whatever happened
		}
		cancel()
		s.srv.Close()
		s.waitIdle()
		<-s.done
	})
	return s.serveErr
}
