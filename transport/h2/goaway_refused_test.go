package h2

import (
	"bufio"
	"context"
	"io"
	"net"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
)

// A GOAWAY leaves the request unprocessed, and the server is gone: the retry's dial is refused.
// No server processed the request, so it was not sent: no Sent time, no service time.
func TestGoAwayThenRefusedIsUnsent(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		ln.Close() // no other connection: the retry is refused
		if err != nil {
			return
		}
		defer c.Close()
		br, bw := bufio.NewReader(c), bufio.NewWriter(c)
		pre := make([]byte, len(http2.ClientPreface))
		if _, err := io.ReadFull(br, pre); err != nil {
			return
		}
		fr := http2.NewFramer(bw, br)
		_ = fr.WriteSettings()
		_ = bw.Flush()
		for { // until the client closes the connection
			f, err := fr.ReadFrame()
			if err != nil {
				return
			}
			if h, ok := f.(*http2.HeadersFrame); ok {
				_ = fr.WriteGoAway(h.StreamID-1, http2.ErrCodeNo, nil)
				_ = bw.Flush()
			}
		}
	}()
	tr, err := New(Options{Cleartext: true, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	r := &transport.Request{Method: "GET", Scheme: "http", Host: addr, Path: []byte("/")}
	var out transport.Outcome
	tr.Do(context.Background(), r, &out)
	tr.Close()
	<-done
	if out.Class != result.Refused || out.RetriedGoAway != 1 || !out.Sent.IsZero() {
		t.Errorf("class %v (%v), retried after GOAWAY %d, sent %v; want refused, 1 retry, never sent", out.Class, out.Err, out.RetriedGoAway, out.Sent)
	}
}
