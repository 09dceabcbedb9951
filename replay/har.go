package replay

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/result"
)

// harEntry is what a replay reads of one entry of a HAR 1.2 file (log.entries[]).
type harEntry struct {
	StartedDateTime string `json:"startedDateTime"`
	Request         struct {
		Method   string `json:"method"`
		URL      string `json:"url"`
		Headers  []struct{ Name, Value string }
		PostData *struct {
			MimeType string `json:"mimeType"`
			Text     string `json:"text"`
			Encoding string `json:"encoding"` // rpcbench's and some proxies' "base64"
		} `json:"postData"`
	} `json:"request"`
	Response struct {
		Status int `json:"status"`
	} `json:"response"`
}

// skippedHeaders are the headers a replayed request does not copy from a recording: the
// transport writes them for the connection it uses (HTTP/2's pseudo-headers start with ':').
var skippedHeaders = map[string]bool{
	"host": true, "content-length": true, "connection": true, "keep-alive": true, "transfer-encoding": true,
	"upgrade": true, "proxy-connection": true, "te": true, "trailer": true, "accept-encoding": true,
}

// harReader streams the entries of a HAR file: one entry in memory at a time.
type harReader struct {
	name    string
	dec     *json.Decoder
	lines   *lineCounter
	started bool
	done    bool
}

func newHARReader(name string, r io.Reader) *harReader {
	lc := &lineCounter{r: r}
	return &harReader{name: name, dec: json.NewDecoder(lc), lines: lc}
}

// Next implements Reader.
func (h *harReader) Next() (Record, error) {
	if h.done {
		return Record{}, io.EOF
	}
	if !h.started {
		h.started = true
		if err := h.open(); err != nil {
			h.done = true
			return Record{}, err
		}
	}
	if !h.dec.More() {
		h.done = true
		return Record{}, io.EOF
	}
	line := h.lines.lineAt(h.entryStart())
	var e harEntry
	if err := h.dec.Decode(&e); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) { // the entry was read whole: the next one can be
			return Record{}, &LineError{File: h.name, Line: line, Err: fmt.Errorf("%s is a JSON %s: want %s", ute.Field, ute.Value, jsonKind(ute.Type))}
		}
		h.done = true // the decoder cannot go on after a syntax error
		return Record{}, fmt.Errorf("%s:%d: an entry that is not JSON: %v", h.name, line, err)
	}
	rec, err := e.record()
	if err != nil {
		return Record{}, &LineError{File: h.name, Line: line, Err: err}
	}
	rec.Line = line
	return rec, nil
}

// jsonKind names what JSON value a Go type reads.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map, reflect.Pointer:
		return "an object"
	case reflect.Bool:
		return "true or false"
	}
	return "a number"
}

// entryStart returns the offset of the next entry's '{': the decoder's offset is that of the end
// of the last token, before the comma and the spaces between.
func (h *harReader) entryStart() int64 {
	off := h.dec.InputOffset()
	buf := h.dec.Buffered()
	var b [1]byte
	for {
		if n, _ := buf.Read(b[:]); n == 0 || !strings.ContainsRune(" \t\r\n,", rune(b[0])) {
			return off
		}
		off++
	}
}

// open reads up to the first entry: {"log": {… "entries": [.
func (h *harReader) open() error {
	want := func(d json.Delim) error {
		tok, err := h.dec.Token()
		if err != nil || tok != d {
			return fmt.Errorf("%s:%d: want %q of a HAR file ({\"log\": {\"entries\": […]}})", h.name, h.lines.lineAt(h.dec.InputOffset()), d)
		}
		return nil
	}
	if err := want('{'); err != nil {
		return err
	}
	for _, path := range []string{"log", "entries"} {
		for {
			tok, err := h.dec.Token()
			if err != nil || tok == json.Delim('}') {
				return fmt.Errorf("%s: no %q in the HAR file: want {\"log\": {\"entries\": […]}}", h.name, path)
			}
			if tok == path {
				break
			}
			var skip json.RawMessage
			if err := h.dec.Decode(&skip); err != nil {
				return fmt.Errorf("%s:%d: %v", h.name, h.lines.lineAt(h.dec.InputOffset()), err)
			}
		}
		d := json.Delim('{')
		if path == "entries" {
			d = '['
		}
		if err := want(d); err != nil {
			return err
		}
	}
	return nil
}

// record turns a HAR entry into a record.
func (e *harEntry) record() (Record, error) {
	rq := e.Request
	if !isToken(rq.Method) {
		return Record{}, fmt.Errorf("request.method %q is not an HTTP method", clip(rq.Method))
	}
	if !strings.Contains(rq.URL, "://") {
		return Record{}, fmt.Errorf("request.url %q: want an absolute URL", clip(rq.URL))
	}
	t, err := time.Parse(time.RFC3339Nano, e.StartedDateTime)
	if err != nil {
		return Record{}, fmt.Errorf("startedDateTime %q: want an ISO 8601 time such as 2024-03-01T10:00:00.123Z", clip(e.StartedDateTime))
	}
	rec := Record{Time: t, Method: rq.Method, Target: rq.URL, Status: e.Response.Status}
	for _, h := range rq.Headers {
		if strings.HasPrefix(h.Name, ":") || skippedHeaders[strings.ToLower(h.Name)] {
			continue
		}
		if !isToken(h.Name) || strings.ContainsAny(h.Value, "\r\n") {
			return Record{}, fmt.Errorf("header %q: not a header a request can carry", clip(h.Name))
		}
		rec.Header = append(rec.Header, result.RequestHeader{Name: h.Name, Value: h.Value})
	}
	if pd := rq.PostData; pd != nil && pd.Text != "" {
		rec.Body = []byte(pd.Text)
		if pd.Encoding == "base64" {
			if rec.Body, err = base64.StdEncoding.DecodeString(pd.Text); err != nil {
				return Record{}, errors.New("postData.text: encoding base64, but it is not base64")
			}
		}
		if pd.MimeType != "" && !hasHeader(rec.Header, "Content-Type") {
			rec.Header = append(rec.Header, result.RequestHeader{Name: "Content-Type", Value: pd.MimeType})
		}
	}
	return rec, nil
}

// lineCounter counts the lines of what it reads, so that an offset into it can be told as a line.
// It keeps the offsets of the newlines not yet asked about: as many as the reader reads ahead.
type lineCounter struct {
	r       io.Reader
	off     int64   // bytes read so far
	nl      []int64 // offsets of newlines at or after the last offset asked about
	dropped int     // newlines before them
}

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i, b := range p[:n] {
		if b == '\n' {
			c.nl = append(c.nl, c.off+int64(i))
		}
	}
	c.off += int64(n)
	return n, err
}

// lineAt returns the line (from 1) of the byte at offset off; offsets asked about must not decrease.
func (c *lineCounter) lineAt(off int64) int {
	k := 0
	for k < len(c.nl) && c.nl[k] < off {
		k++
	}
	c.dropped += k
	c.nl = append(c.nl[:0], c.nl[k:]...)
	return c.dropped + 1
}
