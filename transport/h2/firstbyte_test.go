package h2_test

import (
	"errors"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport/h2"
)

// An answer's first byte is when the read that brought its headers returned: answers that one
// write of the server brings (one read on loopback) share it, and none is before its request was
// sent or after its Do returned.
func TestFirstByteOfAnswersReadTogether(t *testing.T) {
	t.Parallel()
	const n = 3
	// The server takes the n requests, then answers them all in one write.
	addr := startRaw(t, nil, nil, func(c *rawConn) {
		var ids [n]uint32
		for i := range ids {
			id, err := c.requestEnd()
			if err != nil {
				return
			}
			ids[i] = id
		}
		var err error
		for _, id := range ids {
			c.hbuf.Reset()
			_ = c.henc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
			_ = c.henc.WriteField(hpack.HeaderField{Name: "content-length", Value: lengths[len(helloBody)]})
			err = errors.Join(err, c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: c.hbuf.Bytes(), EndHeaders: true}))
			err = errors.Join(err, c.fr.WriteData(id, true, helloBody))
		}
		if errors.Join(err, c.bw.Flush()) == nil {
			c.drain()
		}
	})
	tr := newTransport(t, h2.Options{Cleartext: true})
	outs := doConcurrently(t, tr, "http://"+addr+"/", n)
	done := time.Now()
	for i, out := range outs {
		switch {
		case out.Class != result.OK || out.Status != 200:
			t.Fatalf("request %d: class %v (%v), status %d; want ok, 200", i, out.Class, out.Err, out.Status)
		case out.FirstByte.Before(out.Sent) || out.FirstByte.After(done):
			t.Errorf("request %d: sent %v, first byte %v, done by %v; want them in that order", i, out.Sent, out.FirstByte, done)
		case !out.FirstByte.Equal(outs[0].FirstByte):
			t.Errorf("request %d: first byte %v, request 0's %v; want the same time, that of the one read that brought both", i, out.FirstByte, outs[0].FirstByte)
		}
	}
}
