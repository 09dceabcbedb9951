package runner

import (
	"context"
	"errors"
	"net/url"
	"strings"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/transport"
)

// PreflightError is what the pre-flight found wrong before anything was sent: a method the server
// does not have, a body that is not the method's request, a server that could not be reached.
type PreflightError struct {
	// Connect says the server could not be reached; otherwise the plan asked for what it does not
	// serve.
	Connect bool
	Err     error
}

// Error says it without the package prefixes, which say nothing to a user.
func (e *PreflightError) Error() string {
	msg := strings.TrimPrefix(e.Err.Error(), "plan's protocol \"grpc\": ")
	return strings.ReplaceAll(msg, "grpcx: ", "")
}

func (e *PreflightError) Unwrap() error { return e.Err }

// preparer is a transport that can check a request before the run (grpcx: the connection, the
// method, a static body).
type preparer interface {
	Prepare(context.Context, *transport.Request) error
}

// Preflight checks prep as Run does before it sends anything (gRPC: the connection, the method,
// each static body), and lets the transport go: a *PreflightError says what is wrong. For a plan
// whose transport has no such check it returns nil at once.
func Preflight(ctx context.Context, prep *plan.Prepared) error {
	_, done, err := preflight(ctx, prep)
	if err == nil {
		done()
	}
	return err
}

// preflight makes the transport of prep's plan and, when it can check a request before the run,
// checks each endpoint's (a templated URL or body is checked call by call during the run). It
// returns the option that hands the transport to the engine and the function that closes it; no
// option when the transport has no such check.
func preflight(ctx context.Context, prep *plan.Prepared) ([]engine.Option, func(), error) {
	np := prep.Plan
	tr, err := engine.NewTransport(np, prep.Verifier != nil)
	if err != nil {
		return nil, nil, &PreflightError{Err: err}
	}
	pr, ok := tr.(preparer)
	if !ok {
		tr.Close()
		return nil, func() {}, nil
	}
	for i, e := range np.Endpoints {
		if plan.HasTemplate(e.URL) {
			continue
		}
		u, err := url.Parse(e.URL)
		if err != nil {
			continue // Validate has said so
		}
		r := &transport.Request{Endpoint: i, Scheme: u.Scheme, Host: u.Host, Path: []byte(u.Path), Header: e.Header}
		if !plan.HasTemplate(string(e.Body)) {
			r.Body = e.Body
		}
		if err := pr.Prepare(ctx, r); err != nil {
			tr.Close()
			if ctx.Err() != nil {
				return nil, nil, err
			}
			return nil, nil, &PreflightError{Connect: errors.Is(err, transport.ErrConnect), Err: err}
		}
	}
	return []engine.Option{engine.WithTransport(tr)}, func() { tr.Close() }, nil
}
