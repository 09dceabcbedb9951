package h3serve

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/quic-go/quic-go/http3"
)

// A handler served over HTTP/3 with a self-signed certificate answers a client that trusts the
// certificate, and Advertise offers the UDP port in Alt-Svc.
func TestListenAndAdvertise(t *testing.T) {
	tc, certPEM, err := SelfSignedTLS("test")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Listen("127.0.0.1:0", tc, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.Proto) }))
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(s.Addr())
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	cl := &http.Client{Transport: &http3.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 10 * time.Second}
	resp, err := cl.Get("https://" + s.Addr() + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "HTTP/3.0" || resp.StatusCode != 200 {
		t.Errorf("answer %d %q; want 200 HTTP/3.0", resp.StatusCode, body)
	}
	rec := httptest.NewRecorder()
	s.Advertise(http.NotFoundHandler()).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if got, want := rec.Header().Get("Alt-Svc"), `h3=":`+port+`"; ma=3600`; got != want {
		t.Errorf("Alt-Svc %q; want %q", got, want)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	pc, err := net.ListenPacket("udp", s.Addr())
	if err != nil {
		t.Fatalf("the UDP port is still held after Shutdown: %v", err)
	}
	pc.Close()
}

func TestListenWithoutCertificate(t *testing.T) {
	if _, err := Listen("127.0.0.1:0", &tls.Config{}, http.NotFoundHandler()); err == nil {
		t.Error("Listen without a certificate: no error")
	}
}
