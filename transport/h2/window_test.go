package h2

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
)

// With receive windows of 64 KiB per stream and 128 KiB for the connection, answers of 1 MiB,
// four at once, go through only if WINDOW_UPDATEs open both windows as the data is read: Go's
// server would otherwise wait until the request's timeout.
func TestSmallReceiveWindows(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16)
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write(big) }))
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	s.Config.Protocols = &p
	s.Start()
	t.Cleanup(s.Close)
	tr, err := New(Options{Cleartext: true, KeepBody: true, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	tr.streamWindow, tr.connWindow = 64<<10, 128<<10
	host := s.Listener.Addr().String()
	outs := make([]transport.Outcome, 4)
	var wg sync.WaitGroup
	for i := range outs {
		wg.Go(func() {
			tr.Do(context.Background(), &transport.Request{Method: "GET", Scheme: "http", Host: host, Path: []byte("/")}, &outs[i])
		})
	}
	wg.Wait()
	for i, out := range outs {
		if out.Class != result.OK || !bytes.Equal(out.Body, big) {
			t.Errorf("request %d: class %v (%v), %d body bytes; want ok, the %d sent", i, out.Class, out.Err, len(out.Body), len(big))
		}
	}
}
