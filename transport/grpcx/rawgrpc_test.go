package grpcx_test

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

// startRawGRPC serves gRPC's unary calls on 127.0.0.1 with prior knowledge, frame by frame, so
// that it allocates nothing per call (allocation counts are the process's: the client's alone,
// then): each call, whatever its method, is answered with the length-prefixed message answer and
// grpc-status 0 in trailers. It returns the server's address.
func startRawGRPC(tb testing.TB, answer []byte) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	tb.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
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
				serveRawGRPC(nc, answer)
			})
		}
	})
	return ln.Addr().String()
}

// serveRawGRPC speaks HTTP/2 on nc until it ends, answering each call that ends (DATA with
// END_STREAM) with answer, its status in trailers.
func serveRawGRPC(nc net.Conn, answer []byte) {
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
				id := f.StreamID
				err = errors.Join(
					fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block(":status", "200", "content-type", "application/grpc"), EndHeaders: true}),
					fr.WriteData(id, false, answer),
					fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block("grpc-status", "0"), EndHeaders: true, EndStream: true}),
					bw.Flush())
			}
		}
		if err != nil {
			return
		}
	}
}
