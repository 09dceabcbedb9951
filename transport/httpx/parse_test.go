package httpx

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReadResponse(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 10000)
	many := strings.Repeat("X-A: 1\r\n", maxHeaders)
	tests := []struct {
		name   string
		in     string
		head   bool
		status int
		body   string
		close  bool
		rest   string // bytes that must remain unread after the answer
		err    string // substring of the error; "" for none
		eof    error  // the error must be this one (io.EOF, io.ErrUnexpectedEOF)
	}{
		// Framing by Content-Length; the next answer stays unread.
		{name: "content-length", in: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1", status: 200, body: "hello", rest: "HTTP/1.1"},
		{name: "header names ignore case", in: "HTTP/1.1 200 OK\r\ncOnTeNt-LeNgTh:  3 \r\n\r\nabc", status: 200, body: "abc"},
		{name: "empty reason", in: "HTTP/1.1 404 \r\nContent-Length: 0\r\n\r\n", status: 404},
		{name: "no reason", in: "HTTP/1.1 500\r\nContent-Length: 0\r\n\r\n", status: 500},
		{name: "bare LF line endings", in: "HTTP/1.1 200 OK\nContent-Length: 2\n\nok", status: 200, body: "ok"},
		{name: "repeated equal lengths", in: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok", status: 200, body: "ok"},
		// Chunked, with extensions and trailers.
		{name: "chunked", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\nNEXT", status: 200, body: "hello world", rest: "NEXT"},
		{name: "chunked trailers", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\nA \r\n0123456789\r\n0\r\nX-Sum: 1\r\nContent-Length: 99\r\n\r\n", status: 200, body: "0123456789"},
		{name: "chunked wins over length", in: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", status: 200, body: "ok", close: true},
		{name: "identity then chunked", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: identity, chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n", status: 200, body: "x"},
		{name: "gzip last: until close", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\nraw", status: 200, body: "raw", close: true},
		// Read until close.
		{name: "until close", in: "HTTP/1.1 200 OK\r\n\r\neverything", status: 200, body: "everything", close: true},
		{name: "HTTP/1.0 closes", in: "HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx", status: 200, body: "x", close: true},
		{name: "HTTP/1.0 keep-alive", in: "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 1\r\n\r\nx", status: 200, body: "x"},
		{name: "connection close", in: "HTTP/1.1 200 OK\r\nConnection: upgrade, close\r\nContent-Length: 1\r\n\r\nx", status: 200, body: "x", close: true},
		// No body.
		{name: "HEAD", in: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nNEXT", head: true, status: 200, rest: "NEXT"},
		{name: "204", in: "HTTP/1.1 204 No Content\r\nContent-Length: 9\r\n\r\nNEXT", status: 204, rest: "NEXT"},
		{name: "304", in: "HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\nNEXT", status: 304, rest: "NEXT"},
		{name: "HEAD without length", in: "HTTP/1.1 200 OK\r\n\r\nNEXT", head: true, status: 200, rest: "NEXT"},
		// Interim answers are skipped.
		{name: "100 continue", in: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok", status: 201, body: "ok"},
		{name: "103 then 100", in: "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", status: 200},
		// Long header lines are skipped unless they frame the answer.
		{name: "long header line", in: "HTTP/1.1 200 OK\r\nX-Long: " + long + "\r\nContent-Length: 1\r\n\r\nx", status: 200, body: "x"},
		{name: "folded header", in: "HTTP/1.1 200 OK\r\nX-A: a\r\n b\r\nContent-Length: 1\r\n\r\nx", status: 200, body: "x"},
		{name: "most headers", in: "HTTP/1.1 200 OK\r\n" + many[:len(many)-8] + "Content-Length: 0\r\n\r\n", status: 200},

		// Broken answers.
		{name: "nothing", in: "", eof: io.EOF},
		{name: "cut in status line", in: "HTTP/1.1 2", eof: io.ErrUnexpectedEOF},
		{name: "cut in headers", in: "HTTP/1.1 200 OK\r\nContent-Le", eof: io.ErrUnexpectedEOF},
		{name: "cut after status line", in: "HTTP/1.1 200 OK\r\n", eof: io.ErrUnexpectedEOF},
		{name: "cut in body", in: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", eof: io.ErrUnexpectedEOF},
		{name: "cut in chunk", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", eof: io.ErrUnexpectedEOF},
		{name: "cut before last chunk", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n", eof: io.ErrUnexpectedEOF},
		{name: "cut in trailers", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: 1\r\n", eof: io.ErrUnexpectedEOF},
		{name: "not HTTP", in: "SSH-2.0-OpenSSH_9.2\r\n", err: "bad status line"},
		{name: "HTTP/2 status line", in: "HTTP/2 200\r\n\r\n", err: "bad status line"},
		{name: "HTTP/1.1 no code", in: "HTTP/1.1 OK\r\n\r\n", err: "bad status line"},
		{name: "code too short", in: "HTTP/1.1 20 OK\r\n\r\n", err: "bad status line"},
		{name: "code too long", in: "HTTP/1.1 2000 OK\r\n\r\n", err: "bad status line"},
		{name: "code with letter", in: "HTTP/1.1 2x0 OK\r\n\r\n", err: "bad status code"},
		{name: "code below 100", in: "HTTP/1.1 099 OK\r\n\r\n", err: "bad status code"},
		{name: "long status line", in: "HTTP/1.1 200 " + long + "\r\n\r\n", err: "status line longer than"},
		{name: "header without colon", in: "HTTP/1.1 200 OK\r\nContent-Length 1\r\n\r\nx", err: "bad header line"},
		{name: "space before colon", in: "HTTP/1.1 200 OK\r\nContent-Length : 1\r\n\r\nx", err: "bad header line"},
		{name: "bad length", in: "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", err: "bad Content-Length"},
		{name: "length list", in: "HTTP/1.1 200 OK\r\nContent-Length: 1, 1\r\n\r\nx", err: "bad Content-Length"},
		{name: "huge length", in: "HTTP/1.1 200 OK\r\nContent-Length: 9999999999999999999\r\n\r\n", err: "bad Content-Length"},
		{name: "conflicting lengths", in: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx", err: "conflicting Content-Length"},
		{name: "folded framing header", in: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n 2\r\n\r\nx", err: "folded header line"},
		{name: "fold first", in: "HTTP/1.1 200 OK\r\n X: 1\r\n\r\n", err: "folded header line"},
		{name: "long framing header", in: "HTTP/1.1 200 OK\r\nConnection: " + long + "\r\n\r\n", err: "Connection header longer than"},
		{name: "too long header line", in: "HTTP/1.1 200 OK\r\nX: " + strings.Repeat(long, 7) + "\r\n\r\n", err: "header line longer than"},
		{name: "too many headers", in: "HTTP/1.1 200 OK\r\nX-B: 1\r\n" + many + "\r\n", err: "more than 1000 header lines"},
		{name: "bad chunk size", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", err: "bad chunk size line"},
		{name: "empty chunk size", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", err: "bad chunk size line"},
		{name: "huge chunk size", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1000000000000000\r\n", err: "bad chunk size line"},
		{name: "chunk without CRLF", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n", err: "chunk data not followed by CRLF"},
		{name: "switching protocols", in: "HTTP/1.1 101 Switching Protocols\r\n\r\n", err: "101 Switching Protocols"},
		{name: "endless interim", in: strings.Repeat("HTTP/1.1 100 Continue\r\n\r\n", maxInterim+1), err: "interim"},
	}
	for _, tt := range tests {
		for _, keep := range []bool{true, false} {
			br := bufio.NewReaderSize(strings.NewReader(tt.in), readBufferSize)
			resp, err := readResponse(br, tt.head, keep, 1<<30, make([]byte, 3, 8))
			switch {
			case tt.eof != nil:
				if err != tt.eof {
					t.Errorf("%s: got error %v; want %v", tt.name, err, tt.eof)
				}
				continue
			case tt.err != "":
				var pe *ProtocolError
				if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("%s: got error %v; want a protocol error with %q", tt.name, err, tt.err)
				}
				continue
			case err != nil:
				t.Errorf("%s: got error %v; want none", tt.name, err)
				continue
			}
			rest, _ := io.ReadAll(br)
			if resp.status != tt.status || resp.close != tt.close || string(rest) != tt.rest {
				t.Errorf("%s: got status %d, close %v, rest %q; want %d, %v, %q", tt.name, resp.status, resp.close, rest, tt.status, tt.close, tt.rest)
			}
			if got, want := resp.n, int64(len(tt.in)-len(tt.rest)); got != want {
				t.Errorf("%s: got %d bytes counted; want %d", tt.name, got, want)
			}
			wantBody := tt.body
			if !keep {
				wantBody = ""
			}
			if string(resp.body) != wantBody {
				t.Errorf("%s (keep %v): got body %q; want %q", tt.name, keep, resp.body, wantBody)
			}
		}
	}
}

// TestReadResponseSmallBuffer reads answers through a buffer just large enough for the status and
// framing lines, so that other lines and bodies cross buffer boundaries.
func TestReadResponseSmallBuffer(t *testing.T) {
	t.Parallel()
	in := "HTTP/1.1 100 Continue\r\n\r\n" +
		"HTTP/1.1 200 OK\r\nX-Long: " + strings.Repeat("y", 100) + "\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"1a\r\nabcdefghijklmnopqrstuvwxyz\r\n3\r\n123\r\n0\r\n\r\n" +
		"HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n" + strings.Repeat("z", 40)
	br := bufio.NewReaderSize(strings.NewReader(in), 32)
	var body []byte
	var total int64
	for i, want := range []string{"abcdefghijklmnopqrstuvwxyz123", strings.Repeat("z", 40)} {
		resp, err := readResponse(br, false, true, 1<<30, body)
		if err != nil {
			t.Fatalf("answer %d: got error %v; want none", i, err)
		}
		if string(resp.body) != want {
			t.Errorf("answer %d: got body %q; want %q", i, resp.body, want)
		}
		body = resp.body
		total += resp.n
	}
	if total != int64(len(in)) {
		t.Errorf("got %d bytes counted; want %d", total, len(in))
	}
}

func TestChunkSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		n    int64
		ok   bool
	}{
		{"0", 0, true},
		{"fF", 255, true},
		{"10 ", 16, true},
		{"10\t;name=value", 16, true},
		{"10;", 16, true},
		{"fffffffffffffff", 1<<60 - 1, true},
		{"1000000000000000", 0, false}, // 16 digits: too large
		{"", 0, false},
		{";ext", 0, false},
		{"-1", 0, false},
		{"1 2", 0, false},
		{"0x10", 0, false},
	}
	for _, tt := range tests {
		n, ok := chunkSize([]byte(tt.line))
		if n != tt.n && tt.ok || ok != tt.ok {
			t.Errorf("chunkSize(%q): got %d, %v; want %d, %v", tt.line, n, ok, tt.n, tt.ok)
		}
	}
}
