package grpcx_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport/grpcx"
)

// A TLS 1.3 server that asks for the client's certificate, gets none, and closes the connection
// (with a reset, no alert) once the handshake is done: the client meets the closed connection on
// its first write or its first read, whichever comes first — the race a real server's refusal
// runs too. Either way the message names the certificate the server asked for.
func TestClientCertAskedThenClosed(t *testing.T) {
	t.Parallel()
	clients(t, func(t *testing.T, client string) {
		// the method by reflection, on a connection of grpc-go's, or from the .proto file: the
		// call's own connection is the first
		for _, src := range []string{"reflection", "proto"} {
			t.Run(src, func(t *testing.T) {
				res := itemsResolver(t, src)
				cert := testCert(t)
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				var wg sync.WaitGroup
				t.Cleanup(func() { ln.Close(); wg.Wait() })
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						c, err := ln.Accept()
						if err != nil {
							return
						}
						tc := tls.Server(c, &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: tls.RequestClientCert, MinVersion: tls.VersionTLS13, NextProtos: []string{"h2"}})
						_ = tc.SetDeadline(time.Now().Add(10 * time.Second))
						_ = tc.Handshake()
						_ = c.(*net.TCPConn).SetLinger(0) // a reset, not a close: no alert, nothing to read
						c.Close()
					}
				}()
				tr := newTransport(t, grpcx.Options{Client: client, Resolver: res, InsecureSkipVerify: true, ConnectTimeout: 5 * time.Second})
				out := do(t, tr, request("grpcs", ln.Addr().String(), "/rpz.ItemService/CreateItem", `{}`))
				const want = "the server requires a client certificate, and none was given (it asked for one in the handshake"
				if out.Err == nil || !strings.Contains(out.Err.Error(), want) || !out.Sent.IsZero() || out.Class == result.OK {
					t.Errorf("got class %v sent %v err %v; want unsent, %q", out.Class, out.Sent, out.Err, want)
				}
			})
		}
	})
}

// testCert is a self-signed certificate for 127.0.0.1, made now.
func testCert(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}
