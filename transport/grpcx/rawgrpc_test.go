package grpcx

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"sync"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// The raw server is in the package's own test files, so that its tests and the external ones
// (through the exported names) share it.

// RawAnswer writes the answer to the call on stream id, its header blocks made by block (field
// names and values in turn, encoded by the connection's HPACK encoder).
type RawAnswer func(fr *http2.Framer, block func(kv ...string) []byte, id uint32) error

// The header fields of a gRPC answer and of its trailers with status 0, made once: a call of
// block with them allocates nothing.
var (
	grpcHead = []string{":status", "200", "content-type", "application/grpc"}
	grpcOK   = []string{"grpc-status", "0"}
)

// AnswerWith answers each call with the length-prefixed message msg and grpc-status 0 in
// trailers.
func AnswerWith(msg []byte) RawAnswer {
	return func(fr *http2.Framer, block func(kv ...string) []byte, id uint32) error {
		if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block(grpcHead...), EndHeaders: true}); err != nil {
			return err
		}
		if err := fr.WriteData(id, false, msg); err != nil {
			return err
		}
		return fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block(grpcOK...), EndHeaders: true, EndStream: true})
	}
}

// StartRawGRPC serves gRPC's unary calls on 127.0.0.1 with prior knowledge, frame by frame, so
// that it allocates nothing per call (allocation counts are the process's: the client's alone,
// then): each call, whatever its method, is answered by answer. It returns the server's address.
func StartRawGRPC(tb testing.TB, answer RawAnswer) string {
	tb.Helper()
	addr, _ := ServeLoopback(tb, func(nc net.Conn) { serveRawGRPC(nc, answer) })
	return addr
}

// ServeLoopback listens on 127.0.0.1 and runs serve on each connection it accepts, closing the
// connection when serve returns. It returns the address, and stop, which closes the listener
// and the connections and waits for serve's runs to end (at cleanup too).
func ServeLoopback(tb testing.TB, serve func(net.Conn)) (addr string, stop func()) {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	stop = sync.OnceFunc(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	tb.Cleanup(stop)
	wg.Go(func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, nc)
			mu.Unlock()
			wg.Go(func() {
				defer nc.Close()
				serve(nc)
			})
		}
	})
	return ln.Addr().String(), stop
}

// serveRawGRPC speaks HTTP/2 on nc until it ends, answering each call that ends (DATA with
// END_STREAM) with answer.
func serveRawGRPC(nc net.Conn, answer RawAnswer) {
	br, bw := bufio.NewReader(nc), bufio.NewWriter(nc)
	fr := http2.NewFramer(bw, br)
	fr.SetReuseFrames()
	var hbuf bytes.Buffer
	henc := hpack.NewEncoder(&hbuf)
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(br, preface); err != nil || string(preface) != http2.ClientPreface {
		return
	}
	if fr.WriteSettings() != nil || bw.Flush() != nil {
		return
	}
	block := func(kv ...string) []byte {
		hbuf.Reset()
		for i := 0; i < len(kv); i += 2 {
			_ = henc.WriteField(hpack.HeaderField{Name: kv[i], Value: kv[i+1]})
		}
		return hbuf.Bytes()
	}
	var payload []byte
	var unacked uint32
	for {
		fh, err := fr.ReadFrameHeader()
		if err != nil {
			return
		}
		if fh.Type == http2.FrameHeaders || fh.Type == http2.FrameContinuation { // read raw: no allocation
			if int(fh.Length) > cap(payload) {
				payload = make([]byte, fh.Length)
			}
			if _, err := io.ReadFull(br, payload[:fh.Length]); err != nil {
				return
			}
			continue
		}
		f, err := fr.ReadFrameForHeader(fh)
		if err != nil {
			return
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				err = errors.Join(fr.WriteSettingsAck(), bw.Flush())
			}
		case *http2.DataFrame:
			// the connection's window given back by 4 KiB at least, as Go's server does (x/net's
			// Framer, the client's, allocates a frame for each WINDOW_UPDATE it reads); a call's
			// message never fills its stream's
			if unacked += f.Length; unacked >= 4<<10 {
				err = fr.WriteWindowUpdate(0, unacked)
				unacked = 0
			}
			if err == nil && f.StreamEnded() {
				if err = answer(fr, block, f.StreamID); err == nil {
					err = bw.Flush()
				}
			}
		}
		if err != nil {
			return
		}
	}
}
