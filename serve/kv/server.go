package kv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/cockroachdb/pebble"
)

// DefaultMaxValueBytes is the largest value a PUT may carry when Config.MaxValueBytes is zero.
const DefaultMaxValueBytes = 16 << 20

// Config says how to start a Server. The zero value is ready to use: a store in a new temporary
// directory (removed by Close), synchronous writes, listening on 127.0.0.1 on a free port.
type Config struct {
	// Addr is the host:port to listen on. Empty: "127.0.0.1:0", a free loopback port.
	Addr string
	// Dir is the store's directory, created if missing and kept after Close. Empty: a new
	// temporary directory that Close removes (see Server.Temporary).
	Dir string
	// NoSync acknowledges a write once it is in the store's write-ahead log buffer, in memory,
	// instead of after an fsync of the log. Several times faster for small writes, but a kill -9,
	// a kernel crash or a power cut can lose the last acknowledged writes. False: a 201 or 202
	// means the write is on disk (concurrent writes share one fsync).
	NoSync bool
	// MaxValueBytes caps a PUT's body; larger bodies get 413. Zero: DefaultMaxValueBytes.
	MaxValueBytes int64
	// Prefill, when its Keys or Bytes is set, loads a known set of keys before the server accepts
	// requests (see Prefill).
	Prefill Prefill
	// Wrap, if set, wraps the service's handler, e.g. to serve /debug/pprof/ beside it.
	Wrap func(http.Handler) http.Handler
	// Logf, if set, receives the store's informational messages. Nil: they are dropped.
	Logf func(format string, args ...any)
}

// Server is a running kv service. Its methods are safe for concurrent use; Close may be called
// more than once.
type Server struct {
	db        *pebble.DB
	dir       string
	temporary bool
	sync      *pebble.WriteOptions
	maxValue  int64
	ln        net.Listener
	srv       *http.Server
	served    chan struct{} // closed when srv.Serve returns
	prefilled PrefillStats

	mu       sync.Mutex
	closing  bool
	inflight sync.WaitGroup
	closeErr error
	closed   bool
}

// New opens (or creates) the store, binds cfg.Addr, runs the prefill if asked, and starts serving.
// Connections that arrive during the prefill wait in the listen queue. ctx bounds the start-up
// (the prefill stops when it is cancelled); it does not stop the server: Close does.
func New(ctx context.Context, cfg Config) (_ *Server, err error) {
	if cfg.MaxValueBytes < 0 {
		return nil, fmt.Errorf("kv: MaxValueBytes is %d; want 0 (default) or more", cfg.MaxValueBytes)
	}
	if err := cfg.Prefill.validate(); err != nil {
		return nil, err
	}
	s := &Server{dir: cfg.Dir, maxValue: cfg.MaxValueBytes, sync: pebble.Sync, served: make(chan struct{})}
	if s.maxValue == 0 {
		s.maxValue = DefaultMaxValueBytes
	}
	if cfg.NoSync {
		s.sync = pebble.NoSync
	}
	if s.dir == "" {
		if s.dir, err = os.MkdirTemp("", "rpcbench-kv-*"); err != nil {
			return nil, fmt.Errorf("kv: temporary store directory: %w", err)
		}
		s.temporary = true
	}
	defer func() {
		if err != nil {
			s.release()
		}
	}()
	opts := storeOptions(cfg.Logf)
	if s.db, err = pebble.Open(s.dir, opts); err != nil {
		return nil, fmt.Errorf("kv: open store in %s: %w", s.dir, err)
	}
	addr := cfg.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	if s.ln, err = net.Listen("tcp", addr); err != nil {
		return nil, fmt.Errorf("kv: listen on %s: %w", addr, err)
	}
	if s.prefilled, err = prefill(ctx, s.db, s.dir, opts, cfg.Prefill); err != nil {
		return nil, err
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

// storeOptions tunes Pebble for a write-heavy benchmark target: bigger memtables and L0 limits
// than the defaults, so a prefill or a PUT storm stalls less.
func storeOptions(logf func(string, ...any)) *pebble.Options {
	o := &pebble.Options{
		MemTableSize:                64 << 20,
		MemTableStopWritesThreshold: 4,
		L0CompactionThreshold:       4,
		L0StopWritesThreshold:       32,
		LBaseMaxBytes:               256 << 20,
		MaxConcurrentCompactions:    func() int { return 2 },
		Logger:                      storeLogger{logf},
	}
	return o.EnsureDefaults()
}

// storeLogger routes Pebble's messages to Config.Logf. Pebble calls Fatalf only on a broken
// invariant (such as on-disk corruption) and expects it not to return: it panics.
type storeLogger struct{ logf func(string, ...any) }

func (l storeLogger) Infof(format string, args ...any) {
	if l.logf != nil {
		l.logf(format, args...)
	}
}

func (l storeLogger) Fatalf(format string, args ...any) {
	panic("kv: store: " + fmt.Sprintf(format, args...))
}

// URL is the base URL of the service, "http://127.0.0.1:PORT", without a trailing slash.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Addr is the host:port the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Dir is the store's directory.
func (s *Server) Dir() string { return s.dir }

// Temporary reports whether Dir was created by New and is removed by Close.
func (s *Server) Temporary() bool { return s.temporary }

// Prefilled says what the prefill loaded (zero when there was none).
func (s *Server) Prefilled() PrefillStats { return s.prefilled }

// Close stops accepting requests, waits for the requests in flight to finish, closes the store
// cleanly and, if Dir is temporary, removes it. It returns the store's close error, if any.
func (s *Server) Close() error { return s.Shutdown(context.Background()) }

// Shutdown is Close with a bound: when ctx is done before the requests in flight have finished,
// their connections are closed (so a slow range reader cannot hold the store open forever) and
// Shutdown still waits for their handlers to return before closing the store.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		defer s.mu.Unlock()
		return s.closeErr
	}
	s.closing = true
	s.mu.Unlock()

	if err := s.srv.Shutdown(ctx); err != nil {
		s.srv.Close() //nolint:errcheck // forcing: the connection errors are expected
	}
	<-s.served
	s.inflight.Wait()

	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		s.closeErr = s.release()
	}
	return s.closeErr
}

// release closes what New opened, in reverse order.
func (s *Server) release() error {
	var errs []error
	if s.ln != nil && s.srv == nil {
		errs = append(errs, s.ln.Close())
	}
	if s.db != nil {
		if err := s.db.Close(); err != nil {
			errs = append(errs, fmt.Errorf("kv: close store: %w", err))
		}
	}
	if s.temporary {
		if err := os.RemoveAll(s.dir); err != nil {
			errs = append(errs, fmt.Errorf("kv: remove temporary store: %w", err))
		}
	}
	return errors.Join(errs...)
}

// enter registers a request in flight; false once closing has begun (the store may be closed).
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.inflight.Add(1)
	return true
}

func (s *Server) leave() { s.inflight.Done() }
