package faults

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// H2Server is an HTTP/2 fault server (h2c, prior knowledge), spoken frame by frame with
// x/net/http2's Framer, that counts what it did.
type H2Server struct {
	*Server
	answered atomic.Uint64
	above    atomic.Uint64
	requests atomic.Uint64
	conns    atomic.Uint64
}

// Conns returns the number of connections that spoke HTTP/2 (sent the client preface).
func (s *H2Server) Conns() uint64 { return s.conns.Load() }

// Answered returns the number of answers the server has written (or is writing) so far.
func (s *H2Server) Answered() uint64 { return s.answered.Load() }

// Above returns the number of requests that came on a connection above the last stream its
// GOAWAY named: requests the server did not process.
func (s *H2Server) Above() uint64 { return s.above.Load() }

// Requests returns the number of requests that came in.
func (s *H2Server) Requests() uint64 { return s.requests.Load() }

// H2MaxRequests serves at most n requests per connection, as a proxy does with a cap on requests
// per connection (Envoy's max_requests_per_connection, nginx's keepalive_requests) or a gRPC
// server with a maximum connection age: it answers each of a connection's first n requests with
// 200 "ok", hold after it came in; when a request beyond the n-th comes, it sends GOAWAY naming the
// n-th as the last stream it processes and ignores the streams above; once the n answers are out,
// it closes its side of the connection.
func H2MaxRequests(tb testing.TB, n int, hold time.Duration) *H2Server {
	s := &H2Server{}
	s.Server = start(tb, listen(tb), func(c net.Conn, done <-chan struct{}) {
		h := h2Accept(c)
		if h == nil {
			return
		}
		s.conns.Add(1)
		type due struct {
			id uint32
			at time.Time
		}
		queue := make(chan due, n) // the connection's n requests, at most
		var mu sync.Mutex          // guards goAway
		goAway := false
		sendGoAway := func(last uint32) {
			mu.Lock()
			defer mu.Unlock()
			if !goAway {
				goAway = true
				_ = h.write(func(fr *http2.Framer) error { return fr.WriteGoAway(last, http2.ErrCodeNo, nil) })
			}
		}
		var wg sync.WaitGroup
		wg.Go(func() {
			var last uint32
			for range n {
				d, ok := <-queue
				if !ok {
					return
				}
				t := time.NewTimer(time.Until(d.at))
				select {
				case <-done:
					t.Stop()
					return
				case <-t.C:
				}
				s.answered.Add(1) // before the client can see the answer
				if h.answerOK(d.id) != nil {
					return
				}
				last = d.id
			}
			// The n answers are out: GOAWAY, unless a request beyond them brought it already,
			// then close the server's side, and read on until the client closes (closing at once,
			// with requests unread, would reset the connection and lose what was written).
			sendGoAway(last)
			if tc, ok := c.(*net.TCPConn); ok {
				_ = tc.CloseWrite()
			} else {
				_ = c.Close()
			}
		})
		count, last := 0, uint32(0)
		h.requests(func(id uint32) error {
			s.requests.Add(1)
			if count++; count <= n {
				last = id
				queue <- due{id, time.Now().Add(hold)}
				return nil
			}
			s.above.Add(1)
			sendGoAway(last)
			return nil
		})
		close(queue)
		wg.Wait()
	})
	return s
}

// H2NoStreams is an HTTP/2 server whose SETTINGS allow no stream at all
// (MAX_CONCURRENT_STREAMS 0); it counts the requests that come anyway, and answers none.
func H2NoStreams(tb testing.TB) *H2Server {
	s := &H2Server{}
	s.Server = start(tb, listen(tb), func(c net.Conn, _ <-chan struct{}) {
		h := h2Accept(c, http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 0})
		if h == nil {
			return
		}
		h.requests(func(uint32) error {
			s.requests.Add(1)
			return nil
		})
	})
	return s
}

// h2Conn is the server's side of one HTTP/2 connection. Its frames are written under mu.
type h2Conn struct {
	br   *bufio.Reader
	bw   *bufio.Writer
	fr   *http2.Framer
	mu   sync.Mutex
	henc *hpack.Encoder
	hbuf bytes.Buffer
}

// h2Accept reads the client preface from c and sends settings; nil when c does not speak HTTP/2.
func h2Accept(c net.Conn, settings ...http2.Setting) *h2Conn {
	h := &h2Conn{br: bufio.NewReader(c), bw: bufio.NewWriter(c)}
	h.fr = http2.NewFramer(h.bw, h.br)
	h.henc = hpack.NewEncoder(&h.hbuf)
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(h.br, preface); err != nil || string(preface) != http2.ClientPreface {
		return nil
	}
	if h.write(func(fr *http2.Framer) error { return fr.WriteSettings(settings...) }) != nil {
		return nil
	}
	return h
}

// write runs f on the Framer under the write lock, and flushes.
func (h *h2Conn) write(f func(*http2.Framer) error) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := f(h.fr); err != nil {
		return err
	}
	return h.bw.Flush()
}

// requests reads frames until the connection ends or onRequest fails, and calls onRequest with
// the stream of each request that ends (HEADERS or DATA with END_STREAM). It acknowledges
// SETTINGS, answers PINGs, and gives back the windows DATA used, as long as it can write.
func (h *h2Conn) requests(onRequest func(id uint32) error) {
	for {
		f, err := h.fr.ReadFrame()
		if err != nil {
			return
		}
		switch f := f.(type) {
		case *http2.HeadersFrame:
			if f.StreamEnded() {
				err = onRequest(f.StreamID)
			}
		case *http2.DataFrame:
			if n := f.Length; n > 0 {
				_ = h.write(func(fr *http2.Framer) error {
					return errors.Join(fr.WriteWindowUpdate(0, n), fr.WriteWindowUpdate(f.StreamID, n))
				})
			}
			if err == nil && f.StreamEnded() {
				err = onRequest(f.StreamID)
			}
		case *http2.SettingsFrame: // a write that fails (the server closed its side) is ignored:
			if !f.IsAck() { // the reading goes on until the client closes
				_ = h.write(func(fr *http2.Framer) error { return fr.WriteSettingsAck() })
			}
		case *http2.PingFrame:
			if !f.IsAck() {
				_ = h.write(func(fr *http2.Framer) error { return fr.WritePing(true, f.Data) })
			}
		}
		if err != nil {
			return
		}
	}
}

// answerOK answers stream id with 200 and the body "ok".
func (h *h2Conn) answerOK(id uint32) error {
	return h.write(func(fr *http2.Framer) error {
		h.hbuf.Reset()
		_ = h.henc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
		_ = h.henc.WriteField(hpack.HeaderField{Name: "content-length", Value: "2"})
		if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: h.hbuf.Bytes(), EndHeaders: true}); err != nil {
			return err
		}
		return fr.WriteData(id, true, []byte("ok"))
	})
}
