package h2

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/rpcbench/rpcbench/transport"
)

// serverBytes writes what a server would send: frames made by write with a Framer, and header
// blocks encoded by one HPACK encoder, as a server's are.
func serverBytes(write func(fr *http2.Framer, block func(...string) []byte)) []byte {
	var out, hbuf bytes.Buffer
	fr := http2.NewFramer(&out, nil)
	fr.AllowIllegalWrites = true
	enc := hpack.NewEncoder(&hbuf)
	write(fr, func(kv ...string) []byte {
		hbuf.Reset()
		for i := 0; i+1 < len(kv); i += 2 {
			_ = enc.WriteField(hpack.HeaderField{Name: kv[i], Value: kv[i+1]})
		}
		return bytes.Clone(hbuf.Bytes())
	})
	return out.Bytes()
}

// fuzzSeeds are servers' sides of connections carrying the answers to streams 1, 3 and 5, well
// formed or not.
func fuzzSeeds() [][]byte {
	ok := func(fr *http2.Framer, block func(...string) []byte, id uint32) {
		fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block(":status", "200", "content-length", "2"), EndHeaders: true})
		fr.WriteData(id, true, []byte("ok"))
	}
	settings := func(fr *http2.Framer) {
		fr.WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 100})
		fr.WriteSettingsAck()
	}
	return [][]byte{
		// three answers, a ping, a window update, a goodbye
		serverBytes(func(fr *http2.Framer, block func(...string) []byte) {
			settings(fr)
			for _, id := range []uint32{1, 3, 5} {
				ok(fr, block, id)
			}
			fr.WritePing(false, [8]byte{1})
			fr.WriteWindowUpdate(0, 1000)
			fr.WriteGoAway(5, http2.ErrCodeNo, nil)
		}),
		// header blocks over CONTINUATION frames, an interim answer, trailers, padding, priority
		serverBytes(func(fr *http2.Framer, block func(...string) []byte) {
			settings(fr)
			b := block(":status", "200", "x-a", "1", "x-b", "2")
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: b[:2]})
			fr.WriteContinuation(1, false, b[2:4])
			fr.WriteContinuation(1, true, b[4:])
			fr.WriteDataPadded(1, false, []byte("abc"), make([]byte, 5))
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: block("x-sum", "1"), EndHeaders: true, EndStream: true})
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 3, BlockFragment: block(":status", "100"), EndHeaders: true})
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 3, BlockFragment: block(":status", "204"), EndHeaders: true, EndStream: true,
				PadLength: 3, Priority: http2.PriorityParam{StreamDep: 1, Weight: 7}})
			ok(fr, block, 5)
		}),
		// resets, a goodbye leaving a stream out, settings that change windows and frame sizes
		serverBytes(func(fr *http2.Framer, block func(...string) []byte) {
			fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1},
				http2.Setting{ID: http2.SettingMaxFrameSize, Val: 1 << 20}, http2.Setting{ID: http2.SettingHeaderTableSize, Val: 0})
			fr.WriteWindowUpdate(1, 10)
			fr.WriteRSTStream(1, http2.ErrCodeRefusedStream)
			fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 65535})
			ok(fr, block, 3)
			fr.WriteGoAway(3, http2.ErrCodeEnhanceYourCalm, []byte("bye"))
		}),
		// broken answers: DATA before HEADERS, a wrong content-length, a long body, no :status
		serverBytes(func(fr *http2.Framer, block func(...string) []byte) {
			settings(fr)
			fr.WriteData(1, true, []byte("early"))
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 3, BlockFragment: block(":status", "200", "content-length", "9"), EndHeaders: true})
			fr.WriteData(3, true, []byte("short"))
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 5, BlockFragment: block(":status", "200"), EndHeaders: true})
			fr.WriteData(5, false, bytes.Repeat([]byte("x"), 2000))
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 7, BlockFragment: block("x", "y"), EndHeaders: true, EndStream: true})
		}),
		// gRPC: an answer and its trailers, a trailers-only answer, a status that is no number
		serverBytes(func(fr *http2.Framer, block func(...string) []byte) {
			settings(fr)
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: block(":status", "200", "content-type", "application/grpc"), EndHeaders: true})
			fr.WriteData(1, false, []byte{0, 0, 0, 0, 2, 8, 1})
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: block("grpc-status", "0"), EndHeaders: true, EndStream: true})
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 3, BlockFragment: block(":status", "200", "content-type", "application/grpc+proto",
				"grpc-status", "5", "grpc-message", "no item %22x%22"), EndHeaders: true, EndStream: true})
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 5, BlockFragment: block(":status", "200", "content-type", "application/grpc",
				"grpc-status", "x"), EndHeaders: true, EndStream: true})
		}),
		// a connection error: HEADERS on stream 0
		serverBytes(func(fr *http2.Framer, block func(...string) []byte) {
			settings(fr)
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 0, BlockFragment: block(":status", "200"), EndHeaders: true})
		}),
		// not SETTINGS first
		serverBytes(func(fr *http2.Framer, _ func(...string) []byte) { fr.WritePing(false, [8]byte{}) }),
		{},
	}
}

// serve plays the server's side of a connection over nc: it sends data's first frame (which
// should be SETTINGS), the rest once the client's three requests are in (or a little later), then
// hangs up. It reads the client's side throughout.
func serve(nc net.Conn, data []byte) {
	in := make(chan struct{})
	go func() {
		defer io.Copy(io.Discard, nc)
		preface := make([]byte, len(http2.ClientPreface))
		if _, err := io.ReadFull(nc, preface); err != nil {
			return
		}
		fr := http2.NewFramer(nil, nc)
		for ends := 0; ends < 3; {
			f, err := fr.ReadFrame()
			if err != nil {
				return
			}
			if h, ok := f.(*http2.HeadersFrame); ok && h.StreamEnded() || f.Header().Type == http2.FrameData && f.(*http2.DataFrame).StreamEnded() {
				ends++
			}
		}
		close(in)
	}()
	first := len(data)
	if len(data) >= 9 {
		first = min(len(data), 9+int(data[0])<<16|int(data[1])<<8|int(data[2]))
	}
	nc.Write(data[:first])
	select {
	case <-in:
	case <-time.After(20 * time.Millisecond): // a bound: requests may wait for what data holds
	}
	nc.Write(data[first:])
	nc.Close()
}

// FuzzReadFrames feeds arbitrary bytes to a connection as its server's side (over net.Pipe; see
// serve) while three requests wait on it. The connection must never panic nor
// hang: either the handshake fails, or every request ends, answered or failed, and the reader
// stops, leaving no stream behind. An answer must be whole: a final status, its content-length
// kept, no more body kept than MaxBody. The connection reads gRPC's fields too (the first
// request's): their HTTP status is the answer's, a grpc-status is absent (-1), a number, or not
// one (-2).
//
//	go test -run '^$' -fuzz FuzzReadFrames ./transport/h2/
func FuzzReadFrames(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	const maxBody = 1 << 10
	f.Fuzz(func(t *testing.T, data []byte) {
		client, server := net.Pipe()
		defer client.Close()
		go serve(server, data)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		cc, err := newClientConn(ctx, client, connConfig{
			streamWindow: 1 << 16, connWindow: 1 << 17, ua: "fuzz", scheme: "http",
			maxBody: maxBody, keepBody: true, tooLarge: errors.New("too large"), grpc: true,
		})
		if err != nil {
			return
		}
		var wg sync.WaitGroup
		for i := range 3 {
			wg.Go(func() {
				st := newStream().(*stream)
				st.begin(false, nil, 5*time.Second) // a bound: the server hangs up well before
				var a GRPCAnswer
				a.reset()
				if i == 0 {
					st.grpc = &a
				}
				defer st.timer.Stop()
				r := &transport.Request{Method: "POST", Scheme: "http", Host: "fuzz", Path: []byte("/"), Body: []byte("abc")}
				var out transport.Outcome
				if cc.roundTrip(context.Background(), r, st, &out) != nil || st.err != nil {
					return
				}
				switch {
				case !st.finished || !st.gotFinal || st.status < 200 || st.status > 999:
					t.Errorf("stream %d answered with finished %v, status %d", st.id, st.finished, st.status)
				case int64(len(st.body)) != st.bodyLen || st.bodyLen > maxBody:
					t.Errorf("stream %d kept %d of %d body bytes (at most %d)", st.id, len(st.body), st.bodyLen, maxBody)
				case st.contentLen >= 0 && st.contentLen != st.bodyLen && st.status != 204 && st.status != 304:
					t.Errorf("stream %d answered with %d body bytes, content-length %d", st.id, st.bodyLen, st.contentLen)
				case st.grpc != nil && (a.HTTPStatus != st.status || a.Status < -2):
					t.Errorf("stream %d answered with :status %d, gRPC's %+v", st.id, st.status, a)
				}
			})
		}
		ended := make(chan struct{})
		go func() { wg.Wait(); <-cc.readerDone; close(ended) }()
		select {
		case <-ended:
		case <-time.After(10 * time.Second):
			t.Fatal("the requests or the reader did not end")
		}
		cc.mu.Lock()
		defer cc.mu.Unlock()
		if len(cc.streams) != 0 || cc.active != 0 {
			t.Errorf("%d streams left open, %d slots taken; want none", len(cc.streams), cc.active)
		}
	})
}
