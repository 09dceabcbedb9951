package transport

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"os"
	"syscall"

	"github.com/rpcbench/rpcbench/result"
)

// Classify returns the class of a transport error: refused, timeout, reset, tls, dns, canceled, or
// other. Protocol errors are classed by the transports that detect them.
func Classify(err error) result.Class {
	var (
		dnsErr  *net.DNSError
		certErr *tls.CertificateVerificationError
		recErr  tls.RecordHeaderError
		alert   tls.AlertError
		unknown x509.UnknownAuthorityError
		hostErr x509.HostnameError
		invalid x509.CertificateInvalidError
		netErr  net.Error
		opErr   *net.OpError
	)
	switch {
	case err == nil:
		return result.OK
	case errors.Is(err, context.Canceled):
		return result.Canceled
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return result.Timeout
	case errors.Is(err, syscall.ECONNREFUSED):
		return result.Refused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, io.EOF),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNABORTED):
		return result.Reset
	case errors.As(err, &dnsErr):
		return result.DNS
	case errors.As(err, &certErr), errors.As(err, &recErr), errors.As(err, &alert),
		errors.As(err, &unknown), errors.As(err, &hostErr), errors.As(err, &invalid),
		errors.As(err, &opErr) && opErr.Op == "remote error": // crypto/tls: an alert from the peer
		return result.TLS
	case errors.As(err, &netErr) && netErr.Timeout():
		return result.Timeout
	}
	return result.Other
}
