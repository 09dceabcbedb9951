package h2_test

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"runtime"
	"testing"

	"golang.org/x/net/http2"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
	"github.com/rpcbench/rpcbench/transport/h2"
)

// Over h2c the connection's reader waits for the next bytes after a read that emptied the socket,
// instead of reading it again to find nothing (EAGAIN). 200 requests one after another, each
// answer one write of the server: at most a few reads of 200 find the socket empty (the first one
// may, and a readiness that the poller took in for bytes a read had already taken), where reading
// until EAGAIN makes one such read per answer.
func TestH2CReadsNoEmptySocketBetweenAnswers(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("raw reads are Linux's")
	}
	t.Parallel()
	addr := startRaw(t, nil, nil, answerEach(helloBody))
	tr := newTransport(t, h2.Options{Cleartext: true})
	r := &transport.Request{Method: "GET", Scheme: "http", Host: addr, Path: []byte("/")}
	const n = 200
	var out transport.Outcome
	for i := range n {
		out.Reset()
		tr.Do(context.Background(), r, &out)
		if out.Class != result.OK || out.Status != 200 {
			t.Fatalf("request %d: class %v (%v), status %d; want ok, 200", i, out.Class, out.Err, out.Status)
		}
	}
	empty, ok := h2.EmptyReads(tr, "http", addr)
	if !ok {
		t.Fatal("no open h2c connection over TCP after the requests")
	}
	if empty > n/10 {
		t.Errorf("%d reads of the connection found the socket empty over %d answers; want at most %d", empty, n, n/10)
	}
}

// chunkWriter writes to the connection in pieces of at most size bytes, a write each.
type chunkWriter struct {
	nc   net.Conn
	size int
}

func (w chunkWriter) Write(p []byte) (int, error) {
	for i := 0; i < len(p); i += w.size {
		if _, err := w.nc.Write(p[i:min(i+w.size, len(p))]); err != nil {
			return i, err
		}
	}
	return len(p), nil
}

// Answers whose frames come in pieces, the frame headers cut too (the server writes 7 bytes at a
// time, or 1,000 for bodies of 40 KiB, longer than the client's read buffer of 32 KiB holds after
// a partial frame), arrive whole: the reader waits for the rest of a frame and keeps the piece it
// has.
func TestFramesCutAcrossReads(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		body  []byte
		chunk int
		n     int
	}{
		{"hello-by-7-bytes", helloBody, 7, 20},
		{"40KiB-by-1000-bytes", bigBody, 1000, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := startRaw(t, nil, nil, func(c *rawConn) {
				c.bw = bufio.NewWriter(chunkWriter{c.nc, tc.chunk})
				c.fr = http2.NewFramer(c.bw, c.br)
				answerEach(tc.body)(c)
			})
			tr := newTransport(t, h2.Options{Cleartext: true, KeepBody: true})
			r := &transport.Request{Method: "GET", Scheme: "http", Host: addr, Path: []byte("/")}
			var out transport.Outcome
			for i := range tc.n {
				out.Reset()
				tr.Do(context.Background(), r, &out)
				if out.Class != result.OK || out.Status != 200 || !bytes.Equal(out.Body, tc.body) {
					t.Fatalf("request %d: class %v (%v), status %d, %d body bytes; want ok, 200, the %d sent", i, out.Class, out.Err, out.Status, len(out.Body), len(tc.body))
				}
			}
		})
	}
}
