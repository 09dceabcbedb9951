package items

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/reflection"

	"github.com/rpcbench/rpcbench/serve/h3serve"
	"github.com/rpcbench/rpcbench/serve/items/rpzpb"
)

// MaxPayloadBytes is the largest PayloadBytes a Config may ask for (16 MiB).
const MaxPayloadBytes = 16 << 20

// maxBodyBytes bounds the body of POST /rpz/items.
const maxBodyBytes = 1 << 20

// Config says how to serve items. It is a plain value; the zero value serves HTTP and gRPC
// (without TLS) on two free ports of 127.0.0.1, with gRPC server reflection, and items without
// payload.
type Config struct {
	// Addr is the host:port of the HTTP (or HTTPS) API; "" means 127.0.0.1:0.
	Addr string
	// GRPCAddr is the host:port of the gRPC service; "" means 127.0.0.1:0.
	GRPCAddr string

	// TLS serves HTTPS and gRPC over TLS. The certificate is self-signed and made at start, for
	// localhost, 127.0.0.1 and ::1, unless CertFile and KeyFile name PEM files (setting them
	// implies TLS). HTTPS offers HTTP/2 and HTTP/1.1; plain HTTP also takes HTTP/2 with prior
	// knowledge (h2c).
	TLS               bool
	CertFile, KeyFile string
	// H3Addr, when set, is the UDP host:port of the HTTP API over HTTP/3 (QUIC), with the
	// certificate of TLS (setting it implies TLS); the HTTPS API then offers it by Alt-Svc.
	H3Addr string

	// PayloadBytes adds a payload of this many bytes to every item returned: printable ASCII in
	// the JSON "payload" member, bytes in Item.payload over gRPC. 0 means no payload.
	PayloadBytes int

	// NoReflection turns off gRPC server reflection, so clients must bring the .proto.
	NoReflection bool
}

// Validate returns every problem of c that can be seen without touching files; nil when none.
func (c Config) Validate() error {
	var errs []error
	if c.PayloadBytes < 0 || c.PayloadBytes > MaxPayloadBytes {
		errs = append(errs, fmt.Errorf("items: PayloadBytes %d is not in [0, %d]", c.PayloadBytes, MaxPayloadBytes))
	}
	if (c.CertFile == "") != (c.KeyFile == "") {
		errs = append(errs, errors.New("items: CertFile and KeyFile go together: set both or neither"))
	}
	return errors.Join(errs...)
}

// Option changes how New builds a Server; options inject dependencies, the Config says what is
// served.
type Option func(*options)

type options struct {
	wrap func(http.Handler) http.Handler
}

// WithMiddleware wraps the HTTP handler, for example to serve net/http/pprof beside the API.
func WithMiddleware(wrap func(http.Handler) http.Handler) Option {
	return func(o *options) { o.wrap = wrap }
}

// Server serves the item API over HTTP (or HTTPS) and gRPC from one store. Create it with New; it
// is serving when New returns.
//
// The zero value is not usable. All methods are safe for concurrent use.
type Server struct {
	cfg     Config
	store   *store
	suffix  []byte // end of every item's JSON: payload and closing brace
	payload []byte // the payload, shared by every gRPC answer

	httpLn, grpcLn net.Listener
	httpSrv        *http.Server
	grpcSrv        *grpc.Server
	certPEM        []byte
	pool           *x509.CertPool
	scheme         string

	closeOnce sync.Once
	wg        sync.WaitGroup // the two serving goroutines
	errMu     sync.Mutex
	serveErr  error
	h3        *h3serve.Server // nil without H3Addr
}

// New validates cfg, makes or loads the certificate when TLS is on, listens on both addresses and
// starts serving.
func New(cfg Config, opts ...Option) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if cfg.CertFile != "" || cfg.H3Addr != "" {
		cfg.TLS = true
	}
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if cfg.GRPCAddr == "" {
		cfg.GRPCAddr = "127.0.0.1:0"
	}
	s := &Server{cfg: cfg, store: newStore(), suffix: payloadSuffix(cfg.PayloadBytes), payload: payload(cfg.PayloadBytes), scheme: "http"}
	var tlsCfg *tls.Config
	if cfg.TLS {
		cert, certPEM, err := loadCert(cfg, time.Now())
		if err != nil {
			return nil, err
		}
		s.certPEM = certPEM
		s.pool = x509.NewCertPool()
		if !s.pool.AppendCertsFromPEM(certPEM) {
			return nil, fmt.Errorf("items: certificate %q holds no PEM certificate", cfg.CertFile)
		}
		tlsCfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		s.scheme = "https"
	}
	var err error
	if s.httpLn, err = net.Listen("tcp", cfg.Addr); err != nil {
		return nil, fmt.Errorf("items: HTTP: %w", err)
	}
	if s.grpcLn, err = net.Listen("tcp", cfg.GRPCAddr); err != nil {
		s.httpLn.Close()
		return nil, fmt.Errorf("items: gRPC: %w", err)
	}

	var h http.Handler = s.handler()
	if o.wrap != nil {
		h = o.wrap(h)
	}
	if cfg.H3Addr != "" {
		if s.h3, err = h3serve.Listen(cfg.H3Addr, tlsCfg, h); err != nil {
			s.httpLn.Close()
			s.grpcLn.Close()
			return nil, fmt.Errorf("items: HTTP/3: %w", err)
		}
		h = s.h3.Advertise(h)
	}
	var protos http.Protocols
	protos.SetHTTP1(true)
	protos.SetHTTP2(true)
	protos.SetUnencryptedHTTP2(true)
	s.httpSrv = &http.Server{
		Handler:           h,
		ReadHeaderTimeout: time.Minute,
		Protocols:         &protos,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	var gopts []grpc.ServerOption
	if tlsCfg != nil {
		s.httpSrv.TLSConfig = tlsCfg.Clone()
		gopts = append(gopts, grpc.Creds(credentials.NewTLS(tlsCfg.Clone())))
	}
	s.grpcSrv = grpc.NewServer(gopts...)
	rpzpb.RegisterItemServiceServer(s.grpcSrv, &itemService{s: s})
	if !cfg.NoReflection {
		reflection.Register(s.grpcSrv)
	}

	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		var err error
		if tlsCfg != nil {
			err = s.httpSrv.ServeTLS(s.httpLn, "", "")
		} else {
			err = s.httpSrv.Serve(s.httpLn)
		}
		if !errors.Is(err, http.ErrServerClosed) {
			s.setErr(fmt.Errorf("items: HTTP: %w", err))
		}
	}()
	go func() {
		defer s.wg.Done()
		if err := s.grpcSrv.Serve(s.grpcLn); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			s.setErr(fmt.Errorf("items: gRPC: %w", err))
		}
	}()
	return s, nil
}

func (s *Server) setErr(err error) {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	if s.serveErr == nil {
		s.serveErr = err
	}
}

// URL returns the base URL of the HTTP API, e.g. http://127.0.0.1:41234 or https://… with TLS.
func (s *Server) URL() string { return s.scheme + "://" + s.httpLn.Addr().String() }

// Addr returns the host:port of the HTTP API.
func (s *Server) Addr() string { return s.httpLn.Addr().String() }

// H3Addr returns the UDP host:port of the HTTP API over HTTP/3, or "" without it.
func (s *Server) H3Addr() string {
	if s.h3 == nil {
		return ""
	}
	return s.h3.Addr()
}

// GRPCAddr returns the host:port of the gRPC service.
func (s *Server) GRPCAddr() string { return s.grpcLn.Addr().String() }

// Config returns the config the server runs with (defaults filled in).
func (s *Server) Config() Config { return s.cfg }

// CertPEM returns the server's certificate in PEM, or nil without TLS.
func (s *Server) CertPEM() []byte { return s.certPEM }

// CertPool returns a pool holding the server's certificate, for clients to trust it; nil without
// TLS.
func (s *Server) CertPool() *x509.CertPool { return s.pool }

// ClientTLSConfig returns a TLS config for clients that trusts the server's certificate; nil
// without TLS.
func (s *Server) ClientTLSConfig() *tls.Config {
	if s.pool == nil {
		return nil
	}
	return &tls.Config{RootCAs: s.pool, MinVersion: tls.VersionTLS12}
}

// Len returns how many items are stored.
func (s *Server) Len() int { return s.store.len() }

// Put stores an item with the current time, as POST /rpz/items does; it is for tests and set-up
// (e.g. to fill the store before a GET benchmark). It fails for an invalid id or a name that is
// not UTF-8 (gRPC could not send it).
func (s *Server) Put(id, name string) error {
	if err := checkID(id); err != nil {
		return fmt.Errorf("items: %w", err)
	}
	if !utf8.ValidString(name) {
		return errors.New("items: name is not valid UTF-8")
	}
	s.store.put(newItem(id, name, time.Now().UTC()))
	return nil
}

// closeGrace bounds how long Close waits for requests in flight.
const closeGrace = 5 * time.Second

// Shutdown stops accepting connections and requests and waits for those in flight to be answered,
// or until ctx is done; then it closes what is left and returns ctx's error if it was done first.
func (s *Server) Shutdown(ctx context.Context) error {
	var err error
	s.closeOnce.Do(func() {
		gdone := make(chan struct{})
		go func() { s.grpcSrv.GracefulStop(); close(gdone) }()
		err = s.httpSrv.Shutdown(ctx)
		if s.h3 != nil {
			if herr := s.h3.Shutdown(ctx); err == nil {
				err = herr
			}
		}
		select {
		case <-gdone:
		case <-ctx.Done():
			if err == nil {
				err = ctx.Err()
			}
		}
		s.httpSrv.Close()
		s.grpcSrv.Stop()
		<-gdone
		s.wg.Wait()
	})
	s.errMu.Lock()
	defer s.errMu.Unlock()
	if err == nil {
		err = s.serveErr
	}
	return err
}

// Close stops the server, giving requests in flight up to 5s to be answered, and returns when
// both services have stopped. Closing twice is harmless.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeGrace)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// handler returns the HTTP API.
func (s *Server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /rpz/items", s.create)
	mux.HandleFunc("GET /rpz/items/{id}", s.get)
	return mux
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	id, name, err := decodeCreate(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, fmt.Sprintf("items: body is over %d bytes", maxBodyBytes), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "items: "+err.Error(), http.StatusBadRequest)
		return
	}
	it := newItem(id, name, time.Now().UTC())
	s.store.put(it)
	s.writeItem(w, it, http.StatusCreated)
}

func (s *Server) get(w http.ResponseWriter, r *http.Request) {
	it, ok := s.store.get(r.PathValue("id"))
	if !ok {
		http.Error(w, "items: no item with this id", http.StatusNotFound)
		return
	}
	s.writeItem(w, it, http.StatusOK)
}

var jsonContentType = []string{"application/json"}

func (s *Server) writeItem(w http.ResponseWriter, it *item, status int) {
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h["Content-Length"] = []string{strconv.Itoa(len(it.json) + len(s.suffix))}
	w.WriteHeader(status)
	w.Write(it.json)  //nolint:errcheck // the client may have gone
	w.Write(s.suffix) //nolint:errcheck
}
