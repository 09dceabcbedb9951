package httpx

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// Limits that keep a broken or hostile server from making the client read one answer forever or hold
// unbounded memory. Breaking one is a protocol error. The status line, chunk size lines and the
// framing headers (Content-Length, Transfer-Encoding, Connection) must also fit in the connection's
// read buffer (readBufferSize).
const (
	maxHeaderLine = 64 << 10 // longest header or trailer line, line ending included
	maxHeaders    = 1000     // most lines in one header or trailer section
	maxInterim    = 32       // most 1xx interim answers before the final answer
)

// ProtocolError is an answer that broke HTTP/1.1 (bad status line, bad framing, a limit exceeded).
// The transport classes it as result.Protocol and discards the connection. Msg says what was wrong,
// quoting at most 40 bytes of the answer. It is a plain value, safe to share.
type ProtocolError struct {
	Msg string
}

func (e *ProtocolError) Error() string { return "httpx: malformed answer: " + e.Msg }

func protocolf(format string, args ...any) error {
	return &ProtocolError{Msg: fmt.Sprintf(format, args...)}
}

// response is what reading one answer found.
type response struct {
	status int    // status code of the final answer
	close  bool   // the connection cannot carry another request after this answer
	n      int64  // bytes consumed: interim answers, headers, body and trailers included
	body   []byte // the body, when it was kept
	// need, when the stream ended inside a body of known length, is the count of bytes from the
	// answer's start up to that body's end: the least the answer needs before it can be complete.
	need int64
	// framing is how the final answer's body is framed (bodyFixed, bodyChunked, bodyUntilClose)
	// once its headers are read, bodyNone before; bodyStart is where the body starts, and length
	// its length when fixed.
	framing   int8
	bodyStart int64
	length    int64
}

// How a body is framed (response.framing).
const (
	bodyNone int8 = iota
	bodyFixed
	bodyChunked
	bodyUntilClose
)

// framing is what the headers of one answer say about its body and its connection.
type framing struct {
	contentLength int64
	hasLength     bool
	encoded       bool // a Transfer-Encoding other than identity was given
	chunked       bool // ... and its last coding is chunked
	close         bool // Connection: close
	keepAlive     bool // Connection: keep-alive (matters for HTTP/1.0)
}

// ErrBodyTooLarge is the error of an answer whose body, to be kept, would exceed Options.MaxBody.
// The transport classes it as result.TooLarge and discards the connection.
var ErrBodyTooLarge = errors.New("httpx: answer body larger than the limit on kept bodies")

// reader reads one answer from a connection's buffered reader.
type reader struct {
	br      *bufio.Reader
	keep    bool  // append the body to resp.body instead of discarding it
	maxBody int64 // with keep: the most body bytes kept; more is ErrBodyTooLarge
	resp    response
}

// readResponse reads one complete answer to a request from br: interim 1xx answers are skipped, the
// body is framed by the headers (no body when head is true, as for a HEAD request) and is appended to
// body[:0] when keep is true (up to maxBody bytes: a longer body is ErrBodyTooLarge, found before it
// is read when its length is declared), discarded otherwise. On error the answer is unusable and so is the
// connection: the error is a *ProtocolError when the bytes broke HTTP/1.1, io.EOF when the stream
// ended before the answer began, io.ErrUnexpectedEOF when it ended inside it, or br's read error.
// resp.n counts the bytes consumed even on error. readResponse never reads past the answer, so
// answers can be read one after another from the same br.
func readResponse(br *bufio.Reader, head, keep bool, maxBody int64, body []byte) (response, error) {
	r := reader{br: br, keep: keep, maxBody: maxBody}
	r.resp.body = body[:0]
	err := r.read(head)
	return r.resp, err
}

func (r *reader) read(head bool) error {
	for interim := 0; ; interim++ {
		status, minor, err := r.statusLine()
		if err != nil {
			return err
		}
		var f framing
		if err := r.headers(&f, false); err != nil {
			return err
		}
		if status < 200 {
			if status == 101 {
				return protocolf("101 Switching Protocols to a request that asked for no upgrade")
			}
			if interim == maxInterim {
				return protocolf("more than %d interim (1xx) answers", maxInterim)
			}
			continue
		}
		r.resp.status = status
		r.resp.close = f.close || minor == 0 && !f.keepAlive
		r.resp.bodyStart = r.resp.n
		switch {
		case head || status == 204 || status == 304:
			return nil
		case f.encoded:
			if f.hasLength {
				r.resp.close = true // both framings given: never trust the connection again
			}
			if f.chunked {
				r.resp.framing = bodyChunked
				return r.chunked()
			}
			r.resp.close = true
			r.resp.framing = bodyUntilClose
			return r.untilClose()
		case f.hasLength:
			r.resp.framing, r.resp.length = bodyFixed, f.contentLength
			return r.fixed(f.contentLength)
		default:
			r.resp.close = true
			r.resp.framing = bodyUntilClose
			return r.untilClose()
		}
	}
}

// line reads one line without its line ending (CRLF or a bare LF). When the line does not fit the
// buffer, it returns its first part with long set; the caller rejects it or calls skipRest.
func (r *reader) line() (line []byte, long bool, err error) {
	b, err := r.br.ReadSlice('\n')
	r.resp.n += int64(len(b))
	switch {
	case err == bufio.ErrBufferFull:
		return b, true, nil
	case err == io.EOF && r.resp.n > 0:
		return nil, false, io.ErrUnexpectedEOF
	case err != nil:
		return nil, false, err
	}
	b = b[:len(b)-1]
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	return b, false, nil
}

// skipRest consumes the rest of a long header line of which got bytes were read.
func (r *reader) skipRest(got int) error {
	for {
		b, err := r.br.ReadSlice('\n')
		r.resp.n += int64(len(b))
		got += len(b)
		if got > maxHeaderLine {
			return protocolf("header line longer than %d bytes", maxHeaderLine)
		}
		switch err {
		case nil:
			return nil
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			return io.ErrUnexpectedEOF
		default:
			return err
		}
	}
}

// statusLine reads "HTTP/1.x NNN reason" and returns the status code and the minor version.
func (r *reader) statusLine() (status, minor int, err error) {
	line, long, err := r.line()
	if err != nil {
		return 0, 0, err
	}
	if long {
		return 0, 0, protocolf("status line longer than %d bytes", r.br.Size())
	}
	// "HTTP/1.1 200" is the shortest; the reason phrase, after a space, may be empty.
	if len(line) < 12 || string(line[:7]) != "HTTP/1." || !isDigit(line[7]) || line[8] != ' ' ||
		len(line) > 12 && line[12] != ' ' {
		return 0, 0, protocolf("bad status line %s", quote(line))
	}
	code := line[9:12]
	if !isDigit(code[0]) || !isDigit(code[1]) || !isDigit(code[2]) || code[0] == '0' {
		return 0, 0, protocolf("bad status code in %s", quote(line))
	}
	status = int(code[0]-'0')*100 + int(code[1]-'0')*10 + int(code[2]-'0')
	return status, int(line[7] - '0'), nil
}

// headers reads header lines up to the empty line that ends them, noting the framing headers in f
// unless trailer is set (framing headers in trailers are ignored, as RFC 9112 asks).
func (r *reader) headers(f *framing, trailer bool) error {
	lastFraming := false
	for count := 0; ; count++ {
		line, long, err := r.line()
		if err != nil {
			return err
		}
		if !long && len(line) == 0 {
			return nil
		}
		if count == maxHeaders {
			return protocolf("more than %d header lines", maxHeaders)
		}
		if line[0] == ' ' || line[0] == '\t' { // obsolete line folding: continues the previous line
			if count == 0 || lastFraming {
				return protocolf("folded header line %s", quote(line))
			}
			if long {
				if err := r.skipRest(len(line)); err != nil {
					return err
				}
			}
			continue
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || !isToken(line[:colon]) {
			return protocolf("bad header line %s", quote(line))
		}
		kind := none
		if !trailer {
			kind = framingHeader(line[:colon])
		}
		lastFraming = kind != none
		if long {
			if kind != none {
				return protocolf("%s header longer than %d bytes", line[:colon], r.br.Size())
			}
			if err := r.skipRest(len(line)); err != nil {
				return err
			}
			continue
		}
		if err := f.note(kind, trimSpace(line[colon+1:])); err != nil {
			return err
		}
	}
}

const (
	none = iota
	contentLength
	transferEncoding
	connection
)

// framingHeader says whether name is one of the headers that frame the answer.
func framingHeader(name []byte) int {
	switch len(name) {
	case 14:
		if equalFold(name, "content-length") {
			return contentLength
		}
	case 17:
		if equalFold(name, "transfer-encoding") {
			return transferEncoding
		}
	case 10:
		if equalFold(name, "connection") {
			return connection
		}
	}
	return none
}

// note records the value of a framing header.
func (f *framing) note(kind int, value []byte) error {
	switch kind {
	case contentLength:
		n, ok := parseDecimal(value)
		if !ok {
			return protocolf("bad Content-Length %s", quote(value))
		}
		if f.hasLength && f.contentLength != n {
			return protocolf("conflicting Content-Length headers (%d and %d)", f.contentLength, n)
		}
		f.contentLength, f.hasLength = n, true
	case transferEncoding:
		for tok, rest := nextToken(value); len(tok) > 0; tok, rest = nextToken(rest) {
			switch {
			case equalFold(tok, "identity"):
			case equalFold(tok, "chunked"):
				f.encoded, f.chunked = true, true
			default:
				f.encoded, f.chunked = true, false // chunked is not the last coding
			}
		}
	case connection:
		for tok, rest := nextToken(value); len(tok) > 0; tok, rest = nextToken(rest) {
			switch {
			case equalFold(tok, "close"):
				f.close = true
			case equalFold(tok, "keep-alive"):
				f.keepAlive = true
			}
		}
	}
	return nil
}

// chunked reads a chunked body and its trailers.
func (r *reader) chunked() error {
	for {
		line, long, err := r.line()
		if err != nil {
			return eofInside(err)
		}
		if long {
			return protocolf("chunk size line longer than %d bytes", r.br.Size())
		}
		size, ok := chunkSize(line)
		if !ok {
			return protocolf("bad chunk size line %s", quote(line))
		}
		if size == 0 {
			var f framing
			return eofInside(r.headers(&f, true))
		}
		if err := r.fixed(size); err != nil {
			return err
		}
		line, long, err = r.line()
		if err != nil {
			return eofInside(err)
		}
		if long || len(line) != 0 {
			return protocolf("chunk data not followed by CRLF")
		}
	}
}

// fixed reads n bytes of body.
func (r *reader) fixed(n int64) error {
	if r.keep && n > r.maxBody-int64(len(r.resp.body)) {
		return ErrBodyTooLarge
	}
	for n > 0 {
		var m int
		var err error
		if r.keep {
			if len(r.resp.body) == cap(r.resp.body) {
				r.resp.body = slices.Grow(r.resp.body, int(min(n, 64<<10)))
			}
			room := r.resp.body[len(r.resp.body):cap(r.resp.body)]
			if int64(len(room)) > n {
				room = room[:n]
			}
			m, err = r.br.Read(room)
			r.resp.body = r.resp.body[:len(r.resp.body)+m]
		} else {
			m, err = r.br.Discard(int(min(n, 1<<30)))
		}
		n -= int64(m)
		r.resp.n += int64(m)
		if err != nil && n > 0 {
			r.resp.need = r.resp.n + n
			return eofInside(err)
		}
	}
	return nil
}

// untilClose reads the body up to the end of the stream.
func (r *reader) untilClose() error {
	for {
		var m int
		var err error
		if r.keep {
			if len(r.resp.body) == cap(r.resp.body) {
				r.resp.body = slices.Grow(r.resp.body, 4<<10)
			}
			m, err = r.br.Read(r.resp.body[len(r.resp.body):cap(r.resp.body)])
			r.resp.body = r.resp.body[:len(r.resp.body)+m]
			if int64(len(r.resp.body)) > r.maxBody {
				r.resp.n += int64(m)
				return ErrBodyTooLarge
			}
		} else {
			m, err = r.br.Discard(1 << 30)
		}
		r.resp.n += int64(m)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// eofInside turns the end of the stream into io.ErrUnexpectedEOF: the answer had begun.
func eofInside(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// chunkSize parses a chunk size line: hexadecimal digits, optional blanks, optional extensions after
// ';' (ignored).
func chunkSize(line []byte) (int64, bool) {
	var n int64
	i := 0
	for ; i < len(line); i++ {
		v, ok := unhex(line[i])
		if !ok {
			break
		}
		if i == 15 { // more than 2^60 bytes: no real chunk is that large
			return 0, false
		}
		n = n<<4 | int64(v)
	}
	if i == 0 {
		return 0, false
	}
	rest := trimSpace(line[i:])
	return n, len(rest) == 0 || rest[0] == ';'
}

// parseDecimal parses a Content-Length: 1 to 18 decimal digits, nothing else.
func parseDecimal(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if !isDigit(c) {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// nextToken returns the first non-empty, trimmed element of a comma-separated header value and what
// follows it; tok is empty when there is none left.
func nextToken(v []byte) (tok, rest []byte) {
	for len(v) > 0 {
		tok, v = v, nil
		if i := bytes.IndexByte(tok, ','); i >= 0 {
			tok, v = tok[:i], tok[i+1:]
		}
		if tok = trimSpace(tok); len(tok) > 0 {
			return tok, v
		}
	}
	return nil, nil
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// equalFold reports whether b equals the lower-case ASCII string s, ignoring ASCII case.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// isToken reports whether b is an HTTP token (RFC 9110: one or more tchar).
func isToken(b []byte) bool {
	for _, c := range b {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', isDigit(c):
		case c == '!', c == '#', c == '$', c == '%', c == '&', c == '\'', c == '*', c == '+', c == '-',
			c == '.', c == '^', c == '_', c == '`', c == '|', c == '~':
		default:
			return false
		}
	}
	return len(b) > 0
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// quote returns the start of b, quoted, for error messages.
func quote(b []byte) string {
	const max = 40
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "…"
	}
	return strconv.Quote(string(b))
}
