package result

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Proto names how requests travel (transport.Protocol is this type). A plan names one (or takes
// the default of its URLs' scheme); the engine makes the transport registered for it.
type Proto string

// The protocols rpcbench knows. A protocol is usable once a package has registered a Maker for it
// (transport/protocols registers every one this module has).
const (
	HTTP1 Proto = "http1" // HTTP/1.1 over TCP or TLS: http://, https://
	H2    Proto = "h2"    // HTTP/2 over TLS, chosen by ALPN: https://
	H2C   Proto = "h2c"   // HTTP/2 over cleartext TCP, with prior knowledge: http://
	GRPC  Proto = "grpc"  // gRPC over HTTP/2: grpc://, grpcs://
	WS    Proto = "ws"    // JSON-RPC messages over WebSocket: ws://, wss://
	H3    Proto = "h3"    // HTTP/3 over QUIC (UDP): https://
)

// protocols holds what each protocol is: the URL schemes it serves, whether it is their default
// protocol, and whether its answers carry HTTP status codes.
var protocols = []struct {
	p       Proto
	schemes []string
	def     bool
	http    bool
}{
	{HTTP1, []string{"http", "https"}, true, true},
	{H2, []string{"https"}, false, true},
	{H2C, []string{"http"}, false, true},
	{GRPC, []string{"grpc", "grpcs"}, true, false},
	{WS, []string{"ws", "wss"}, true, false},
	{H3, []string{"https"}, false, true},
}

// ErrNoTransport is returned for a protocol or URL scheme that no transport serves.
var ErrNoTransport = errors.New("no transport")

// ProtocolFor returns the protocol a URL scheme calls for by default: HTTP/1.1 for http and https,
// WebSocket for ws and wss, gRPC for grpc and grpcs. The scheme is matched without regard to case.
func ProtocolFor(scheme string) (Proto, error) {
	s := strings.ToLower(scheme)
	for _, d := range protocols {
		if d.def && slices.Contains(d.schemes, s) {
			return d.p, nil
		}
	}
	return "", fmt.Errorf("%w for scheme %q: want http, https, ws, wss, grpc or grpcs", ErrNoTransport, scheme)
}

// Serves reports whether p can carry requests to URLs of scheme (h2 only https, h2c only http).
func (p Proto) Serves(scheme string) bool {
	for _, d := range protocols {
		if d.p == p {
			return slices.Contains(d.schemes, strings.ToLower(scheme))
		}
	}
	return false
}

// Known reports whether p is one of the protocols above.
func (p Proto) Known() bool {
	for _, d := range protocols {
		if d.p == p {
			return true
		}
	}
	return false
}

// HTTPStatus reports whether answers of p carry HTTP status codes, which a user may judge
// (--expect-status): HTTP/1.1 and HTTP/2 do; a WebSocket message carries the 101 of its
// connection's upgrade, a gRPC call its own status code. HTTP/3 does as HTTP/2.
func (p Proto) HTTPStatus() bool {
	for _, d := range protocols {
		if d.p == p {
			return d.http
		}
	}
	return false
}

// Success reports whether an answer of p with the given status is a success when the user has not
// said otherwise: an HTTP 2xx or 3xx (as wrk and vegeta count them); for WebSocket, every message
// that arrived (its status is its connection's 101); for gRPC, status 0 (OK).
func (p Proto) Success(status int) bool {
	switch p {
	case WS:
		return status == 101
	case GRPC:
		return status == 0
	}
	return status >= 200 && status < 400
}

// grpcCodes are the names of gRPC's status codes, as grpc-go spells them (codes.Code.String).
var grpcCodes = [...]string{
	"OK", "Canceled", "Unknown", "InvalidArgument", "DeadlineExceeded", "NotFound", "AlreadyExists",
	"PermissionDenied", "ResourceExhausted", "FailedPrecondition", "Aborted", "OutOfRange",
	"Unimplemented", "Internal", "Unavailable", "DataLoss", "Unauthenticated",
}

// StatusName returns how reports name status code of an answer of p: the decimal number of an
// HTTP status ("404"); for gRPC the code's name ("OK", "NotFound", "Unavailable"), or "Code(N)"
// for a code gRPC does not define.
func (p Proto) StatusName(code int) string {
	if p != GRPC {
		return strconv.Itoa(code)
	}
	if code >= 0 && code < len(grpcCodes) {
		return grpcCodes[code]
	}
	return "Code(" + strconv.Itoa(code) + ")"
}

// SuccessName reports whether a status named by StatusName is a success when the user has not said
// otherwise: gRPC's OK, an HTTP 2xx or 3xx, WebSocket's 101.
func SuccessName(name string) bool {
	c, err := strconv.Atoi(name)
	if err != nil {
		return name == "OK"
	}
	return c >= 200 && c < 400 || c == 101
}
