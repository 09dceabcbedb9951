package transport

import (
	"context"
	"errors"

	"github.com/rpcbench/rpcbench/result"
)

// Header is one request header line. Headers are kept as an ordered list, as they are sent.
type Header = result.RequestHeader

// Request is one request ready to send; see result.Request.
type Request = result.Request

// Outcome is what a Transport reports about one request; see result.Outcome.
type Outcome = result.Outcome

// Transport sends requests and says what happened. Do blocks until the answer has been read in
// full, the request failed, or ctx is done; it never returns an error: failures are recorded in
// out. Implementations are safe for concurrent use and keep their own connections; Close releases
// them.
type Transport interface {
	Do(ctx context.Context, r *Request, out *Outcome)
	Close() error
}

// ErrConnect wraps a transport's failure to connect to the server when it checks a request before
// the run (a Prepare method, as grpcx has): the server's state rather than the request explains it.
var ErrConnect = errors.New("cannot connect")
