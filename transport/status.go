package transport

import "strconv"

// grpcCodes are the names of gRPC's status codes, as grpc-go spells them (codes.Code.String).
var grpcCodes = [...]string{
	"OK", "Canceled", "Unknown", "InvalidArgument", "DeadlineExceeded", "NotFound", "AlreadyExists",
	"PermissionDenied", "ResourceExhausted", "FailedPrecondition", "Aborted", "OutOfRange",
	"Unimplemented", "Internal", "Unavailable", "DataLoss", "Unauthenticated",
}

// StatusName returns how reports name status code of an answer of p: the decimal number of an
// HTTP status ("404"); for gRPC the code's name ("OK", "NotFound", "Unavailable"), or "Code(N)"
// for a code gRPC does not define.
func (p Protocol) StatusName(code int) string {
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
