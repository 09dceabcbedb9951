package transport

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

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

// A server that answers the ClientHello with a fatal alert: crypto/tls reports it as a
// *net.OpError "remote error" around an unexported alert type, which is a TLS failure.
func TestClassifyRemoteTLSAlert(t *testing.T) {
	t.Parallel()
	client, server := net.Pipe()
	defer client.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer server.Close()
		hdr := make([]byte, 5)
		if _, err := io.ReadFull(server, hdr); err != nil {
			return
		}
		if _, err := io.CopyN(io.Discard, server, int64(hdr[3])<<8|int64(hdr[4])); err != nil {
			return
		}
		_, _ = server.Write([]byte{0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28}) // fatal handshake_failure
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := tls.Client(client, &tls.Config{ServerName: "example.test"}).HandshakeContext(ctx)
	<-done
	if got := Classify(err); got != result.TLS {
		t.Errorf("Classify(%v) = %v; want tls", err, got)
	}
}
