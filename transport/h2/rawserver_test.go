package h2_test

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http/httptest"
	"sync"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// rawConn is the server's side of one HTTP/2 connection of a rawServer, spoken with the Framer
// frame by frame, for what Go's server does not do: answer without allocating, refuse streams,
// send GOAWAY.
type rawConn struct {
	nc      net.Conn
	br      *bufio.Reader
	bw      *bufio.Writer
	fr      *http2.Framer
	henc    *hpack.Encoder
	hbuf    bytes.Buffer
	payload []byte
	unacked uint32 // DATA read and not yet given back to the connection's window
}

// startRaw serves HTTP/2 with prior knowledge on 127.0.0.1 (over TLS offering h2 by ALPN when
// tlsCfg is set): for each connection it reads the client preface, sends settings, then calls
// handle, and closes the connection when handle returns. It returns the server's address.
func startRaw(tb testing.TB, tlsCfg *tls.Config, settings []http2.Setting, handle func(*rawConn)) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	var wg sync.WaitGroup
	tb.Cleanup(func() { ln.Close(); wg.Wait() })
	var mu sync.Mutex
	var conns []net.Conn
	tb.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	wg.Go(func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			if tlsCfg != nil {
				nc = tls.Server(nc, tlsCfg)
			}
			mu.Lock()
			conns = append(conns, nc)
			mu.Unlock()
			wg.Go(func() {
				defer nc.Close()
				c := &rawConn{nc: nc, br: bufio.NewReader(nc), bw: bufio.NewWriter(nc)}
				c.fr = http2.NewFramer(c.bw, c.br)
				c.fr.SetReuseFrames()
				c.henc = hpack.NewEncoder(&c.hbuf)
				preface := make([]byte, len(http2.ClientPreface))
				if _, err := io.ReadFull(c.br, preface); err != nil || string(preface) != http2.ClientPreface {
					return
				}
				if c.fr.WriteSettings(settings...) != nil || c.bw.Flush() != nil {
					return
				}
				handle(c)
			})
		}
	})
	return ln.Addr().String()
}

// tlsH2 returns a server TLS configuration with httptest's certificate, offering h2.
func tlsH2() *tls.Config {
	s := httptest.NewUnstartedServer(nil)
	s.StartTLS()
	cfg := s.TLS.Clone()
	s.Close()
	cfg.NextProtos = []string{"h2"}
	return cfg
}

// next reads the next frame: a HEADERS or CONTINUATION frame as its header and raw payload (so
// that reading requests allocates nothing), any other as parsed by the Framer. The client's
// SETTINGS are acknowledged, and DATA is given back to the connection's window by 4 KiB at least,
// as Go's server does (the frames flushed with the next answer).
func (c *rawConn) next() (http2.FrameHeader, http2.Frame, error) {
	fh, err := c.fr.ReadFrameHeader()
	if err != nil {
		return fh, nil, err
	}
	if fh.Type == http2.FrameHeaders || fh.Type == http2.FrameContinuation {
		if int(fh.Length) > cap(c.payload) {
			c.payload = make([]byte, fh.Length)
		}
		_, err := io.ReadFull(c.br, c.payload[:fh.Length])
		return fh, nil, err
	}
	f, err := c.fr.ReadFrameForHeader(fh)
	if err != nil {
		return fh, nil, err
	}
	switch f := f.(type) {
	case *http2.SettingsFrame:
		if !f.IsAck() {
			err = c.fr.WriteSettingsAck()
		}
	case *http2.DataFrame:
		if c.unacked += f.Length; c.unacked >= 4<<10 {
			err = c.fr.WriteWindowUpdate(0, c.unacked)
			c.unacked = 0
		}
	}
	return fh, f, err
}

// requestEnd reads frames until a request ends (HEADERS or DATA with END_STREAM) and returns its
// stream, or the error that ended the connection.
func (c *rawConn) requestEnd() (uint32, error) {
	for {
		fh, _, err := c.next()
		if err != nil {
			return 0, err
		}
		switch fh.Type {
		case http2.FrameHeaders:
			if fh.Flags.Has(http2.FlagHeadersEndStream) {
				return fh.StreamID, nil
			}
		case http2.FrameData:
			if fh.Flags.Has(http2.FlagDataEndStream) {
				return fh.StreamID, nil
			}
		}
	}
}

// answer writes a 200 answer with body on stream id, in frames of 16 KiB, and flushes. The
// header fields are the same each time, so that after the first answer they are indexed.
func (c *rawConn) answer(id uint32, body []byte) error {
	c.hbuf.Reset()
	_ = c.henc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
	_ = c.henc.WriteField(hpack.HeaderField{Name: "content-type", Value: "text/plain"})
	_ = c.henc.WriteField(hpack.HeaderField{Name: "content-length", Value: lengths[len(body)]})
	err := c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: c.hbuf.Bytes(), EndHeaders: true, EndStream: len(body) == 0})
	for len(body) > 0 && err == nil {
		n := min(len(body), 16<<10)
		err = c.fr.WriteData(id, n == len(body), body[:n])
		body = body[n:]
	}
	return errors.Join(err, c.bw.Flush())
}

// lengths holds the content-length values of the bodies raw servers answer with, made before
// the servers start so that answering allocates nothing.
var lengths = map[int]string{0: "0", len(helloBody): "13", len(bigBody): "40960"}

var (
	helloBody = []byte("Hello, world!")
	bigBody   = bytes.Repeat([]byte("x"), 40<<10)
)

// answerEach answers every request with body.
func answerEach(body []byte) func(*rawConn) {
	return func(c *rawConn) {
		for {
			id, err := c.requestEnd()
			if err != nil || c.answer(id, body) != nil {
				return
			}
		}
	}
}

// drain reads frames until the client closes the connection.
func (c *rawConn) drain() {
	for {
		if _, _, err := c.next(); err != nil {
			return
		}
	}
}
