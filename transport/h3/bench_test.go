package h3_test

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"testing"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
	"github.com/rpcbench/rpcbench/transport/h3"
)

// BenchmarkDo sends requests one after another on one open connection to a loopback HTTP/3
// server that answers 13 bytes. Its allocations are the process's: the client's and the server's
// (quic-go's server side) together; go test -memprofile tells the client's apart.
func BenchmarkDo(b *testing.B) {
	for _, c := range []struct {
		name, method, body string
		keep               bool
	}{{"get", "GET", "", false}, {"post-keepbody", "POST", `{"id":42,"name":"item"}`, true}} {
		b.Run(c.name, func(b *testing.B) {
			s := startH3(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				_, _ = io.WriteString(w, "hello, world\n")
			}))
			tr := newTransport(b, h3.Options{TLS: &tls.Config{RootCAs: s.pool}, KeepBody: c.keep, MaxConns: 1})
			r := &transport.Request{Method: c.method, Scheme: "https", Protocol: result.H3, Host: s.addr, Path: []byte("/v0/entity?id=42"),
				Header: []transport.Header{{Name: "Accept", Value: "*/*"}}, Body: []byte(c.body)}
			ctx := context.Background()
			var out transport.Outcome
			b.ReportAllocs()
			for b.Loop() {
				body := out.Body
				out = transport.Outcome{Body: body}
				tr.Do(ctx, r, &out)
				if out.Class != result.OK || out.Status != 200 {
					b.Fatalf("got class %v (%v), status %d; want ok, 200", out.Class, out.Err, out.Status)
				}
			}
		})
	}
}
