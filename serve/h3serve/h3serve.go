// Package h3serve serves an http.Handler over HTTP/3 (QUIC, UDP) beside its HTTPS or HTTP
// server, for rpcbench's built-in services (serve items, serve lab), so that HTTP/1.1, HTTP/2
// and HTTP/3 can be compared on one machine against one handler. It also makes the self-signed
// certificate the services use when not given one.
package h3serve

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// Server is an HTTP/3 server on one UDP socket.
type Server struct {
	udp  net.PacketConn
	srv  *http3.Server
	done chan struct{}
	err  error
}

// Listen serves h over HTTP/3 on the UDP host:port addr with the certificates of tc (TLS 1.3 is
// QUIC's; ALPN is set to h3 here), accepting 0-RTT from clients that resume a session.
func Listen(addr string, tc *tls.Config, h http.Handler) (*Server, error) {
	if tc == nil || len(tc.Certificates) == 0 && tc.GetCertificate == nil {
		return nil, errors.New("h3serve: HTTP/3 needs a certificate")
	}
	udp, err := net.ListenPacket("udp", addr)
	if err != nil {
		return nil, err
	}
	c := tc.Clone()
	c.MinVersion = tls.VersionTLS13
	s := &Server{udp: udp, done: make(chan struct{}), srv: &http3.Server{
		Handler:    h,
		TLSConfig:  http3.ConfigureTLSConfig(c),
		QUICConfig: &quic.Config{Allow0RTT: true},
	}}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(udp); err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, quic.ErrServerClosed) {
			s.err = err
		}
	}()
	return s, nil
}

// Addr returns the UDP host:port the server listens on.
func (s *Server) Addr() string { return s.udp.LocalAddr().String() }

// AltSvc returns the Alt-Svc header value that offers this server to the clients of an HTTPS
// server on the same host: h3 at its UDP port.
func (s *Server) AltSvc() string {
	return `h3=":` + strconv.Itoa(s.udp.LocalAddr().(*net.UDPAddr).Port) + `"; ma=3600`
}

// Advertise wraps h so that every answer offers this server by Alt-Svc.
func (s *Server) Advertise(h http.Handler) http.Handler {
	v := s.AltSvc()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Alt-Svc", v)
		h.ServeHTTP(w, r)
	})
}

// Shutdown stops taking connections, waits for the requests in flight until ctx is done, then
// closes the socket; it returns ctx's error if it was done first, else what serving failed with.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	_ = s.srv.Close()
	_ = s.udp.Close()
	<-s.done
	if err == nil {
		err = s.err
	}
	return err
}

// SelfSigned makes a self-signed ECDSA P-256 certificate for localhost, 127.0.0.1 and ::1, of the
// organisation org, valid from an hour before now for a year, and returns it and its key in PEM.
func SelfSigned(org string, now time.Time) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{Organization: []string{org}, CommonName: "localhost"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), nil
}

// SelfSignedTLS returns a server TLS configuration with a new SelfSigned certificate, and the
// certificate in PEM for clients to trust.
func SelfSignedTLS(org string) (*tls.Config, []byte, error) {
	certPEM, keyPEM, err := SelfSigned(org, time.Now())
	if err != nil {
		return nil, nil, fmt.Errorf("making a self-signed certificate: %w", err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, certPEM, nil
}
