package httpx

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/result"
)

// TestMaxBody sends answers longer than a small MaxBody, framed each way HTTP/1.1 allows: a kept
// body that would exceed it fails with class TooLarge; one that fits is kept whole; without
// KeepBody no limit applies and the bytes are counted.
func TestMaxBody(t *testing.T) {
	t.Parallel()
	const limit = 1000
	big := strings.Repeat("x", 5000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := big
		if r.URL.Query().Get("size") == "fit" {
			body = big[:limit]
		}
		if r.URL.Query().Get("framing") == "length" {
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		} // else chunked: written in flushed pieces, with no length

		for i := 0; i < len(body); i += 500 {
			w.Write([]byte(body[i : i+500]))
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	tests := []struct {
		name      string
		keep      bool
		query     string
		wantClass result.Class
		wantBody  int
	}{
		{"declared length over the limit", true, "framing=length", result.TooLarge, 0},
		{"chunked over the limit", true, "framing=chunked", result.TooLarge, 0},
		{"a body that fits, kept whole", true, "framing=chunked&size=fit", result.OK, limit},
		{"not kept: no limit", false, "framing=length", result.OK, 0},
		{"not kept, chunked: no limit", false, "framing=chunked", result.OK, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := newTransport(t, Options{KeepBody: tc.keep, MaxBody: limit})
			r := get(host)
			r.Path = []byte("/?" + tc.query)
			out := do(tr, r)
			// a body cut off at the limit may be left in out.Body; it is never longer
			if out.Class != tc.wantClass || tc.wantClass == result.OK && len(out.Body) != tc.wantBody || len(out.Body) > limit {
				t.Errorf("got class %v (%v), %d body bytes kept; want %v, %d", out.Class, out.Err, len(out.Body), tc.wantClass, tc.wantBody)
			}
			if tc.wantClass == result.OK && !tc.keep && out.BytesIn < int64(len(big)) {
				t.Errorf("got %d bytes in; want at least the body's %d", out.BytesIn, len(big))
			}
			if tc.wantClass == result.TooLarge && !strings.Contains(fmt.Sprint(out.Err), "larger than the limit on kept bodies (1000 bytes)") {
				t.Errorf("got error %v; want one naming the limit", out.Err)
			}
		})
	}
}

// TestMaxBodyUntilClose reads a body framed by the end of the connection, past the limit.
func TestMaxBodyUntilClose(t *testing.T) {
	t.Parallel()
	srv := startRaw(t, answerOnce("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"+strings.Repeat("y", 3000)))
	tr := newTransport(t, Options{KeepBody: true, MaxBody: 1000})
	out := do(tr, get(srv.Host()))
	if out.Class != result.TooLarge || len(out.Body) > 1000+4<<10 { // read in 4 KiB steps at most
		t.Errorf("got class %v (%v), %d bytes kept; want too-large", out.Class, out.Err, len(out.Body))
	}
}
