package httpx

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

// FuzzParseResponse feeds arbitrary bytes to the answer parser, reading answers one after another as
// on a kept-alive connection. The parser must never panic nor loop, must count exactly the bytes it
// consumed, and must keep no more body than it read.
//
//	go test -run '^$' -fuzz FuzzParseResponse ./transport/httpx/
func FuzzParseResponse(f *testing.F) {
	seeds := []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Sum: 1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\nContent-Length: 3\r\n\r\n1\r\nx\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\nraw bytes",
		"HTTP/1.0 200 OK\r\n\r\nuntil close",
		"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nx",
		"HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n",
		"HTTP/1.1 200 OK\nContent-Length: 2\n\nok",
		"HTTP/1.1 200 OK\r\nX-A: a\r\n folded\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx",
		"HTTP/1.1 200 OK\r\nX-Long: " + strings.Repeat("y", 300) + "\r\nContent-Length: 1\r\n\r\nx",
		"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffff\r\nabc",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n",
		"HTTP/1.1 2",
		"HTTP/2 200\r\n\r\n",
		"",
	}
	for _, s := range seeds {
		f.Add([]byte(s), false, true, false)
	}
	f.Add([]byte(seeds[0]), true, false, true)
	f.Add([]byte(seeds[2]), false, false, true)
	f.Fuzz(func(t *testing.T, data []byte, head, keep, small bool) {
		size := readBufferSize
		if small {
			size = 32 // lines and bodies cross buffer boundaries
		}
		src := bytes.NewReader(data)
		br := bufio.NewReaderSize(src, size)
		var body []byte
		var consumed int64
		for range len(data) + 1 { // every answer consumes bytes: this bound is never reached
			resp, err := readResponse(br, head, keep, 1<<30, body)
			consumed += resp.n
			if left := int64(br.Buffered() + src.Len()); consumed+left != int64(len(data)) {
				t.Fatalf("counted %d bytes consumed with %d left of %d", consumed, left, len(data))
			}
			if int64(len(resp.body)) > resp.n || !keep && len(resp.body) > 0 {
				t.Fatalf("kept %d body bytes of %d consumed (keep %v)", len(resp.body), resp.n, keep)
			}
			if err != nil || resp.close {
				return
			}
			if resp.status < 200 || resp.status > 999 {
				t.Fatalf("final status %d", resp.status)
			}
			if resp.n == 0 {
				t.Fatalf("an answer that consumed no bytes")
			}
			body = resp.body
		}
		t.Fatalf("more answers than bytes")
	})
}
