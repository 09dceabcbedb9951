package transport

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/rpcbench/rpcbench/result"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	opErr := func(err error) error {
		return &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: err}}
	}
	tests := []struct {
		name string
		err  error
		want result.Class
	}{
		{"nil", nil, result.OK},
		{"refused", opErr(syscall.ECONNREFUSED), result.Refused},
		{"reset", opErr(syscall.ECONNRESET), result.Reset},
		{"broken pipe", opErr(syscall.EPIPE), result.Reset},
		{"closed mid-answer", fmt.Errorf("reading the answer: %w", io.ErrUnexpectedEOF), result.Reset},
		{"deadline", fmt.Errorf("read: %w", os.ErrDeadlineExceeded), result.Timeout},
		{"context deadline", context.DeadlineExceeded, result.Timeout},
		{"canceled", fmt.Errorf("send: %w", context.Canceled), result.Canceled},
		{"dns", &net.DNSError{Err: "no such host", Name: "nowhere.invalid", IsNotFound: true}, result.DNS},
		{"unknown authority", x509.UnknownAuthorityError{}, result.TLS},
		{"other", errors.New("something else"), result.Other},
	}
	for _, tt := range tests {
		if got := Classify(tt.err); got != tt.want {
			t.Errorf("%s: Classify(%v) = %v; want %v", tt.name, tt.err, got, tt.want)
		}
	}
}
